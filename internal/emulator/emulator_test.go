package emulator_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
	kinesistypes "github.com/aws/aws-sdk-go-v2/service/kinesis/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator"
)

// startTimeout is generous: a JVM starting while other test binaries keep a
// two-core machine busy can take half a minute to answer.
const startTimeout = 2 * time.Minute

func TestDynamoDBLocal(t *testing.T) {
	start := time.Now()
	p, err := emulator.StartDynamoDB(t.Context(), emulator.DynamoDBOptions{StartTimeout: startTimeout})
	require.NoError(t, err)
	t.Logf("DynamoDB Local ready at %s after %v", p.Endpoint(), time.Since(start).Round(time.Millisecond))
	t.Cleanup(func() { assert.NoError(t, p.Stop()) })

	require.True(t, strings.HasPrefix(p.Endpoint(), "http://127.0.0.1:"), p.Endpoint())
	require.Equal(t, "http://127.0.0.1:"+strconv.Itoa(p.Port()), p.Endpoint())

	t.Run("RoundTrip", func(t *testing.T) {
		ctx := t.Context()
		db := emulator.NewDynamoDBClient(p.Endpoint())
		table := "roundtrip"
		_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName:            aws.String(table),
			AttributeDefinitions: []ddbtypes.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: ddbtypes.ScalarAttributeTypeS}},
			KeySchema:            []ddbtypes.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: ddbtypes.KeyTypeHash}},
			BillingMode:          ddbtypes.BillingModePayPerRequest,
		})
		require.NoError(t, err)

		_, err = db.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: aws.String(table),
			Item: map[string]ddbtypes.AttributeValue{
				"pk":  &ddbtypes.AttributeValueMemberS{Value: "abc"},
				"url": &ddbtypes.AttributeValueMemberS{Value: "https://example.com/"},
			},
		})
		require.NoError(t, err)

		got, err := db.GetItem(ctx, &dynamodb.GetItemInput{
			TableName:      aws.String(table),
			Key:            map[string]ddbtypes.AttributeValue{"pk": &ddbtypes.AttributeValueMemberS{Value: "abc"}},
			ConsistentRead: aws.Bool(true),
		})
		require.NoError(t, err)
		require.Contains(t, got.Item, "url")
		assert.Equal(t, &ddbtypes.AttributeValueMemberS{Value: "https://example.com/"}, got.Item["url"])

		// -sharedDb: a client with other credentials and region sees the table.
		other := dynamodb.NewFromConfig(aws.Config{
			Region: "eu-west-1",
			Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
				return aws.Credentials{AccessKeyID: "x", SecretAccessKey: "y"}, nil
			}),
			BaseEndpoint: aws.String(p.Endpoint()),
		})
		tables, err := other.ListTables(ctx, &dynamodb.ListTablesInput{})
		require.NoError(t, err)
		assert.Contains(t, tables.TableNames, table)
	})

	t.Run("Streams", func(t *testing.T) {
		ctx := t.Context()
		db := emulator.NewDynamoDBClient(p.Endpoint())
		streams := emulator.NewStreamsClient(p.Endpoint())
		table := "streams"
		created, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
			TableName:            aws.String(table),
			AttributeDefinitions: []ddbtypes.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: ddbtypes.ScalarAttributeTypeS}},
			KeySchema:            []ddbtypes.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: ddbtypes.KeyTypeHash}},
			BillingMode:          ddbtypes.BillingModePayPerRequest,
			StreamSpecification: &ddbtypes.StreamSpecification{
				StreamEnabled:  aws.Bool(true),
				StreamViewType: ddbtypes.StreamViewTypeNewAndOldImages,
			},
		})
		require.NoError(t, err)
		streamARN := aws.ToString(created.TableDescription.LatestStreamArn)
		require.NotEmpty(t, streamARN)

		_, err = db.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: aws.String(table),
			Item:      map[string]ddbtypes.AttributeValue{"pk": &ddbtypes.AttributeValueMemberS{Value: "k1"}},
		})
		require.NoError(t, err)

		desc, err := streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(streamARN)})
		require.NoError(t, err)
		require.NotEmpty(t, desc.StreamDescription.Shards)
		it, err := streams.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{
			StreamArn:         aws.String(streamARN),
			ShardId:           desc.StreamDescription.Shards[0].ShardId,
			ShardIteratorType: streamtypes.ShardIteratorTypeTrimHorizon,
		})
		require.NoError(t, err)
		recs, err := streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
		require.NoError(t, err)
		require.Len(t, recs.Records, 1)
		assert.Equal(t, streamtypes.OperationTypeInsert, recs.Records[0].EventName)
		assert.Equal(t, &streamtypes.AttributeValueMemberS{Value: "k1"}, recs.Records[0].Dynamodb.Keys["pk"])
	})

	t.Run("LoopbackOnly", func(t *testing.T) {
		assertLoopbackOnly(t, p.Port())
	})

	t.Run("Stop", func(t *testing.T) {
		require.NoError(t, p.Stop())
		select {
		case <-p.Done():
		default:
			t.Fatal("Done not closed after Stop")
		}
		_, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p.Port())), time.Second)
		assert.Error(t, err, "port still accepts connections after Stop")
		require.NoError(t, p.Stop(), "second Stop")
	})
}

func TestDynamoDBLocalPortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port

	_, err = emulator.StartDynamoDB(t.Context(), emulator.DynamoDBOptions{Port: port, StartTimeout: startTimeout})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exited before it was ready")
	assert.Contains(t, err.Error(), "in use")
}

