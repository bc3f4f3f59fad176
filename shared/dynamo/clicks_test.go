package dynamo_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/clickstore/clickstoretest"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

var now = time.Date(2026, 11, 30, 12, 34, 56, 0, time.UTC)

const shard = clickstoretest.Shard

var chunk = clickstoretest.NewChunk

type fixture struct {
	db    *dynamodb.Client
	table string
	store *dynamo.ClickStore
}

// newFixture creates a fresh analytics table on DynamoDB Local.
func newFixture(t *testing.T, cfg dynamo.ClickConfig) *fixture {
	t.Helper()
	db := emulator.NewDynamoDBClient(testenv.DynamoDBEndpoint(t))
	cfg.Table = testenv.UniqueName(t, "clicks")
	if cfg.Timeout == 0 {
		cfg.Timeout = 20 * time.Second // DynamoDB Local's first calls are slow on a busy machine
	}
	cfg.Now = func() time.Time { return now }
	require.NoError(t, localtable.Create(context.Background(), db, cfg.Table, tableschema.Analytics()))
	return &fixture{db: db, table: cfg.Table, store: dynamo.NewClickStore(db, cfg)}
}

// item reads one raw item, or nil.
func (f *fixture) item(t *testing.T, code, bucket string) map[string]types.AttributeValue {
	t.Helper()
	out, err := f.db.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName:      &f.table,
		Key:            map[string]types.AttributeValue{"code": &types.AttributeValueMemberS{Value: code}, "bucket": &types.AttributeValueMemberS{Value: bucket}},
		ConsistentRead: aws.Bool(true),
	})
	require.NoError(t, err)
	return out.Item
}

func n(item map[string]types.AttributeValue, name string) string {
	if v, ok := item[name].(*types.AttributeValueMemberN); ok {
		return v.Value
	}
	return ""
}

func c(total, human, bot int64) clickstore.Counts {
	return clickstore.Counts{Total: total, Human: human, Bot: bot}
}

// TestClickStoreOnDynamoDBLocal runs the behaviour suite against DynamoDB Local.
func TestClickStoreOnDynamoDBLocal(t *testing.T) {
	clickstoretest.Run(t, func(t *testing.T, cfg clickstoretest.Config) clickstore.Store {
		return newFixture(t, dynamo.ClickConfig{MaxBreakdownItems: cfg.MaxBreakdownItems}).store
	})
}

func TestCreateTableTwice(t *testing.T) {
	f := newFixture(t, dynamo.ClickConfig{})

	assert.NoError(t, localtable.Create(context.Background(), f.db, f.table, tableschema.Analytics()))
}

func TestApplyWritesTheLayout(t *testing.T) {
	f := newFixture(t, dynamo.ClickConfig{HourRetention: 24 * time.Hour, DayRetention: 48 * time.Hour})
	at := time.Date(2026, 11, 30, 12, 5, 0, 0, time.UTC)
	err := f.store.Apply(context.Background(), chunk("100", "105", map[clickstore.Key]clickstore.Counts{
		clickstore.HourKey("Ab3dE5g", at):                             c(3, 2, 1),
		clickstore.DayKey("Ab3dE5g", at):                              c(3, 2, 1),
		clickstore.CountryKey("Ab3dE5g", at, "DE"):                    c(2, 1, 1),
		clickstore.ReferrerKey("Ab3dE5g", at, "news.ycombinator.com"): c(1, 1, 0),
	}))
	require.NoError(t, err)

	hourTTL := fmt.Sprint(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC).Add(24 * time.Hour).Unix())
	dayTTL := fmt.Sprint(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC).Add(48 * time.Hour).Unix())
	tests := []struct {
		bucket            string
		total, human, bot string
		expires           string
	}{
		{bucket: "h#2026113012", total: "3", human: "2", bot: "1", expires: hourTTL},
		{bucket: "d#20261130", total: "3", human: "2", bot: "1", expires: dayTTL},
		{bucket: "c#20261130#DE", total: "2", human: "1", bot: "1", expires: dayTTL},
		{bucket: "r#20261130#news.ycombinator.com", total: "1", human: "1", bot: "0", expires: dayTTL},
	}
	for _, tt := range tests {
		t.Run(tt.bucket, func(t *testing.T) {
			item := f.item(t, "Ab3dE5g", tt.bucket)

			require.NotNil(t, item)
			assert.Equal(t, tt.total, n(item, "total"))
			assert.Equal(t, tt.human, n(item, "human"))
			assert.Equal(t, tt.bot, n(item, "bot"))
			assert.Equal(t, tt.expires, n(item, "expires_at"))
		})
	}
	cp := f.item(t, "#shard#"+shard, "checkpoint")
	require.NotNil(t, cp)
	assert.Equal(t, strings.Repeat("0", 125)+"105", cp["seq"].(*types.AttributeValueMemberS).Value)
	assert.Equal(t, fmt.Sprint(now.Add(dynamo.DefaultCheckpointRetention).Unix()), n(cp, "expires_at"))
}

