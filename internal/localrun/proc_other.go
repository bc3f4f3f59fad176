//go:build !linux

package localrun

import (
	"os"
	"syscall"
)

// Elsewhere the emulators the local run started may outlive a kill; Stop
// normally ends it with SIGTERM, which stops them first.
func sysProcAttr() *syscall.SysProcAttr { return nil }

func killGroup(p *os.Process) error { return p.Kill() }
