// Package localsqs is the local run's Amazon SQS queue and its Lambda
// event source mapping, in process. It is as strict as SQS where our code
// relies on it:
//
//   - SendMessage refuses a DelaySeconds outside 0-900
//     (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessage.html);
//   - a received message is invisible for the visibility timeout, and comes
//     back when the function reports it failed (ReportBatchItemFailures,
//     https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html)
//     or fails the whole batch;
//   - after maxReceiveCount receives a message moves to the dead-letter
//     queue, as a redrive policy does
//     (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-dead-letter-queues.html);
//   - delivery is at least once and unordered, as on a standard queue.
//
// Queue.Fail plays an outage of SQS itself for tests: SendMessage answers
// ServiceUnavailable until it ends.
package localsqs

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// Handler is an SQS-triggered function's handler.
type Handler func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error)

// Options configure a Queue.
type Options struct {
	// Name names the queue in its ARN.
	Name string
	// VisibilityTimeout is how long a received message stays hidden (30s,
	// SQS's default).
	VisibilityTimeout time.Duration
	// MaxReceiveCount moves a message received that many times to
	// DeadLetters; 0 keeps it forever.
	MaxReceiveCount int
	DeadLetters     *Queue
	// BatchSize bounds one invocation (10, the mapping's default).
	BatchSize int
	// PollInterval is the wait after a round that found nothing (100ms).
	PollInterval time.Duration
	Now          func() time.Time
	Log          *slog.Logger
}

type message struct {
	id, body  string
	visibleAt time.Time
	receives  int
}

// Queue is one standard queue.
type Queue struct {
	o    Options
	mu   sync.Mutex
	msgs map[string]*message
	seq  int
	wake chan struct{}
	down bool // Fail
}

// ErrUnavailable is SendMessage's answer during an outage (Fail).
var ErrUnavailable = &Error{Status: http.StatusServiceUnavailable, Type: "ServiceUnavailable",
	Code: "ServiceUnavailable", Message: "The request has failed due to a temporary failure of the server."}

// Fail starts (down) or ends an outage of the queue: while it lasts,
// SendMessage fails with ErrUnavailable and sends nothing, as SQS does when
// it answers 503 (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/CommonErrors.html).
// Messages already in the queue are still delivered.
func (q *Queue) Fail(down bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.down = down
}

// New returns an empty queue.
func New(o Options) *Queue {
	if o.VisibilityTimeout <= 0 {
		o.VisibilityTimeout = 30 * time.Second
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 10
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 100 * time.Millisecond
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	return &Queue{o: o, msgs: map[string]*message{}, wake: make(chan struct{}, 1)}
}

// SendMessage plays SQS's SendMessage.
func (q *Queue) SendMessage(_ context.Context, in *sqs.SendMessageInput, _ ...func(*sqs.Options)) (*sqs.SendMessageOutput, error) {
	if in.DelaySeconds < 0 || in.DelaySeconds > 900 {
		return nil, fmt.Errorf("InvalidParameterValue: DelaySeconds %d is outside 0-900", in.DelaySeconds)
	}
	body := aws.ToString(in.MessageBody)
	if body == "" || len(body) > 256<<10 {
		return nil, fmt.Errorf("InvalidParameterValue: the message body must be 1 byte to 256 KiB")
	}
	q.mu.Lock()
	if q.down {
		q.mu.Unlock()
		return nil, ErrUnavailable
	}
	q.seq++
	id := q.o.Name + "-" + strconv.Itoa(q.seq)
	q.msgs[id] = &message{id: id, body: body, visibleAt: q.o.Now().Add(time.Duration(in.DelaySeconds) * time.Second)}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return &sqs.SendMessageOutput{MessageId: aws.String(id)}, nil
}

// Len is how many messages the queue holds, visible or not.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.msgs)
}

// Bodies returns the bodies the queue holds, for tests and inspection.
func (q *Queue) Bodies() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]string, 0, len(q.msgs))
	for _, m := range q.msgs {
		out = append(out, m.body)
	}
	return out
}

// receive hides up to BatchSize visible messages and returns them as an
// event.
func (q *Queue) receive() events.SQSEvent {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.o.Now()
	var ev events.SQSEvent
	for id, m := range q.msgs {
		if len(ev.Records) == q.o.BatchSize {
			break
		}
		if now.Before(m.visibleAt) {
			continue
		}
		if q.o.MaxReceiveCount > 0 && m.receives >= q.o.MaxReceiveCount {
			delete(q.msgs, id)
			if q.o.DeadLetters != nil {
				_, _ = q.o.DeadLetters.SendMessage(context.Background(), &sqs.SendMessageInput{MessageBody: aws.String(m.body)})
			}
			q.o.Log.Warn("message moved to the dead-letter queue", "queue", q.o.Name, "message_id", id, "receives", m.receives)
			continue
		}
		m.receives++
		m.visibleAt = now.Add(q.o.VisibilityTimeout)
		ev.Records = append(ev.Records, events.SQSMessage{
			MessageId: id, ReceiptHandle: id, Body: m.body, EventSource: "aws:sqs",
			EventSourceARN: "arn:aws:sqs:us-east-1:000000000000:" + q.o.Name, AWSRegion: "us-east-1",
			Attributes: map[string]string{"ApproximateReceiveCount": strconv.Itoa(m.receives)},
		})
	}
	return ev
}

func (q *Queue) delete(id string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.msgs, id)
}

// Run plays the event source mapping until ctx is done: it hands batches
// to h, deletes the messages h handled and leaves the failed ones to come
// back after the visibility timeout.
func (q *Queue) Run(ctx context.Context, h Handler) {
	for ctx.Err() == nil {
		ev := q.receive()
		if len(ev.Records) == 0 {
			select {
			case <-ctx.Done():
			case <-q.wake:
			case <-time.After(q.o.PollInterval):
			}
			continue
		}
		resp, err := h(ctx, ev)
		if err != nil {
			q.o.Log.Error("function failed the batch", "queue", q.o.Name, "error", err.Error())
			continue // all come back after the visibility timeout
		}
		failed := map[string]bool{}
		for _, f := range resp.BatchItemFailures {
			failed[f.ItemIdentifier] = true
		}
		for _, r := range ev.Records {
			if !failed[r.MessageId] {
				q.delete(r.MessageId)
			}
		}
	}
}
