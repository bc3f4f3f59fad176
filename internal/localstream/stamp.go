package localstream

import (
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// maxStamps bounds the records whose creation time the poller remembers:
// far more than a shard's records read again by the retries of one batch.
const maxStamps = 4096

// stamps gives records the creation time AWS would: DynamoDB Streams
// rounds ApproximateCreationDateTime down to the second
// (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_StreamRecord.html),
// DynamoDB Local down to the minute. A minute-aligned time is replaced by
// the second the poller first read the record, kept within that minute;
// the poller reads a shard several times a second, so that is the write's
// second or the next. Each record keeps its first stamp, so a batch
// retried later carries the same times, as on AWS.
type stamps struct {
	mu    sync.Mutex
	at    map[string]time.Time // by eventID
	order []string             // eventIDs, oldest first
}

func (s *stamps) refine(rec *events.DynamoDBEventRecord, now time.Time) {
	t := rec.Change.ApproximateCreationDateTime.Time
	if t.IsZero() {
		return
	}
	if t.Truncate(time.Minute).Equal(t) {
		t = s.first(rec.EventID, t, now)
	}
	rec.Change.ApproximateCreationDateTime = events.SecondsEpochTime{Time: t.Truncate(time.Second)}
}

// first is the stamp of the record eventID in the minute from minute:
// the one it got when first read, or now's second.
func (s *stamps) first(eventID string, minute, now time.Time) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.at[eventID]; ok {
		return t
	}
	t := now.Truncate(time.Second)
	switch {
	case t.Before(minute):
		t = minute
	case !t.Before(minute.Add(time.Minute)):
		t = minute.Add(time.Minute - time.Second) // read late: the minute's last second
	}
	if eventID == "" {
		return t // nothing to know it by again
	}
	if s.at == nil {
		s.at = map[string]time.Time{}
	}
	if len(s.order) >= maxStamps {
		delete(s.at, s.order[0])
		s.order = s.order[1:]
	}
	s.at[eventID] = t
	s.order = append(s.order, eventID)
	return t
}
