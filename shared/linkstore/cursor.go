package linkstore

import (
	"encoding/base64"
	"encoding/json"
	"time"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Cursor is the position after the last link of a page: the newest-first
// order is (created_at, code) descending. It travels base64url-encoded and
// is opaque to clients; a store only trusts it after checking it.
type Cursor struct {
	CreatedAt int64  `json:"t"` // epoch milliseconds
	Code      string `json:"c"`
}

// EncodeCursor returns the opaque form of the position after l.
func EncodeCursor(l link.Link) string {
	b, _ := json.Marshal(Cursor{CreatedAt: l.CreatedAt.UnixMilli(), Code: l.Code}) // two plain fields always marshal
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeCursor reads a cursor from a client; "" is the first page.
func DecodeCursor(s string) (*Cursor, error) {
	if s == "" {
		return nil, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	var c Cursor
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || c.Code == "" || c.CreatedAt <= 0 {
		return nil, &link.FieldError{Field: "cursor", Reason: "is not a cursor this API returned"}
	}
	return &c, nil
}

// Before reports whether l comes after the cursor in newest-first order.
func (c *Cursor) Before(l link.Link) bool {
	if c == nil {
		return true
	}
	t := l.CreatedAt.UnixMilli()
	return t < c.CreatedAt || t == c.CreatedAt && l.Code < c.Code
}

// CreatedTime is the cursor's creation time.
func (c *Cursor) CreatedTime() time.Time { return time.UnixMilli(c.CreatedAt).UTC() }
