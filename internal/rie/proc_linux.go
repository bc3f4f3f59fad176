//go:build linux

package rie

import (
	"os"
	"syscall"
)

// sysProcAttr puts the emulator in its own process group, so Stop ends the
// bootstrap it spawned with it, and has the kernel kill it if this process
// dies first.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

func terminateGroup(p *os.Process) error { return syscall.Kill(-p.Pid, syscall.SIGTERM) }

func killGroup(p *os.Process) error { return syscall.Kill(-p.Pid, syscall.SIGKILL) }
