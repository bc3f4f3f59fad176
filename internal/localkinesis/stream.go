package localkinesis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
)

// StreamAPI lists the calls EnsureStream makes.
type StreamAPI interface {
	CreateStream(ctx context.Context, in *kinesis.CreateStreamInput, optFns ...func(*kinesis.Options)) (*kinesis.CreateStreamOutput, error)
	DescribeStreamSummary(ctx context.Context, in *kinesis.DescribeStreamSummaryInput, optFns ...func(*kinesis.Options)) (*kinesis.DescribeStreamSummaryOutput, error)
}

var _ StreamAPI = (*kinesis.Client)(nil)

// activePoll is how often EnsureStream looks whether the stream is active.
const activePoll = 50 * time.Millisecond

// EnsureStream creates the stream name with shards shards (provisioned)
// unless it exists, waits until it can be read and written (ACTIVE or
// UPDATING), and returns its ARN. An existing stream is used as it is,
// whatever its shard count. ctx bounds the wait.
func EnsureStream(ctx context.Context, api StreamAPI, name string, shards int) (string, error) {
	if shards <= 0 {
		shards = 1
	}
	cctx, cancel := callContext(ctx)
	_, err := api.CreateStream(cctx, &kinesis.CreateStreamInput{StreamName: &name, ShardCount: aws.Int32(int32(shards))})
	cancel()
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) {
		return "", fmt.Errorf("create stream %s: %w", name, err)
	}
	t := time.NewTicker(activePoll)
	defer t.Stop()
	for {
		cctx, cancel := callContext(ctx)
		out, err := api.DescribeStreamSummary(cctx, &kinesis.DescribeStreamSummaryInput{StreamName: &name})
		cancel()
		if err != nil {
			return "", fmt.Errorf("describe stream %s: %w", name, err)
		}
		d := out.StreamDescriptionSummary
		switch d.StreamStatus {
		case types.StreamStatusActive, types.StreamStatusUpdating:
			return aws.ToString(d.StreamARN), nil
		case types.StreamStatusDeleting:
			return "", fmt.Errorf("stream %s is being deleted", name)
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("stream %s is %s: %w", name, d.StreamStatus, ctx.Err())
		case <-t.C:
		}
	}
}

// arnParts returns the region and account of a stream ARN such as
// arn:aws:kinesis:us-east-1:000000000000:stream/name.
func arnParts(arn string) (region, account string) {
	p := strings.SplitN(arn, ":", 6)
	if len(p) < 6 {
		return "", ""
	}
	return p[3], p[4]
}
