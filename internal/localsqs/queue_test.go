package localsqs_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/localsqs"
)

func TestDelayBounds(t *testing.T) {
	q := localsqs.New(localsqs.Options{Name: "q"})
	_, err := q.SendMessage(context.Background(), &sqs.SendMessageInput{MessageBody: aws.String("x"), DelaySeconds: 901})
	assert.Error(t, err, "SQS refuses a delay over 15 minutes")
	_, err = q.SendMessage(context.Background(), &sqs.SendMessageInput{MessageBody: aws.String("")})
	assert.Error(t, err)
	assert.Equal(t, 0, q.Len())
}

// TestRedrive: a message the function keeps failing comes back after the
// visibility timeout and moves to the dead-letter queue after
// MaxReceiveCount receives; one it handles is deleted.
func TestRedrive(t *testing.T) {
	dlq := localsqs.New(localsqs.Options{Name: "dlq"})
	q := localsqs.New(localsqs.Options{Name: "q", VisibilityTimeout: 10 * time.Millisecond, MaxReceiveCount: 3,
		DeadLetters: dlq, PollInterval: 5 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	receives := map[string]int{}
	go q.Run(ctx, func(_ context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var resp events.SQSEventResponse
		mu.Lock()
		defer mu.Unlock()
		for _, r := range ev.Records {
			receives[r.Body]++
			if r.Body == "bad" {
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: r.MessageId})
			}
		}
		return resp, nil
	})
	for _, b := range []string{"good", "bad"} {
		_, err := q.SendMessage(ctx, &sqs.SendMessageInput{MessageBody: aws.String(b)})
		require.NoError(t, err)
	}
	require.Eventually(t, func() bool { return dlq.Len() == 1 && q.Len() == 0 }, 10*time.Second, 5*time.Millisecond)
	assert.Equal(t, []string{"bad"}, dlq.Bodies())
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, map[string]int{"good": 1, "bad": 3}, receives)
}

// TestOutage: during an outage SendMessage fails with ServiceUnavailable
// and queues nothing, through the Go call and through SQS's JSON protocol;
// after it, sending works again.
func TestOutage(t *testing.T) {
	ctx := context.Background()
	q := localsqs.New(localsqs.Options{Name: "q"})
	qs := localsqs.Queues{"https://sqs.local/q": q}
	q.Fail(true)
	_, err := q.SendMessage(ctx, &sqs.SendMessageInput{MessageBody: aws.String("x")})
	assert.ErrorIs(t, err, localsqs.ErrUnavailable)
	_, err = qs.SendMessage(ctx, "https://sqs.local/q", "x", 0)
	var e *localsqs.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, 503, e.Status)
	assert.Equal(t, "ServiceUnavailable", e.Code)
	assert.Equal(t, 0, q.Len(), "nothing queued during the outage")

	q.Fail(false)
	_, err = qs.SendMessage(ctx, "https://sqs.local/q", "x", 0)
	require.NoError(t, err)
	assert.Equal(t, 1, q.Len())
}
