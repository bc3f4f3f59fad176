package faults

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// Reply is an error answer as DynamoDB sends it on the wire (the JSON 1.0
// protocol: HTTP 400 and a body naming the error's shape in __type). A
// rule with a Reply hands it to the SDK in place of the service's answer,
// so the SDK's own deserializer builds the typed error
// (*types.TransactionCanceledException with its CancellationReasons, and so
// on) and its retryer treats it as it would the real one. The shapes follow
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html
// and the operations' "Errors" sections in the DynamoDB API Reference.
type Reply struct {
	Status int
	Body   []byte
}

//go:embed wire/*.json
var wire embed.FS

func wireReply(name string) *Reply {
	b, err := wire.ReadFile("wire/" + name)
	if err != nil {
		panic(err) // embedded at build time: a missing file is a bug of this package
	}
	return &Reply{Status: http.StatusBadRequest, Body: bytes.TrimSpace(b)}
}

// ReplyThroughputExceeded is ProvisionedThroughputExceededException: a
// table or index over its capacity. The SDK retries it.
func ReplyThroughputExceeded() *Reply { return wireReply("provisioned-throughput-exceeded.json") }

// ReplyRequestLimitExceeded is RequestLimitExceeded: the account's
// throughput quota is spent. The SDK retries it.
func ReplyRequestLimitExceeded() *Reply { return wireReply("request-limit-exceeded.json") }

// ReplyThrottling is ThrottlingException, which DynamoDB sends under the
// shape ID com.amazon.coral.availability#ThrottlingException (on-demand
// maximum throughput, control-plane rates). The SDK retries it.
func ReplyThrottling() *Reply { return wireReply("throttling.json") }

// ReplyTransactionConflict is TransactionConflictException: a PutItem,
// UpdateItem or DeleteItem on an item a transaction is writing. The SDK
// does not retry it.
func ReplyTransactionConflict() *Reply { return wireReply("transaction-conflict.json") }

// ReplyReplicatedWriteConflict is ReplicatedWriteConflictException: on a
// multi-Region strongly consistent (MRSC) global table, another Region is
// writing the same item at the same moment. AWS calls it retryable
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/V2globaltables_HowItWorks.html).
// The message is ours; AWS does not publish the service's wording.
func ReplyReplicatedWriteConflict() *Reply { return wireReply("replicated-write-conflict.json") }

// ReplyTransactionCanceled is TransactionCanceledException with one
// cancellation reason per item of the transaction, in the order of
// TransactItems ("None" for an item without error), as DynamoDB lists
// them. Two requests writing one item at once cancel one of them with
// reason "TransactionConflict". The SDK does not retry it.
func ReplyTransactionCanceled(reasons ...string) *Reply {
	type reason struct {
		Code    string
		Message string `json:",omitempty"`
	}
	body := struct {
		Type    string   `json:"__type"`
		Reasons []reason `json:"CancellationReasons"`
		Message string
	}{
		Type:    "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
		Message: "Transaction cancelled, please refer cancellation reasons for specific reasons [" + strings.Join(reasons, ", ") + "]",
	}
	for _, code := range reasons {
		body.Reasons = append(body.Reasons, reason{Code: code, Message: reasonMessages[code]})
	}
	b, _ := json.Marshal(body) // strings only
	return &Reply{Status: http.StatusBadRequest, Body: b}
}

// reasonMessages are the messages DynamoDB gives each cancellation reason
// (TransactionCanceledException in the DynamoDB API Reference).
var reasonMessages = map[string]string{
	"ConditionalCheckFailed":          "The conditional request failed",
	"TransactionConflict":             "Transaction is ongoing for the item",
	"ProvisionedThroughputExceeded":   "The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.",
	"ThrottlingError":                 "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly. If exceptions persist, check if you have a hot key: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html.",
	"ItemCollectionSizeLimitExceeded": "Collection size exceeded.",
}

// response renders r as the HTTP response DynamoDB would send, with the
// CRC32 header the SDK checks DynamoDB's answers against.
func (r *Reply) response(req *smithyhttp.Request, n int) *smithyhttp.Response {
	h := http.Header{}
	h.Set("Content-Type", "application/x-amz-json-1.0")
	h.Set("X-Amzn-Requestid", fmt.Sprintf("FAULTS%026d", n))
	h.Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE(r.Body)), 10))
	h.Set("Content-Length", strconv.Itoa(len(r.Body)))
	return &smithyhttp.Response{Response: &http.Response{
		Status:        fmt.Sprintf("%d %s", r.Status, http.StatusText(r.Status)),
		StatusCode:    r.Status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(r.Body)),
		ContentLength: int64(len(r.Body)),
		Request:       req.Request,
	}}
}

// replyKey carries the reply due for a call's HTTP attempts down the
// stack, from the rule that chose it to the wire middleware.
type replyKey struct{}

type pendingReply struct {
	reply *Reply
	after bool
}

func withReply(ctx context.Context, r *Reply, after bool) context.Context {
	return context.WithValue(ctx, replyKey{}, &pendingReply{reply: r, after: after})
}

// wireMiddleware sits last in the deserialize step, where the HTTP request
// goes out: with a reply due it answers in the service's place (after
// sending the request, for an After rule), and every deserializer and
// response check above it runs on that answer.
func (i *Injector) wireMiddleware() middleware.DeserializeMiddleware {
	return middleware.DeserializeMiddlewareFunc("faults.Wire",
		func(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
			p, _ := ctx.Value(replyKey{}).(*pendingReply)
			req, ok := in.Request.(*smithyhttp.Request)
			if p == nil || !ok {
				return next.HandleDeserialize(ctx, in)
			}
			var md middleware.Metadata
			if p.after {
				out, m, err := next.HandleDeserialize(ctx, in)
				if err != nil {
					return out, m, err // it failed anyway: nothing to replace
				}
				if raw, ok := out.RawResponse.(*smithyhttp.Response); ok && raw.Body != nil {
					_, _ = io.Copy(io.Discard, raw.Body)
					raw.Body.Close()
				}
				md = m
			}
			return middleware.DeserializeOutput{RawResponse: p.reply.response(req, i.replied())}, md, nil
		})
}

func (i *Injector) replied() int {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.replies++
	return i.replies
}
