package faulttest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/ttlstream/ttlstreamfn"
	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/faults"
	"github.com/shortlink-dev/shortener/internal/localstream"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/metrics"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// delivery is one invocation of a stream function as the poller made it.
type delivery struct {
	ttlRemovals []string // codes of the TTL deletions in the batch
	failed      int      // batch item failures reported
}

// streamRun is the links table's stream mapped to the real ttlstream
// handler through the local poller, with the handler's store on the
// faulty client and the first GetRecords held until release is called,
// so that the test's expirations arrive as one batch.
type streamRun struct {
	emf, logs  syncBuffer
	release    func()
	mu         sync.Mutex
	deliveries []delivery
	parked     []localstream.Failure
}

// startStream starts the poller; transform, when not nil, changes each
// event before the handler sees it. The poller stops when the test ends.
func startStream(t *testing.T, r *rig, transform func(*events.DynamoDBEvent)) *streamRun {
	t.Helper()
	s := &streamRun{}
	hold := make(chan struct{})
	s.release = sync.OnceFunc(func() { close(hold) })
	sinj := faults.New()
	sinj.Add(faults.Rule{Op: "GetRecords", Hold: hold, Times: 1})
	streams := emulator.NewStreamsClient(testenv.DynamoDBEndpoint(t), func(o *dynamodbstreams.Options) {
		o.APIOptions = append(o.APIOptions, sinj.Install)
	})
	// Built as functions/ttlstream/main.go builds it, over the faulty client.
	h := ttlstreamfn.New(ttlstreamfn.Options{
		Store:   dynamo.NewLinkStore(r.faulty, dynamo.LinkConfig{LinksTable: r.links, IdempotencyTable: r.idem, Timeout: 2 * time.Second}),
		Grace:   time.Hour,
		Now:     time.Now,
		Log:     jsonLogger(&s.logs),
		Metrics: metrics.New(&s.emf, "Shortener", "ttlstream"),
	})
	p, err := localstream.New(r.plain, streams, localstream.Options{
		Table: r.links,
		Handler: func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
			if transform != nil {
				transform(&ev)
			}
			resp, err := h.Handle(ctx, ev)
			d := delivery{failed: len(resp.BatchItemFailures)}
			for i := range ev.Records {
				if ttlstreamfn.IsTTLDeletion(&ev.Records[i]) {
					d.ttlRemovals = append(d.ttlRemovals, ev.Records[i].Change.Keys[tableschema.AttrCode].String())
				}
			}
			s.mu.Lock()
			s.deliveries = append(s.deliveries, d)
			s.mu.Unlock()
			return resp, err
		},
		Region:           emulator.Region,
		MaxRetries:       2,
		RetryDelay:       20 * time.Millisecond,
		TTLSweepInterval: 200 * time.Millisecond,
		OnFailure: func(_ context.Context, f localstream.Failure) {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.parked = append(s.parked, f)
		},
		Log: jsonLogger(&s.logs),
	})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	t.Cleanup(func() {
		s.release()
		cancel()
		assert.NoError(t, <-done)
	})
	return s
}

func (s *streamRun) snapshot() ([]delivery, []localstream.Failure) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.deliveries), slices.Clone(s.parked)
}

// expire writes n links that expired a minute ago, named prefix0, prefix1...
func expire(t *testing.T, r *rig, prefix string, n int) []string {
	t.Helper()
	var codes []string
	for i := range n {
		code := fmt.Sprintf("%s%d", prefix, i)
		r.putLink(t, code, "https://example.com/"+code, time.Now().Add(-time.Minute))
		codes = append(codes, code)
	}
	return codes
}

// tombstoned reports whether each code holds a tombstone.
func tombstoned(t *testing.T, r *rig, codes []string) bool {
	t.Helper()
	for _, c := range codes {
		_, err := r.store().GetTombstone(context.Background(), c)
		if err != nil {
			require.ErrorIs(t, err, link.ErrNotFound)
			return false
		}
	}
	return true
}

