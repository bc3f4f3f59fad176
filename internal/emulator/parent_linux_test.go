//go:build linux

package emulator_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
)

// helperEnv makes the test binary act as a parent process that starts
// kinesalite, prints its PID and waits to be killed.
const helperEnv = "EMULATOR_TEST_HELPER_PARENT"

// TestEmulatorDiesWithParent checks that Pdeathsig kills an emulator whose
// parent is killed with SIGKILL, which leaves it no chance to call Stop.
func TestEmulatorDiesWithParent(t *testing.T) {
	if os.Getenv(helperEnv) != "" {
		p, err := emulator.StartKinesalite(context.Background(), emulator.KinesaliteOptions{})
		if err != nil {
			fmt.Println("ERROR", err)
			os.Exit(1)
		}
		fmt.Println("PID", p.PID())
		time.Sleep(time.Minute)
		os.Exit(0)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^TestEmulatorDiesWithParent$")
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()

	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	pidText, ok := strings.CutPrefix(strings.TrimSpace(line), "PID ")
	require.True(t, ok, "helper said %q", line)
	pid, err := strconv.Atoi(pidText)
	require.NoError(t, err)
	require.True(t, alive(pid), "emulator %d not running", pid)

	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	require.Eventually(t, func() bool { return !alive(pid) }, 15*time.Second, 50*time.Millisecond,
		"emulator %d outlived its parent", pid)
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}
