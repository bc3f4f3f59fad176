package localstream

import (
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
)

func TestStampsRoundToTheSecond(t *testing.T) {
	minute := time.Unix(1796003580, 0).UTC()
	tests := []struct {
		name     string
		reported time.Time // by DynamoDB Local
		readAt   time.Time
		want     time.Time
	}{
		{name: "a minute-aligned time takes the second of the first read",
			reported: minute, readAt: minute.Add(37600 * time.Millisecond), want: minute.Add(37 * time.Second)},
		{name: "read in the minute's first second", reported: minute, readAt: minute.Add(400 * time.Millisecond), want: minute},
		{name: "a clock behind the emulator's keeps the minute", reported: minute, readAt: minute.Add(-3 * time.Second), want: minute},
		{name: "read a minute late stays in its minute",
			reported: minute, readAt: minute.Add(90 * time.Second), want: minute.Add(59 * time.Second)},
		{name: "a time with seconds already is rounded down, not moved",
			reported: minute.Add(12500 * time.Millisecond), readAt: minute.Add(40 * time.Second), want: minute.Add(12 * time.Second)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s stamps
			rec := events.DynamoDBEventRecord{EventID: "e1",
				Change: events.DynamoDBStreamRecord{ApproximateCreationDateTime: events.SecondsEpochTime{Time: tt.reported}}}
			s.refine(&rec, tt.readAt)
			assert.Equal(t, tt.want, rec.Change.ApproximateCreationDateTime.Time.UTC())

			again := events.DynamoDBEventRecord{EventID: "e1",
				Change: events.DynamoDBStreamRecord{ApproximateCreationDateTime: events.SecondsEpochTime{Time: tt.reported}}}
			s.refine(&again, tt.readAt.Add(20*time.Second))
			assert.Equal(t, tt.want, again.Change.ApproximateCreationDateTime.Time.UTC(), "a record read again keeps its stamp")
		})
	}
}

func TestStampsAreBounded(t *testing.T) {
	var s stamps
	minute := time.Unix(1796003580, 0)
	for i := range maxStamps + 10 {
		rec := events.DynamoDBEventRecord{EventID: string(rune('a'+i%26)) + time.Duration(i).String(),
			Change: events.DynamoDBStreamRecord{ApproximateCreationDateTime: events.SecondsEpochTime{Time: minute}}}
		s.refine(&rec, minute.Add(time.Second))
	}
	assert.Len(t, s.at, maxStamps)
	assert.Len(t, s.order, maxStamps)
}
