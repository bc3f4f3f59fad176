package localsqs

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// Queues routes SendMessage by queue URL to in-process queues, as SQS
// does by QueueUrl. It is the local run's SQS client for the functions
// (shared/webhook/sqsqueue.API, the call shared/sqssend makes on AWS),
// and, as an http.Handler, SQS's SendMessage in the AWS JSON 1.0 protocol
// as the SDK's client and shared/sqssend send it
// (https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-making-api-requests-json.html,
// https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessage.html):
// POST / with Content-Type application/x-amz-json-1.0 and X-Amz-Target
// AmazonSQS.SendMessage, a SigV4 Authorization for service sqs, and a
// JSON body naming QueueUrl and MessageBody. It answers MessageId and
// MD5OfMessageBody, which the SDK's client checks, and errors as SQS
// does, with the JSON __type and the query-compatible code in
// X-Amzn-Query-Error ("code;Sender"). It does not verify the signature
// (it knows no secret), only that there is one.
type Queues map[string]*Queue

// Error is an error the queues answer, with SQS's codes.
type Error struct {
	// Status is the HTTP status; Type the JSON protocol's error type and
	// Code the query-compatible code SQS sends in X-Amzn-Query-Error.
	Status     int
	Type, Code string
	Message    string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// SendMessage sends body to the queue at queueURL, visible after
// delaySeconds, and returns the message's ID.
func (qs Queues) SendMessage(ctx context.Context, queueURL, body string, delaySeconds int32) (string, error) {
	dst, ok := qs[queueURL]
	if !ok {
		return "", &Error{Status: http.StatusBadRequest, Type: "QueueDoesNotExist",
			Code: "AWS.SimpleQueueService.NonExistentQueue", Message: "The specified queue does not exist."}
	}
	out, err := dst.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(queueURL), MessageBody: aws.String(body), DelaySeconds: delaySeconds})
	if e := (*Error)(nil); errors.As(err, &e) {
		return "", e
	}
	if err != nil {
		return "", &Error{Status: http.StatusBadRequest, Type: "InvalidParameterValue", Code: "InvalidParameterValue", Message: err.Error()}
	}
	return aws.ToString(out.MessageId), nil
}

// maxRequest bounds a request's body: a message is at most 256 KiB, and
// its JSON escaping at most six times that.
const maxRequest = 6 * (256 << 10)

// ServeHTTP answers SendMessage in the AWS JSON 1.0 protocol.
func (qs Queues) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	fail := func(e *Error) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Header().Set("X-Amzn-Query-Error", e.Code+";Sender")
		w.WriteHeader(e.Status)
		_ = json.NewEncoder(w).Encode(map[string]string{"__type": "com.amazonaws.sqs#" + e.Type, "message": e.Message})
	}
	bad := func(typ, msg string) *Error {
		return &Error{Status: http.StatusBadRequest, Type: typ, Code: typ, Message: msg}
	}
	switch {
	case r.Method != http.MethodPost || r.URL.Path != "/":
		fail(bad("InvalidAction", "SendMessage is POST /"))
		return
	case r.Header.Get("Content-Type") != "application/x-amz-json-1.0":
		fail(bad("InvalidParameterValue", "Content-Type must be application/x-amz-json-1.0"))
		return
	case r.Header.Get("X-Amz-Target") != "AmazonSQS.SendMessage":
		fail(bad("InvalidAction", "the local queues answer only AmazonSQS.SendMessage, not "+r.Header.Get("X-Amz-Target")))
		return
	}
	if auth := r.Header.Get("Authorization"); !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=") || !strings.Contains(auth, "/sqs/aws4_request") {
		fail(&Error{Status: http.StatusForbidden, Type: "MissingAuthenticationToken", Code: "MissingAuthenticationToken",
			Message: "the request has no SigV4 signature for sqs"})
		return
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequest))
	if err != nil {
		fail(bad("InvalidParameterValue", "the request body is too large"))
		return
	}
	var in struct {
		QueueURL     *string `json:"QueueUrl"`
		MessageBody  *string `json:"MessageBody"`
		DelaySeconds int32   `json:"DelaySeconds"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		fail(bad("InvalidParameterValue", "the request body is not SendMessage's JSON: "+err.Error()))
		return
	}
	if in.QueueURL == nil || in.MessageBody == nil {
		fail(bad("MissingParameter", "QueueUrl and MessageBody are required"))
		return
	}
	id, err := qs.SendMessage(r.Context(), *in.QueueURL, *in.MessageBody, in.DelaySeconds)
	if e := (*Error)(nil); errors.As(err, &e) {
		fail(e)
		return
	}
	sum := md5.Sum([]byte(*in.MessageBody))
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	_ = json.NewEncoder(w).Encode(map[string]string{"MessageId": id, "MD5OfMessageBody": hex.EncodeToString(sum[:])})
}
