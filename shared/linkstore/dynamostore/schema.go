package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// SchemaAPI lists the calls CreateTables makes.
type SchemaAPI interface {
	dynamodb.DescribeTableAPIClient
	CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error)
}

// CreateTables creates the links and idempotency tables as the deployed
// stack has them (keys, stream, TTL), for DynamoDB Local in the local run
// and the tests. Tables that already exist are left alone. In AWS the
// tables come from infra/, never from here.
func CreateTables(ctx context.Context, db SchemaAPI, cfg Config) error {
	// Each table with its TTL attribute.
	tables := []struct {
		in  *dynamodb.CreateTableInput
		ttl string
	}{{
		ttl: AttrPurgeAt,
		in: &dynamodb.CreateTableInput{
			TableName:   &cfg.LinksTable,
			BillingMode: types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{
				{AttributeName: aws.String(AttrCode), AttributeType: types.ScalarAttributeTypeS},
				{AttributeName: aws.String(AttrOwner), AttributeType: types.ScalarAttributeTypeS},
				{AttributeName: aws.String(AttrCreatedAt), AttributeType: types.ScalarAttributeTypeN},
				{AttributeName: aws.String(AttrTombShard), AttributeType: types.ScalarAttributeTypeS},
				{AttributeName: aws.String(AttrReclaimAfter), AttributeType: types.ScalarAttributeTypeN},
				{AttributeName: aws.String(AttrExpShard), AttributeType: types.ScalarAttributeTypeS},
				{AttributeName: aws.String(AttrExpiresAt), AttributeType: types.ScalarAttributeTypeN},
			},
			KeySchema:           []types.KeySchemaElement{{AttributeName: aws.String(AttrCode), KeyType: types.KeyTypeHash}},
			StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
			GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
				{
					IndexName: aws.String(IndexByOwner),
					KeySchema: []types.KeySchemaElement{
						{AttributeName: aws.String(AttrOwner), KeyType: types.KeyTypeHash},
						{AttributeName: aws.String(AttrCreatedAt), KeyType: types.KeyTypeRange},
					},
					Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
				},
				{
					IndexName: aws.String(IndexDueTombstones),
					KeySchema: []types.KeySchemaElement{
						{AttributeName: aws.String(AttrTombShard), KeyType: types.KeyTypeHash},
						{AttributeName: aws.String(AttrReclaimAfter), KeyType: types.KeyTypeRange},
					},
					Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
				},
				{
					IndexName: aws.String(IndexExpiringLinks),
					KeySchema: []types.KeySchemaElement{
						{AttributeName: aws.String(AttrExpShard), KeyType: types.KeyTypeHash},
						{AttributeName: aws.String(AttrExpiresAt), KeyType: types.KeyTypeRange},
					},
					Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{AttrOwner}},
				},
			},
		},
	}, {
		ttl: AttrExpiresAt,
		in: &dynamodb.CreateTableInput{
			TableName:            &cfg.IdempotencyTable,
			BillingMode:          types.BillingModePayPerRequest,
			AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(AttrIdemPK), AttributeType: types.ScalarAttributeTypeS}},
			KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(AttrIdemPK), KeyType: types.KeyTypeHash}},
		},
	}}
	for _, t := range tables {
		in := t.in
		_, err := db.CreateTable(ctx, in)
		var inUse *types.ResourceInUseException
		if errors.As(err, &inUse) {
			continue
		}
		if err != nil {
			return fmt.Errorf("create table %s: %w", *in.TableName, err)
		}
		w := dynamodb.NewTableExistsWaiter(db)
		if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: in.TableName}, 30*time.Second); err != nil {
			return fmt.Errorf("wait for table %s: %w", *in.TableName, err)
		}
		if _, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
			TableName:               in.TableName,
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(t.ttl), Enabled: aws.Bool(true)},
		}); err != nil {
			return fmt.Errorf("enable ttl on %s: %w", *in.TableName, err)
		}
	}
	return nil
}
