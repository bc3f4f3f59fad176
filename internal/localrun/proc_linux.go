//go:build linux

package localrun

import (
	"os"
	"syscall"
)

// sysProcAttr puts the local run in its own process group, so a kill
// reaches the emulators it started, and has the kernel kill it if this
// process dies first (the emulators follow it the same way).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

func killGroup(p *os.Process) error { return syscall.Kill(-p.Pid, syscall.SIGKILL) }
