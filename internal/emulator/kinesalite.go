package emulator

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
)

const (
	// kinesaliteLauncher is the Node.js launcher, relative to the repository
	// root.
	kinesaliteLauncher = "tools/kinesalite/launch.js"

	kinesaliteReadyPrefix = "kinesalite ready: "

	installNode = "install Node.js 18+ (e.g. `apt-get install nodejs` or `brew install node`)"
)

// KinesaliteOptions configures StartKinesalite. The zero value is ready to
// use.
type KinesaliteOptions struct {
	// RepoRoot is the repository root. If empty, it is the nearest directory
	// at or above the working directory whose go.mod declares this module.
	RepoRoot string

	// Port is the TCP port on 127.0.0.1 to listen on. If zero, the kernel
	// picks a free port.
	Port int

	// StartTimeout bounds startup. If zero, DefaultStartTimeout is used.
	StartTimeout time.Duration

	// Output, if not nil, receives every line kinesalite writes to standard
	// output and standard error. It must be safe to call from a goroutine
	// other than the caller's.
	Output io.Writer
}

// StartKinesalite starts kinesalite in memory, listening on 127.0.0.1 only
// over plain HTTP, and returns once it has answered a ListStreams request.
// Streams become ACTIVE (and are deleted or updated) without delay, and up to
// 100 shards may be open. ctx bounds startup only: cancelling it later does
// not stop the emulator; call Stop for that.
//
// It needs node on PATH and the kinesalite npm package in node_modules.
func StartKinesalite(ctx context.Context, opts KinesaliteOptions) (*Process, error) {
	if opts.Port < 0 || opts.Port > 65535 {
		return nil, fmt.Errorf("start kinesalite: invalid port %d", opts.Port)
	}
	root, err := repoRoot(opts.RepoRoot)
	if err != nil {
		return nil, fmt.Errorf("start kinesalite: %w", err)
	}
	node, err := lookTool("node", installNode)
	if err != nil {
		return nil, fmt.Errorf("start kinesalite: %w", err)
	}
	if err := requireFile(filepath.Join(root, "node_modules", "kinesalite", "package.json"), runNpmCI); err != nil {
		return nil, fmt.Errorf("start kinesalite: %w", err)
	}
	script := filepath.Join(root, kinesaliteLauncher)
	if err := requireFile(script, "the launcher script is part of the repository"); err != nil {
		return nil, fmt.Errorf("start kinesalite: %w", err)
	}

	return launch(ctx, launchSpec{
		name:        "kinesalite",
		path:        node,
		args:        []string{script, strconv.Itoa(opts.Port), "--exit-on-stdin-eof"},
		dir:         root,
		readyPrefix: kinesaliteReadyPrefix,
		wantPort:    opts.Port,
		output:      opts.Output,
		timeout:     opts.StartTimeout,
		probe:       probeKinesis,
	})
}

// probeKinesis sends one ListStreams request without retries.
func probeKinesis(ctx context.Context, endpoint string) error {
	client := NewKinesisClient(endpoint, func(o *kinesis.Options) {
		o.RetryMaxAttempts = 1
	})
	_, err := client.ListStreams(ctx, &kinesis.ListStreamsInput{Limit: aws.Int32(1)})
	return err
}
