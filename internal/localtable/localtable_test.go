package localtable_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"

	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// TestInput: each table's request is the one the stores' CreateTable
// helpers wrote out by hand before the definitions moved to tableschema.
func TestInput(t *testing.T) {
	s := func(name string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: types.ScalarAttributeTypeS}
	}
	n := func(name string) types.AttributeDefinition {
		return types.AttributeDefinition{AttributeName: aws.String(name), AttributeType: types.ScalarAttributeTypeN}
	}
	hash := func(name string) types.KeySchemaElement {
		return types.KeySchemaElement{AttributeName: aws.String(name), KeyType: types.KeyTypeHash}
	}
	rng := func(name string) types.KeySchemaElement {
		return types.KeySchemaElement{AttributeName: aws.String(name), KeyType: types.KeyTypeRange}
	}
	tests := []struct {
		name string
		def  tableschema.Table
		want *dynamodb.CreateTableInput
	}{
		{
			name: "links",
			def:  tableschema.Links(),
			want: &dynamodb.CreateTableInput{
				TableName:   aws.String("links"),
				BillingMode: types.BillingModePayPerRequest,
				AttributeDefinitions: []types.AttributeDefinition{
					s("code"), s("owner_id"), n("created_at"), s("tomb_shard"), n("reclaim_after"), s("exp_shard"), n("expires_at"),
				},
				KeySchema:           []types.KeySchemaElement{hash("code")},
				StreamSpecification: &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
				GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{
					{
						IndexName: aws.String("by-owner"),
						KeySchema: []types.KeySchemaElement{hash("owner_id"), rng("created_at")},
						Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"url", "alias", "status", "updated_at", "expires_at", "version", "redirect_status",
							"password_hash", "max_clicks", "rules", "targets", "expired_url"}},
					},
					{
						IndexName:  aws.String("due-tombstones"),
						KeySchema:  []types.KeySchemaElement{hash("tomb_shard"), rng("reclaim_after")},
						Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
					},
					{
						IndexName:  aws.String("expiring-links"),
						KeySchema:  []types.KeySchemaElement{hash("exp_shard"), rng("expires_at")},
						Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"owner_id"}},
					},
					{
						IndexName:  aws.String("by-owner-all"),
						KeySchema:  []types.KeySchemaElement{hash("owner_id"), rng("created_at")},
						Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
					},
				},
			},
		},
		{
			name: "idempotency",
			def:  tableschema.Idempotency(),
			want: &dynamodb.CreateTableInput{
				TableName:            aws.String("idempotency"),
				BillingMode:          types.BillingModePayPerRequest,
				AttributeDefinitions: []types.AttributeDefinition{s("pk")},
				KeySchema:            []types.KeySchemaElement{hash("pk")},
			},
		},
		{
			name: "keys",
			def:  tableschema.Keys(),
			want: &dynamodb.CreateTableInput{
				TableName:            aws.String("keys"),
				BillingMode:          types.BillingModePayPerRequest,
				AttributeDefinitions: []types.AttributeDefinition{s("key_hash"), s("owner_id"), n("created_at")},
				KeySchema:            []types.KeySchemaElement{hash("key_hash")},
				GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
					IndexName:  aws.String("keys-by-owner"),
					KeySchema:  []types.KeySchemaElement{hash("owner_id"), rng("created_at")},
					Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
				}},
			},
		},
		{
			name: "analytics",
			def:  tableschema.Analytics(),
			want: &dynamodb.CreateTableInput{
				TableName:            aws.String("analytics"),
				BillingMode:          types.BillingModePayPerRequest,
				AttributeDefinitions: []types.AttributeDefinition{s("code"), s("bucket")},
				KeySchema:            []types.KeySchemaElement{hash("code"), rng("bucket")},
			},
		},
		{
			name: "link-tags",
			def:  tableschema.LinkTags(),
			want: &dynamodb.CreateTableInput{
				TableName:            aws.String("link-tags"),
				BillingMode:          types.BillingModePayPerRequest,
				AttributeDefinitions: []types.AttributeDefinition{s("pk"), s("sk")},
				KeySchema:            []types.KeySchemaElement{hash("pk"), rng("sk")},
			},
		},
		{
			name: "webhooks",
			def:  tableschema.Webhooks(),
			want: &dynamodb.CreateTableInput{
				TableName:            aws.String("webhooks"),
				BillingMode:          types.BillingModePayPerRequest,
				AttributeDefinitions: []types.AttributeDefinition{s("owner_id"), s("sk")},
				KeySchema:            []types.KeySchemaElement{hash("owner_id"), rng("sk")},
			},
		},
		{
			name: "members",
			def:  tableschema.Members(),
			want: &dynamodb.CreateTableInput{
				TableName:            aws.String("members"),
				BillingMode:          types.BillingModePayPerRequest,
				AttributeDefinitions: []types.AttributeDefinition{s("workspace"), s("sk"), s("member_sub")},
				KeySchema:            []types.KeySchemaElement{hash("workspace"), rng("sk")},
				GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
					IndexName:  aws.String("by-user"),
					KeySchema:  []types.KeySchemaElement{hash("member_sub"), rng("workspace")},
					Projection: &types.Projection{ProjectionType: types.ProjectionTypeInclude, NonKeyAttributes: []string{"role", "added_at", "added_by"}},
				}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, localtable.Input(tt.name, tt.def))
		})
	}
}

// TestTTLAttributes: the TTL attributes the stores' helpers enabled.
func TestTTLAttributes(t *testing.T) {
	assert.Equal(t, "purge_at", tableschema.Links().TTLAttribute)
	assert.Equal(t, "expires_at", tableschema.Idempotency().TTLAttribute)
	assert.Equal(t, "expires_at", tableschema.Analytics().TTLAttribute)
	assert.Equal(t, "expires_at", tableschema.Webhooks().TTLAttribute)
	assert.Empty(t, tableschema.Keys().TTLAttribute)
	assert.Equal(t, "purge_at", tableschema.LinkTags().TTLAttribute, "a tag's copy of a link goes with it")
	assert.Empty(t, tableschema.Members().TTLAttribute, "members never expire by themselves")
}
