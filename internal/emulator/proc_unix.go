//go:build unix && !linux

package emulator

import (
	"os"
	"syscall"
)

// sysProcAttr puts the emulator in its own process group, so Stop can signal
// it together with anything it spawns. There is no parent-death signal here;
// the launchers exit instead when their standard input, a pipe from this
// process, reaches end of file.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// terminateGroup sends SIGTERM to the process group led by p.
func terminateGroup(p *os.Process) error { return syscall.Kill(-p.Pid, syscall.SIGTERM) }

// killGroup sends SIGKILL to the process group led by p.
func killGroup(p *os.Process) error { return syscall.Kill(-p.Pid, syscall.SIGKILL) }
