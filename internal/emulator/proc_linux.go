//go:build linux

package emulator

import (
	"os"
	"syscall"
)

// sysProcAttr puts the emulator in its own process group, so Stop can signal
// it together with anything it spawns, and has the kernel kill it if the
// thread that started it (and so normally the Go process) dies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// terminateGroup sends SIGTERM to the process group led by p.
func terminateGroup(p *os.Process) error { return syscall.Kill(-p.Pid, syscall.SIGTERM) }

// killGroup sends SIGKILL to the process group led by p.
func killGroup(p *os.Process) error { return syscall.Kill(-p.Pid, syscall.SIGKILL) }