func TestKinesalite(t *testing.T) {
	port := freePort(t)
	start := time.Now()
	p, err := emulator.StartKinesalite(t.Context(), emulator.KinesaliteOptions{Port: port})
	require.NoError(t, err)
	t.Logf("kinesalite ready at %s after %v", p.Endpoint(), time.Since(start).Round(time.Millisecond))
	t.Cleanup(func() { assert.NoError(t, p.Stop()) })
	require.Equal(t, port, p.Port())
	require.Equal(t, fmt.Sprintf("http://127.0.0.1:%d", port), p.Endpoint())

	t.Run("RoundTrip", func(t *testing.T) {
		ctx := t.Context()
		k := emulator.NewKinesisClient(p.Endpoint())
		stream := "roundtrip"
		_, err := k.CreateStream(ctx, &kinesis.CreateStreamInput{StreamName: aws.String(stream), ShardCount: aws.Int32(2)})
		require.NoError(t, err)
		require.Eventually(t, func() bool {
			out, err := k.DescribeStreamSummary(ctx, &kinesis.DescribeStreamSummaryInput{StreamName: aws.String(stream)})
			return err == nil && out.StreamDescriptionSummary.StreamStatus == kinesistypes.StreamStatusActive
		}, 10*time.Second, 20*time.Millisecond)

		put, err := k.PutRecord(ctx, &kinesis.PutRecordInput{
			StreamName:   aws.String(stream),
			PartitionKey: aws.String("abc"),
			Data:         []byte(`{"code":"abc"}`),
		})
		require.NoError(t, err)
		require.NotEmpty(t, aws.ToString(put.SequenceNumber))

		it, err := k.GetShardIterator(ctx, &kinesis.GetShardIteratorInput{
			StreamName:        aws.String(stream),
			ShardId:           put.ShardId,
			ShardIteratorType: kinesistypes.ShardIteratorTypeTrimHorizon,
		})
		require.NoError(t, err)
		recs, err := k.GetRecords(ctx, &kinesis.GetRecordsInput{ShardIterator: it.ShardIterator})
		require.NoError(t, err)
		require.Len(t, recs.Records, 1)
		r := recs.Records[0]
		assert.Equal(t, []byte(`{"code":"abc"}`), r.Data)
		assert.Equal(t, "abc", aws.ToString(r.PartitionKey))
		assert.Equal(t, aws.ToString(put.SequenceNumber), aws.ToString(r.SequenceNumber))
		require.NotNil(t, r.ApproximateArrivalTimestamp)
		assert.WithinDuration(t, time.Now(), *r.ApproximateArrivalTimestamp, time.Minute)
		assert.NotNil(t, recs.NextShardIterator)
	})

	t.Run("LoopbackOnly", func(t *testing.T) {
		assertLoopbackOnly(t, p.Port())
	})
}

func TestStartTimeout(t *testing.T) {
	_, err := emulator.StartKinesalite(t.Context(), emulator.KinesaliteOptions{StartTimeout: time.Nanosecond})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "gave up after 1ns")
}

func TestMissingPrerequisites(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/empty\n"), 0o644))

	_, err := emulator.StartDynamoDB(t.Context(), emulator.DynamoDBOptions{RepoRoot: root})
	require.Error(t, err)
	assert.ErrorIs(t, err, emulator.ErrPrerequisite)
	assert.Contains(t, err.Error(), "npm ci")

	_, err = emulator.StartKinesalite(t.Context(), emulator.KinesaliteOptions{RepoRoot: root})
	require.Error(t, err)
	assert.ErrorIs(t, err, emulator.ErrPrerequisite)
	assert.Contains(t, err.Error(), "npm ci")
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	return port
}

// assertLoopbackOnly checks that port accepts connections on 127.0.0.1 but
// not on any other address of this machine.
func assertLoopbackOnly(t *testing.T, port int) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), 2*time.Second)
	require.NoError(t, err, "dial 127.0.0.1")
	require.NoError(t, conn.Close())

	addrs, err := net.InterfaceAddrs()
	require.NoError(t, err)
	checked := 0
	for _, a := range addrs {
		ipnet, ok := a.(*net.IPNet)
		if !ok || ipnet.IP.IsLoopback() || ipnet.IP.IsLinkLocalUnicast() || ipnet.IP.IsUnspecified() {
			continue
		}
		addr := net.JoinHostPort(ipnet.IP.String(), strconv.Itoa(port))
		conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err == nil {
			_ = conn.Close()
		}
		assert.Error(t, err, "port %d accepts connections on non-loopback address %s", port, addr)
		checked++
	}
	t.Logf("checked %d non-loopback addresses", checked)

	if runtime.GOOS == "linux" {
		v4 := listeners(t, "/proc/net/tcp", port)
		assert.Equal(t, []string{"0100007F"}, v4, "IPv4 listeners on port %d", port)
		v6 := listeners(t, "/proc/net/tcp6", port)
		assert.Empty(t, v6, "IPv6 listeners on port %d", port)
	} else if checked == 0 {
		t.Log("no non-loopback address to dial and no /proc/net/tcp; binding not verified")
	}
}

// listeners returns the local addresses (hex, as in the file) of sockets in
// LISTEN state on port in a /proc/net/tcp-style file.
func listeners(t *testing.T, file string, port int) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	require.NoError(t, err)
	var out []string
	for _, line := range strings.Split(string(data), "\n")[1:] {
		fields := strings.Fields(line)
		if len(fields) < 4 || fields[3] != "0A" { // 0A is TCP_LISTEN
			continue
		}
		host, portHex, ok := strings.Cut(fields[1], ":")
		if !ok {
			continue
		}
		if p, err := strconv.ParseUint(portHex, 16, 16); err == nil && int(p) == port {
			out = append(out, host)
		}
	}
	return out
}
