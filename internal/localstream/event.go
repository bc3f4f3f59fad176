package localstream

import (
	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// How AWS marks a deletion made by the TTL process: the one definition
// the deployed filter and ttlstream follow too.
const (
	ttlIdentityType = tableschema.TTLIdentityType
	ttlPrincipal    = tableschema.TTLPrincipal
)

// eventRecord builds the record Lambda would deliver for r, read from the
// stream streamARN. A non-empty region replaces the awsRegion DynamoDB
// Local reports ("ddblocal").
func eventRecord(r types.Record, streamARN, region string) events.DynamoDBEventRecord {
	rec := events.DynamoDBEventRecord{
		AWSRegion:      aws.ToString(r.AwsRegion),
		EventID:        aws.ToString(r.EventID),
		EventName:      string(r.EventName),
		EventSource:    aws.ToString(r.EventSource),
		EventVersion:   aws.ToString(r.EventVersion),
		EventSourceArn: streamARN,
	}
	if region != "" {
		rec.AWSRegion = region
	}
	if r.UserIdentity != nil {
		rec.UserIdentity = &events.DynamoDBUserIdentity{
			Type:        aws.ToString(r.UserIdentity.Type),
			PrincipalID: aws.ToString(r.UserIdentity.PrincipalId),
		}
	}
	if d := r.Dynamodb; d != nil {
		rec.Change = events.DynamoDBStreamRecord{
			Keys:           attributes(d.Keys),
			NewImage:       attributes(d.NewImage),
			OldImage:       attributes(d.OldImage),
			SequenceNumber: aws.ToString(d.SequenceNumber),
			SizeBytes:      aws.ToInt64(d.SizeBytes),
			StreamViewType: string(d.StreamViewType),
		}
		if d.ApproximateCreationDateTime != nil {
			rec.Change.ApproximateCreationDateTime = events.SecondsEpochTime{Time: *d.ApproximateCreationDateTime}
		}
	}
	if isLocalTTLDeletion(&rec) {
		rec.EventName = tableschema.EventRemove
		rec.UserIdentity = &events.DynamoDBUserIdentity{Type: ttlIdentityType, PrincipalID: ttlPrincipal}
	}
	return rec
}

// isLocalTTLDeletion recognises DynamoDB Local's TTL deletion: an
// eventName that is no operation (UNKNOWN_TO_SDK_VERSION in 3.x) and no
// userIdentity (see the package documentation).
func isLocalTTLDeletion(rec *events.DynamoDBEventRecord) bool {
	switch events.DynamoDBOperationType(rec.EventName) {
	case events.DynamoDBOperationTypeInsert, events.DynamoDBOperationTypeModify, events.DynamoDBOperationTypeRemove:
		return false
	}
	return rec.UserIdentity == nil
}

func attributes(m map[string]types.AttributeValue) map[string]events.DynamoDBAttributeValue {
	if m == nil {
		return nil
	}
	out := make(map[string]events.DynamoDBAttributeValue, len(m))
	for k, v := range m {
		out[k] = attribute(v)
	}
	return out
}

func attribute(v types.AttributeValue) events.DynamoDBAttributeValue {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return events.NewStringAttribute(v.Value)
	case *types.AttributeValueMemberN:
		return events.NewNumberAttribute(v.Value)
	case *types.AttributeValueMemberB:
		return events.NewBinaryAttribute(v.Value)
	case *types.AttributeValueMemberBOOL:
		return events.NewBooleanAttribute(v.Value)
	case *types.AttributeValueMemberNULL:
		return events.NewNullAttribute()
	case *types.AttributeValueMemberSS:
		return events.NewStringSetAttribute(v.Value)
	case *types.AttributeValueMemberNS:
		return events.NewNumberSetAttribute(v.Value)
	case *types.AttributeValueMemberBS:
		return events.NewBinarySetAttribute(v.Value)
	case *types.AttributeValueMemberL:
		l := make([]events.DynamoDBAttributeValue, len(v.Value))
		for i, x := range v.Value {
			l[i] = attribute(x)
		}
		return events.NewListAttribute(l)
	case *types.AttributeValueMemberM:
		return events.NewMapAttribute(attributes(v.Value))
	}
	// A type newer than this SDK: DynamoDB has had the ten above since
	// 2014. Null keeps the event decodable.
	return events.NewNullAttribute()
}
