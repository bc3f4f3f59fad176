package sqssend

import (
	"net/http"
	"strings"
	"testing"

	"github.com/shortlink-dev/shortener/shared/awscall"
)

// FuzzAnswerError: any error answer, headers and body alike, reads as an
// *Error with the status it came with and a code without the JSON type's
// namespace or suffix, never a panic.
func FuzzAnswerError(f *testing.F) {
	f.Add(400, `{"__type":"com.amazonaws.sqs#QueueDoesNotExist","message":"gone"}`, "AWS.SimpleQueueService.NonExistentQueue;Sender", "")
	f.Add(403, `{"message":"no"}`, "", "AccessDeniedException:http://internal.amazon.com/")
	f.Add(500, `not json`, "", "")
	f.Add(400, `{"code":"a#b:c","Message":"x"}`, ";", "#:")
	f.Fuzz(func(t *testing.T, status int, body, queryError, errorType string) {
		h := http.Header{}
		h.Set("X-Amzn-Query-Error", queryError)
		h.Set("X-Amzn-ErrorType", errorType)
		e := awscall.JSONError(status, h, []byte(body))
		if e.Status != status {
			t.Fatalf("status %d, want %d", e.Status, status)
		}
		if q, _, _ := strings.Cut(h.Get("X-Amzn-Query-Error"), ";"); q != "" {
			if e.Code != q {
				t.Fatalf("code %q, want the query-compatible %q", e.Code, q)
			}
			return
		}
		if strings.ContainsAny(e.Code, "#:") {
			t.Fatalf("code %q keeps a namespace or suffix", e.Code)
		}
	})
}
