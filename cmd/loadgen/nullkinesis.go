package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
)

// nullKinesis is a Kinesis endpoint that accepts every record and keeps
// none: the local run's edge writes its real-time log records to it and
// its clicks poller finds the stream empty. It lets the edge-hit phase be
// measured a second time without the click pipeline (kinesalite, the
// clicks function, DynamoDB Local's transactions), which in AWS runs on
// CloudFront's and Lambda's machines, not on the edge's request path, and
// which here competes with the edge for the same two cores. What stays is
// the local run's own side of the log: building each record and sending
// it in PutRecords batches.
type nullKinesis struct {
	srv      *http.Server
	origin   string
	accepted atomic.Int64
}

func startNullKinesis() (*nullKinesis, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	n := &nullKinesis{origin: "http://" + ln.Addr().String()}
	n.srv = &http.Server{Handler: http.HandlerFunc(n.serve)}
	go func() { _ = n.srv.Serve(ln) }()
	return n, nil
}

func (n *nullKinesis) close() { n.srv.Close() }

const nullStreamARN = "arn:aws:kinesis:us-east-1:000000000000:stream/null"

// serve answers the calls the local run makes, in the JSON 1.1 protocol
// the SDK speaks to Kinesis.
func (n *nullKinesis) serve(w http.ResponseWriter, r *http.Request) {
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
		var in struct{ Records []json.RawMessage }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		results := make([]map[string]string, len(in.Records))
		for i := range results {
			seq := n.accepted.Add(1)
			results[i] = map[string]string{"SequenceNumber": strconv.FormatInt(seq, 10), "ShardId": "shardId-000000000000"}
		}
		out = map[string]any{"FailedRecordCount": 0, "Records": results}
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
