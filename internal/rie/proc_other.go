//go:build !linux

package rie

import (
	"os"
	"syscall"
)

// The emulator runs only on Linux; elsewhere Start fails when the
// emulator cannot execute, and these only keep the package building.

func sysProcAttr() *syscall.SysProcAttr { return nil }

func terminateGroup(p *os.Process) error { return p.Kill() }

func killGroup(p *os.Process) error { return p.Kill() }
