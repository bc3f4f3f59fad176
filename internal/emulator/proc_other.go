//go:build !unix

package emulator

import (
	"os"
	"syscall"
)

// sysProcAttr returns nil: without Unix process groups, the launchers exit
// when their standard input, a pipe from this process, reaches end of file.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// terminateGroup kills p; there is no gentler portable signal.
func terminateGroup(p *os.Process) error { return p.Kill() }

// killGroup kills p.
func killGroup(p *os.Process) error { return p.Kill() }
