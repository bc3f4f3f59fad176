package localkinesis

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
)

// TestNullKinesisAcceptsEveryRecord sends PutRecords through the SDK, as
// the local run's writer does, and reads the answers back through it.
func TestNullKinesisAcceptsEveryRecord(t *testing.T) {
	null, err := StartNull()
	require.NoError(t, err)
	defer null.Close()
	kc := emulator.NewKinesisClient(null.Origin)
	ctx := context.Background()

	tests := []struct {
		name    string
		records int
		key     func(i int) string
		wantSeq []string
	}{
		{name: "one", records: 1, key: func(int) string { return "k" }, wantSeq: []string{"1"}},
		{name: "keys and data that spell the field", records: 3,
			key: func(i int) string { return fmt.Sprintf(`"PartitionKey":%d`, i) }, wantSeq: []string{"2", "3", "4"}},
		{name: "a full batch", records: 500, key: func(i int) string { return fmt.Sprint(i) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries := make([]types.PutRecordsRequestEntry, tt.records)
			for i := range entries {
				entries[i] = types.PutRecordsRequestEntry{Data: []byte(`{"PartitionKey":"x"}` + "\t" + tt.key(i)),
					PartitionKey: aws.String(tt.key(i))}
			}
			before := null.Accepted()
			out, err := kc.PutRecords(ctx, &kinesis.PutRecordsInput{StreamName: aws.String("null"), Records: entries})
			require.NoError(t, err)
			assert.Equal(t, int32(0), aws.ToInt32(out.FailedRecordCount))
			require.Len(t, out.Records, tt.records)
			for i, r := range out.Records {
				assert.Nil(t, r.ErrorCode)
				assert.Equal(t, "shardId-000000000000", aws.ToString(r.ShardId))
				assert.Equal(t, fmt.Sprint(before+int64(i)+1), aws.ToString(r.SequenceNumber))
				if tt.wantSeq != nil {
					assert.Equal(t, tt.wantSeq[i], aws.ToString(r.SequenceNumber))
				}
			}
			assert.Equal(t, before+int64(tt.records), null.Accepted())
		})
	}
}
