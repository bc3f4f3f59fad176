package apigw_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkapi"
)

// FuzzDecodeCreateRequest drives the create-request decoder: any body
// either decodes (and converts to the domain, or fails on expires_at), or
// fails with a *link.FieldError naming a field, which maps to a 400.
func FuzzDecodeCreateRequest(f *testing.F) {
	for _, s := range []string{
		`{"url":"https://example.com/"}`,
		`{"url":"https://example.com/","alias":"Sale","expires_at":"2030-01-02T15:04:05Z","ttl_seconds":60,"redirect_status":301}`,
		`{"url":5}`,
		`{"ttl_seconds":"x"}`,
		`{"bogus":1}`,
		`{"":1}`,
		`{"a\"b":1}`,
		`{"expires_at":"tomorrow"}`,
		`[]`,
		`null`,
		`{} {}`,
		`{"url":`,
		``,
		"\xef\xbb\xbf{}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var req linkapi.CreateRequest
		err := apigw.DecodeStrict(body, &req)
		if err != nil {
			checkFieldError(t, body, err, "")
			return
		}
		dom, err := req.Domain()
		if err != nil {
			checkFieldError(t, body, err, "expires_at")
			return
		}
		if dom.URL != req.URL || dom.Alias != req.Alias || (req.ExpiresAt == nil) != (dom.ExpiresAt == nil) {
			t.Fatalf("Domain() of %+v = %+v", req, dom)
		}
		// What decoded re-encodes to a body that decodes the same.
		again, err := json.Marshal(req)
		if err != nil {
			t.Fatalf("marshal %+v: %v", req, err)
		}
		var req2 linkapi.CreateRequest
		if err := apigw.DecodeStrict(again, &req2); err != nil {
			t.Fatalf("re-decoding %s: %v", again, err)
		}
		if !reflect.DeepEqual(req, req2) {
			t.Fatalf("round trip of %q: %+v != %+v", body, req, req2)
		}
	})
}

func checkFieldError(t *testing.T, body []byte, err error, wantField string) {
	t.Helper()
	var fe *link.FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("body %q: error %T %v is not a *link.FieldError", body, err, err)
	}
	if fe.Field == "" {
		t.Fatalf("body %q: FieldError with no field: %v", body, err)
	}
	if wantField != "" && fe.Field != wantField {
		t.Fatalf("body %q: field %q, want %q", body, fe.Field, wantField)
	}
	if p := apigw.ProblemFor(err); p.Status != 400 || p.Field != fe.Field {
		t.Fatalf("body %q: problem %+v, want 400 on %q", body, p, fe.Field)
	}
}
