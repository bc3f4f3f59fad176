package localkinesis

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
)

// NullKinesis is a Kinesis endpoint on 127.0.0.1 that accepts every
// record and keeps none: a local run pointed at it writes its real-time
// log records there and its clicks poller finds the stream empty.
// cmd/loadgen uses it to measure edge hits without the click pipeline
// (kinesalite, the clicks function, DynamoDB Local's transactions), which
// in AWS runs on CloudFront's and Lambda's machines, not on the edge's
// request path, and which here competes with the edge for the same two
// cores; what stays is the local run's own side of the log: building each
// record and sending it in PutRecords batches. The Writer's benchmark
// uses it too.
type NullKinesis struct {
	srv *http.Server
	// Origin is its endpoint, http://127.0.0.1:<port>.
	Origin   string
	accepted atomic.Int64
}

// StartNull starts a NullKinesis; Close stops it.
func StartNull() (*NullKinesis, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	n := &NullKinesis{Origin: "http://" + ln.Addr().String()}
	n.srv = &http.Server{Handler: http.HandlerFunc(n.serve)}
	go func() { _ = n.srv.Serve(ln) }()
	return n, nil
}

// Close stops the server.
func (n *NullKinesis) Close() { n.srv.Close() }

// Accepted returns the count of records it has accepted.
func (n *NullKinesis) Accepted() int64 { return n.accepted.Load() }

const nullStreamARN = "arn:aws:kinesis:us-east-1:000000000000:stream/null"

// serve answers the calls the local run makes, in the JSON 1.1 protocol
// the SDK speaks to Kinesis.
//
// In cmd/loadgen it runs in the load generator's process, on the cores
// the client and the servers share, so PutRecords, the one call made at the rate of the redirects,
// costs as little as it can: Kinesis in AWS runs on machines of its own.
func (n *NullKinesis) serve(w http.ResponseWriter, r *http.Request) {
	_, action, _ := strings.Cut(r.Header.Get("X-Amz-Target"), ".")
	var out any
	switch action {
	case "CreateStream":
		out = struct{}{}
	case "DescribeStreamSummary":
		out = map[string]any{"StreamDescriptionSummary": map[string]any{
			"StreamName": "null", "StreamARN": nullStreamARN, "StreamStatus": "ACTIVE", "OpenShardCount": 1,
			"RetentionPeriodHours": 24, "StreamCreationTimestamp": 1.7e9, "EnhancedMonitoring": []any{},
		}}
	case "ListShards":
		out = map[string]any{"Shards": []any{map[string]any{
			"ShardId":             "shardId-000000000000",
			"HashKeyRange":        map[string]string{"StartingHashKey": "0", "EndingHashKey": "340282366920938463463374607431768211455"},
			"SequenceNumberRange": map[string]string{"StartingSequenceNumber": "1"},
		}}}
	case "GetShardIterator":
		out = map[string]string{"ShardIterator": "null-iterator"}
	case "GetRecords":
		out = map[string]any{"Records": []any{}, "NextShardIterator": "null-iterator", "MillisBehindLatest": 0}
	case "PutRecords":
		body, err := readAtMost(r.Body, r.ContentLength, maxPutRecordsBytes)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		answer := n.putRecords(body)
		h := w.Header()
		h["Content-Type"] = []string{"application/x-amz-json-1.1"}
		// As Kinesis does: a chunked answer costs both sides more.
		h["Content-Length"] = []string{strconv.Itoa(len(answer))}
		_, _ = w.Write(answer)
		return
	default:
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"__type":"UnknownOperationException","message":"null kinesis: `+action+`"}`)
		return
	}
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	_ = json.NewEncoder(w).Encode(out)
}

// maxPutRecordsBytes is Kinesis's limit on a PutRecords request, with
// room for the JSON around the records.
const maxPutRecordsBytes = 6 << 20

// partitionKeyField appears once per record in a PutRecords body, and only
// there: a JSON string value cannot hold an unescaped quote, so no value
// can contain it.
const partitionKeyField = `"PartitionKey"`

// putRecords accepts every record of a PutRecords body and returns the
// answer: a sequence number for each. It counts the records rather than
// decoding them, which would cost loadgen's process more than a
// microsecond a record.
func (n *NullKinesis) putRecords(body []byte) []byte {
	count := int64(bytes.Count(body, []byte(partitionKeyField)))
	first := n.accepted.Add(count) - count + 1
	out := make([]byte, 0, 48+count*64)
	out = append(out, `{"FailedRecordCount":0,"Records":[`...)
	for i := range count {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, `{"SequenceNumber":"`...)
		out = strconv.AppendInt(out, first+i, 10)
		out = append(out, `","ShardId":"shardId-000000000000"}`...)
	}
	return append(out, "]}"...)
}