func TestApplyRefusesMalformedChunks(t *testing.T) {
	for _, tt := range clickstoretest.MalformedChunks() {
		t.Run(tt.Name, func(t *testing.T) {
			db := &failingAPI{}
			s := dynamo.NewClickStore(db, dynamo.ClickConfig{Table: "t"})

			err := s.Apply(context.Background(), tt.Chunk)

			require.Error(t, err)
			assert.NotErrorIs(t, err, clickstore.ErrApplied)
			assert.Zero(t, db.calls, "nothing is sent")
		})
	}
}

func TestKindsAreChecked(t *testing.T) {
	s := dynamo.NewClickStore(&failingAPI{}, dynamo.ClickConfig{Table: "t"})

	_, err := s.Series(context.Background(), "abc", clickstore.Country, now, now.Add(time.Hour))
	assert.Error(t, err)
	_, _, err = s.Breakdown(context.Background(), "abc", clickstore.Day, now, now.Add(time.Hour))
	assert.Error(t, err)
}

// failingAPI answers every call with err.
type failingAPI struct {
	dynamo.API // the calls the store does not make here
	err        error
	calls      int
}

func (f *failingAPI) TransactWriteItems(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	f.calls++
	return nil, f.err
}

func (f *failingAPI) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	f.calls++
	return nil, f.err
}

func (f *failingAPI) Query(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	f.calls++
	return nil, f.err
}

func TestApplyErrors(t *testing.T) {
	reasons := func(codes ...string) error {
		e := &types.TransactionCanceledException{Message: aws.String("cancelled")}
		for _, code := range codes {
			e.CancellationReasons = append(e.CancellationReasons, types.CancellationReason{Code: aws.String(code)})
		}
		return e
	}
	tests := []struct {
		name            string
		err             error
		wantApplied     bool
		wantContended   bool
		wantUnavailable bool
	}{
		{name: "checkpoint condition failed", err: reasons("ConditionalCheckFailed", "None"), wantApplied: true},
		{name: "transaction conflict on a counter", err: reasons("None", "TransactionConflict"), wantContended: true, wantUnavailable: true},
		{name: "throttled", err: &types.ThrottlingException{Message: aws.String("slow down")}, wantUnavailable: true},
		{name: "internal error", err: &types.InternalServerError{Message: aws.String("oops")}, wantUnavailable: true},
		{name: "timeout", err: context.DeadlineExceeded, wantUnavailable: true},
		{name: "connection refused", err: errors.New("dial tcp 127.0.0.1:1: connect: connection refused"), wantUnavailable: true},
		{name: "validation", err: reasons("None", "ValidationError")},
		{name: "missing table", err: &types.ResourceNotFoundException{Message: aws.String("no table")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := dynamo.NewClickStore(&failingAPI{err: tt.err}, dynamo.ClickConfig{Table: "t"})

			err := s.Apply(context.Background(), chunk("1", "2", map[clickstore.Key]clickstore.Counts{clickstore.DayKey("abc", now): c(1, 1, 0)}))

			require.Error(t, err)
			assert.Equal(t, tt.wantApplied, errors.Is(err, clickstore.ErrApplied))
			assert.Equal(t, tt.wantContended, errors.Is(err, clickstore.ErrContended))
			assert.Equal(t, tt.wantUnavailable, errors.Is(err, link.ErrUnavailable))
		})
	}
}
