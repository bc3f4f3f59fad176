package localsqs_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/shortlink-dev/shortener/internal/localsqs"
)

// FuzzQueuesServeHTTP: any SendMessage body either queues exactly one
// message and answers 200 with its ID, or answers 4xx with SQS's error
// headers and queues nothing; never a panic.
func FuzzQueuesServeHTTP(f *testing.F) {
	f.Add(`{"QueueUrl":"` + deliveries + `","MessageBody":"x","DelaySeconds":3}`)
	f.Add(`{"QueueUrl":"` + deliveries + `","MessageBody":"","DelaySeconds":901}`)
	f.Add(`{"QueueUrl":"elsewhere","MessageBody":"x"}`)
	f.Add(`{"QueueUrl":"` + deliveries + `"}`)
	f.Add(`{"DelaySeconds":"x"}`)
	f.Add(`[`)
	f.Fuzz(func(t *testing.T, body string) {
		qs := localsqs.Queues{deliveries: localsqs.New(localsqs.Options{Name: "deliveries"})}
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-amz-json-1.0")
		req.Header.Set("X-Amz-Target", "AmazonSQS.SendMessage")
		req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20261201/us-east-1/sqs/aws4_request, SignedHeaders=host, Signature=00")
		w := httptest.NewRecorder()
		qs.ServeHTTP(w, req)
		switch {
		case w.Code == http.StatusOK:
			var out struct{ MessageId, MD5OfMessageBody string }
			if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil || out.MessageId == "" || len(out.MD5OfMessageBody) != 32 {
				t.Fatalf("200 without an ID and MD5: %s", w.Body)
			}
			if qs[deliveries].Len() != 1 {
				t.Fatalf("200 with %d messages queued", qs[deliveries].Len())
			}
		case w.Code >= 400 && w.Code < 500:
			if w.Header().Get("X-Amzn-Query-Error") == "" || qs[deliveries].Len() != 0 {
				t.Fatalf("%d without SQS's error header, or with a message queued", w.Code)
			}
		default:
			t.Fatalf("status %d", w.Code)
		}
	})
}
