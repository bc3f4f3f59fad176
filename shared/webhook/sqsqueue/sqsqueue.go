// Package sqsqueue is the webhook.Queue on Amazon SQS.
package sqsqueue

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/shortlink-dev/shortener/shared/webhook"
)

// MaxDelay is the longest DelaySeconds SQS takes: 900 seconds
// (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessage.html).
// A longer wait is made of hops: the message comes back early, sees its
// Due time ahead, and is sent again.
const MaxDelay = 15 * time.Minute

// API is the SQS call the queue makes: SendMessage of body to the queue
// at queueURL, visible after delaySeconds, answering the message's ID.
// shared/sqssend makes it on SQS, without the SDK's SQS client (whose
// package initialisation was part of the webhook functions' cold start);
// the local run passes its in-process queues (internal/localsqs).
type API interface {
	SendMessage(ctx context.Context, queueURL, body string, delaySeconds int32) (string, error)
}

// Queue sends messages to one SQS queue.
type Queue struct {
	api API
	url string
}

var _ webhook.Queue = (*Queue)(nil)

// New returns the queue at url.
func New(api API, url string) *Queue { return &Queue{api: api, url: url} }

// Send implements webhook.Queue. The delay is rounded up to whole seconds
// and capped at MaxDelay.
func (q *Queue) Send(ctx context.Context, m webhook.Message, delay time.Duration) error {
	body, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode message: %w", err)
	}
	delay = min(max(delay, 0), MaxDelay)
	secs := int32((delay + time.Second - 1) / time.Second)
	_, err = q.api.SendMessage(ctx, q.url, string(body), secs)
	if err != nil {
		return fmt.Errorf("send message: %w", err)
	}
	return nil
}
