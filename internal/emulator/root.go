package emulator

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// modulePath is the module path in the repository's root go.mod.
const modulePath = "github.com/shortlink-dev/shortener"

// repoRoot returns explicit if it is set, and otherwise the nearest directory
// at or above the working directory whose go.mod declares modulePath.
func repoRoot(explicit string) (string, error) {
	if explicit != "" {
		abs, err := filepath.Abs(explicit)
		if err != nil {
			return "", fmt.Errorf("repository root: %w", err)
		}
		return abs, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("repository root: %w", err)
	}
	for dir := wd; ; {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && goModModule(data) == modulePath {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("repository root: no go.mod for module %s at or above %s; set RepoRoot", modulePath, wd)
		}
		dir = parent
	}
}

// goModModule returns the module path declared in the go.mod contents data.
func goModModule(data []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			rest, _, _ = strings.Cut(rest, "//")
			return strings.Trim(strings.TrimSpace(rest), "\"`")
		}
	}
	return ""
}

// lookTool finds the executable name, preferring $JAVA_HOME/bin for the Java
// tools, and explains how to install it when it is missing.
func lookTool(name, install string) (string, error) {
	if name == "java" || name == "javac" {
		if home := os.Getenv("JAVA_HOME"); home != "" {
			for _, candidate := range []string{filepath.Join(home, "bin", name), filepath.Join(home, "bin", name+".exe")} {
				if fi, err := os.Stat(candidate); err == nil && !fi.IsDir() {
					return candidate, nil
				}
			}
		}
	}
	path, err := exec.LookPath(name)
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", fmt.Errorf("%w: %s not found on PATH: %s", ErrPrerequisite, name, install)
		}
		return "", fmt.Errorf("look up %s: %w", name, err)
	}
	return path, nil
}

// requireFile checks that a file from the repository or from node_modules
// exists.
func requireFile(path, fix string) error {
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%w: %s does not exist: %s", ErrPrerequisite, path, fix)
		}
		return err
	}
	return nil
}