func TestTTLStreamBatchFailingHalfwayIsRetriedExactlyOnce(t *testing.T) {
	r := newRig(t)
	codes := expire(t, r, "halfway", 10)
	// The 4th to 6th tombstone writes (UpdateItem, in place) are throttled past the SDK's retries.
	f := r.inj.Add(faults.Rule{Op: "UpdateItem", Table: r.links, Skip: 3, Times: 3, Err: faults.Throttled()})

	s := startStream(t, r, nil)
	eventually(t, "the sweep deletes every expired link", func() bool { return len(r.items(t)) == 0 })
	s.release()
	eventually(t, "every expired code is tombstoned", func() bool { return tombstoned(t, r, codes) })
	eventually(t, "the retry is delivered", func() bool {
		d, _ := s.snapshot()
		return len(d) >= 2 && d[len(d)-1].failed == 0
	})

	deliveries, parked := s.snapshot()
	assert.Equal(t, 3, f.Fired())
	require.GreaterOrEqual(t, len(deliveries), 2)
	first := deliveries[0]
	assert.ElementsMatch(t, codes, first.ttlRemovals, "the expirations came as one batch (in the sweep's order)")
	assert.Equal(t, 3, first.failed, "that batch failed halfway: three records of ten")
	assert.Equal(t, first.ttlRemovals[3:], deliveries[1].ttlRemovals, "the retry starts at the first failed record")
	assert.Zero(t, deliveries[1].failed)
	assert.Empty(t, parked, "nothing given up")
	// Each tombstone was written once; the records redelivered behind the
	// failures found theirs already there.
	assert.Equal(t, float64(len(codes)), s.emf.metric(t, ttlstreamfn.MetricWritten))
	assert.Equal(t, 4.0, s.emf.metric(t, ttlstreamfn.MetricAlready))
	assert.Equal(t, 3.0, s.emf.metric(t, ttlstreamfn.MetricFailed))
	assert.Len(t, r.items(t), len(codes), "exactly the tombstones, nothing else")
}

func TestTTLStreamPoisonRecordIsParkedWithoutBlockingTheShard(t *testing.T) {
	r := newRig(t)
	before := expire(t, r, "good", 2)
	poison := expire(t, r, "poison", 1)[0]
	after := expire(t, r, "fine", 2)
	var poisonSeq string
	// The poison record: a TTL deletion whose old image is missing, as a
	// stream not configured with NEW_AND_OLD_IMAGES delivers it. The
	// handler can never turn it into a tombstone.
	s := startStream(t, r, func(ev *events.DynamoDBEvent) {
		for i := range ev.Records {
			rec := &ev.Records[i]
			if rec.Change.Keys[tableschema.AttrCode].String() == poison && rec.EventName == "REMOVE" {
				rec.Change.OldImage = nil
				poisonSeq = rec.Change.SequenceNumber
			}
		}
	})
	eventually(t, "the sweep deletes every expired link", func() bool { return len(r.items(t)) == 0 })
	s.release()

	eventually(t, "the poison batch is parked", func() bool { _, p := s.snapshot(); return len(p) > 0 })
	good := append(slices.Clone(before), after...)
	eventually(t, "every good code is tombstoned", func() bool { return tombstoned(t, r, good) })
	// The shard moves on: a link that expires later is tombstoned too.
	later := expire(t, r, "later", 1)
	eventually(t, "a later expiry is tombstoned", func() bool { return tombstoned(t, r, later) })

	_, parked := s.snapshot()
	require.Len(t, parked, 1, "one batch given up")
	assert.Equal(t, []string{poisonSeq}, parked[0].Failed, "the dead-letter entry names the poison record")
	assert.Equal(t, 3, parked[0].Attempts, "first try and MaxRetries retries")
	_, err := r.store().GetTombstone(context.Background(), poison)
	assert.ErrorIs(t, err, link.ErrNotFound)
	assert.Equal(t, 3.0, s.emf.metric(t, ttlstreamfn.MetricPoison))
	assert.Equal(t, float64(len(good)+len(later)), s.emf.metric(t, ttlstreamfn.MetricWritten), "each good tombstone written once")
	assert.NotEmpty(t, s.logs.Records(t, "poison stream record"))
}
