package localtable

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// API lists the calls Create makes.
type API interface {
	dynamodb.DescribeTableAPIClient
	CreateTable(ctx context.Context, in *dynamodb.CreateTableInput, optFns ...func(*dynamodb.Options)) (*dynamodb.CreateTableOutput, error)
	UpdateTimeToLive(ctx context.Context, in *dynamodb.UpdateTimeToLiveInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateTimeToLiveOutput, error)
}

// Input is the CreateTable request for def under name: on-demand billing,
// def's keys, indexes and stream. TTL is not part of it (see Create).
func Input(name string, def tableschema.Table) *dynamodb.CreateTableInput {
	in := &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		KeySchema:   keySchema(def.PartitionKey, def.SortKey),
	}
	// Every key attribute once, in order of first use.
	var defs []types.AttributeDefinition
	seen := map[string]bool{}
	declare := func(a tableschema.Attribute) {
		if a.Name == "" || seen[a.Name] {
			return
		}
		seen[a.Name] = true
		defs = append(defs, types.AttributeDefinition{AttributeName: aws.String(a.Name), AttributeType: types.ScalarAttributeType(a.Type)})
	}
	declare(def.PartitionKey)
	declare(def.SortKey)
	for _, ix := range def.Indexes {
		declare(ix.PartitionKey)
		declare(ix.SortKey)
		p := &types.Projection{ProjectionType: types.ProjectionType(ix.Projection)}
		if len(ix.NonKeyAttributes) > 0 {
			p.NonKeyAttributes = append([]string(nil), ix.NonKeyAttributes...)
		}
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName:  aws.String(ix.Name),
			KeySchema:  keySchema(ix.PartitionKey, ix.SortKey),
			Projection: p,
		})
	}
	in.AttributeDefinitions = defs
	if def.Stream != "" {
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewType(def.Stream)}
	}
	return in
}

func keySchema(pk, sk tableschema.Attribute) []types.KeySchemaElement {
	ks := []types.KeySchemaElement{{AttributeName: aws.String(pk.Name), KeyType: types.KeyTypeHash}}
	if sk.Name != "" {
		ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(sk.Name), KeyType: types.KeyTypeRange})
	}
	return ks
}

// Create creates def as table name, waits until it is active and enables
// TTL on def's TTL attribute, which CreateTable cannot do. A table that
// already exists is left alone.
func Create(ctx context.Context, db API, name string, def tableschema.Table) error {
	_, err := db.CreateTable(ctx, Input(name, def))
	var inUse *types.ResourceInUseException
	if errors.As(err, &inUse) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("create table %s: %w", name, err)
	}
	w := dynamodb.NewTableExistsWaiter(db)
	if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: &name}, 30*time.Second); err != nil {
		return fmt.Errorf("wait for table %s: %w", name, err)
	}
	if def.TTLAttribute == "" {
		return nil
	}
	if _, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName:               &name,
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(def.TTLAttribute), Enabled: aws.Bool(true)},
	}); err != nil {
		return fmt.Errorf("enable ttl on %s: %w", name, err)
	}
	return nil
}

// Links creates the links and idempotency tables (tableschema.Links and
// tableschema.Idempotency), which every link store needs both of.
func Links(ctx context.Context, db API, links, idempotency string) error {
	if err := Create(ctx, db, links, tableschema.Links()); err != nil {
		return err
	}
	return Create(ctx, db, idempotency, tableschema.Idempotency())
}

// LinkTags creates the tags table (tableschema.LinkTags), which a link
// store that keeps tags writes in the transaction of each link write.
func LinkTags(ctx context.Context, db API, name string) error {
	return Create(ctx, db, name, tableschema.LinkTags())
}
