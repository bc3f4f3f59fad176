package localkinesis

import (
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kinesis/types"
)

// The constant fields of every record Lambda delivers from Kinesis.
const (
	eventSource          = "aws:kinesis"
	eventName            = "aws:kinesis:record"
	eventVersion         = "1.0"
	kinesisSchemaVersion = "1.0"
)

// source is a stream as the mapping reads it; streamARN, region and
// identityARN name where records come from, in the fields that say so.
type source struct {
	api                            ReadAPI
	stream                         string
	streamARN, region, identityARN string
}

// eventRecord builds the record Lambda would deliver for r, read from
// shardID of the stream.
func (s *source) eventRecord(r types.Record, shardID string) events.KinesisEventRecord {
	seq := aws.ToString(r.SequenceNumber)
	rec := events.KinesisEventRecord{
		AwsRegion:         s.region,
		EventID:           shardID + ":" + seq,
		EventName:         eventName,
		EventSource:       eventSource,
		EventSourceArn:    s.streamARN,
		EventVersion:      eventVersion,
		InvokeIdentityArn: s.identityARN,
		Kinesis: events.KinesisRecord{
			Data:                 r.Data,
			PartitionKey:         aws.ToString(r.PartitionKey),
			SequenceNumber:       seq,
			KinesisSchemaVersion: kinesisSchemaVersion,
		},
	}
	if r.ApproximateArrivalTimestamp != nil {
		// Kinesis keeps milliseconds; Lambda writes them as fractional seconds.
		rec.Kinesis.ApproximateArrivalTimestamp = events.SecondsEpochTime{Time: r.ApproximateArrivalTimestamp.Truncate(time.Millisecond)}
	}
	if r.EncryptionType == types.EncryptionTypeKms {
		rec.Kinesis.EncryptionType = string(r.EncryptionType)
	}
	return rec
}
