package localkinesis

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
)

// Sender makes PutRecords calls whose JSON body the caller has built.
type Sender interface {
	// PutRecords sends body, a PutRecords request of n records, and
	// returns each record's error code in order ("" for a record Kinesis
	// accepted), or an error when the call failed whole.
	PutRecords(ctx context.Context, body []byte, n int) ([]string, error)
}

// HTTPSender is a Sender that speaks Kinesis's JSON 1.1 protocol itself,
// signed with Signature Version 4, to the endpoint, region and credentials
// of a kinesis.Client.
//
// Why not the client's own PutRecords: the edge writes a record per
// redirect, and in the local run it shares two cores with the redirects it
// logs. Through the SDK each record costs a request entry, an encoding by
// its generic serializer and a decoded result entry; here the Writer
// appends each record to the request body as it arrives, and an answer
// that names no ErrorCode is not decoded at all.
type HTTPSender struct {
	endpoint string
	region   string
	creds    aws.CredentialsProvider
	client   aws.HTTPClient
	signer   *v4.Signer
}

var _ Sender = (*HTTPSender)(nil)

// NewSender returns a Sender to c's endpoint (its BaseEndpoint, else
// Kinesis's regional one), region, credentials and HTTP client.
func NewSender(c *kinesis.Client) *HTTPSender {
	o := c.Options()
	endpoint := aws.ToString(o.BaseEndpoint)
	if endpoint == "" {
		endpoint = "https://kinesis." + o.Region + ".amazonaws.com"
	}
	client := o.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	return &HTTPSender{endpoint: strings.TrimSuffix(endpoint, "/") + "/", region: o.Region, creds: o.Credentials,
		client: client, signer: v4.NewSigner()}
}

// maxAnswerBytes bounds the answer read: a PutRecords answer holds about
// 100 bytes a record, an error a message.
const maxAnswerBytes = 1 << 20

// PutRecords implements Sender.
func (s *HTTPSender) PutRecords(ctx context.Context, body []byte, n int) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header["Content-Type"] = []string{"application/x-amz-json-1.1"}
	req.Header["X-Amz-Target"] = []string{"Kinesis_20131202.PutRecords"}
	if s.creds == nil {
		return nil, errors.New("localkinesis: no credentials to sign PutRecords with")
	}
	creds, err := s.creds.Retrieve(ctx)
	if err != nil {
		return nil, fmt.Errorf("localkinesis: credentials: %w", err)
	}
	sum := sha256.Sum256(body)
	if err := s.signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), "kinesis", s.region, time.Now()); err != nil {
		return nil, err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	answer, err := readAtMost(resp.Body, resp.ContentLength, maxAnswerBytes)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, callError(resp.StatusCode, answer)
	}
	return recordResults(answer, n)
}

// readAtMost reads body, of length bytes (-1: unknown), up to limit
// bytes: in one allocation when its length is known (a PutRecords
// answer is about 40 KB for 500 records, its request about 165 KB).
func readAtMost(body io.Reader, length, limit int64) ([]byte, error) {
	if length > limit {
		return nil, fmt.Errorf("a body of %d bytes, over %d", length, limit)
	}
	if length < 0 {
		return io.ReadAll(io.LimitReader(body, limit))
	}
	b := make([]byte, length)
	_, err := io.ReadFull(body, b)
	return b, err
}

// callError is the error of a call Kinesis refused whole:
// {"__type": "...#ResourceNotFoundException", "message": "..."}.
func callError(status int, answer []byte) error {
	var e struct {
		Type    string `json:"__type"`
		Message string `json:"message"` // or "Message": encoding/json matches either
	}
	if json.Unmarshal(answer, &e) != nil || e.Type == "" {
		return fmt.Errorf("PutRecords: HTTP %d: %.200s", status, answer)
	}
	_, typ, _ := strings.Cut(e.Type, "#")
	if typ == "" {
		typ = e.Type
	}
	return fmt.Errorf("PutRecords: HTTP %d: %s: %s", status, typ, e.Message)
}

// recordResults reads a PutRecords answer of n records. Kinesis counts
// the records it refused in FailedRecordCount; an answer that says 0 is
// not read further. One that refused some, or that cannot be read so,
// is decoded whole.
func recordResults(answer []byte, n int) ([]string, error) {
	if failed, ok := failedRecordCount(answer); ok && failed == 0 {
		return make([]string, n), nil
	}
	var out struct {
		Records []struct{ ErrorCode string }
	}
	if err := json.Unmarshal(answer, &out); err != nil {
		return nil, fmt.Errorf("PutRecords: the answer: %w", err)
	}
	if len(out.Records) != n {
		return nil, fmt.Errorf("PutRecords: %d results for %d records", len(out.Records), n)
	}
	codes := make([]string, n)
	for i, r := range out.Records {
		codes[i] = r.ErrorCode
	}
	return codes, nil
}

// failedRecordCount reads the top-level FailedRecordCount of an answer
// that opens with it, as Kinesis's and kinesalite's do: {"FailedRecordCount":0,...
// Anything else reports false.
func failedRecordCount(answer []byte) (int, bool) {
	rest, ok := bytes.CutPrefix(bytes.TrimLeft(answer, " \t\r\n"), []byte("{"))
	if !ok {
		return 0, false
	}
	rest, ok = bytes.CutPrefix(bytes.TrimLeft(rest, " \t\r\n"), []byte(`"FailedRecordCount"`))
	if !ok {
		return 0, false
	}
	rest, ok = bytes.CutPrefix(bytes.TrimLeft(rest, " \t\r\n"), []byte(":"))
	if !ok {
		return 0, false
	}
	rest = bytes.TrimLeft(rest, " \t\r\n")
	digits := 0
	for digits < len(rest) && digits < 9 && rest[digits] >= '0' && rest[digits] <= '9' {
		digits++
	}
	if digits == 0 || digits < len(rest) && rest[digits] >= '0' && rest[digits] <= '9' {
		return 0, false
	}
	v, err := strconv.Atoi(string(rest[:digits]))
	return v, err == nil
}
