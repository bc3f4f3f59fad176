package audit

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Redacted stands in an entry for the value of a secret: a link's
// password or its hash, a webhook's signing secret, a key or its hash.
const Redacted = "[redacted]"

// secretNames are the JSON keys whose values never reach the log, compared
// lower-cased without '_' and '-': whatever a snapshot is built from, a
// field named like a secret is redacted.
var secretNames = map[string]bool{
	"password": true, "passwordhash": true, "secret": true, "signingsecret": true,
	"hash": true, "keyhash": true, "apikey": true, "key": true, "token": true,
}

func isSecret(name string) bool {
	n := strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(name))
	return secretNames[n]
}

// Redact is doc with the value of every object member named like a
// secret, at any depth, replaced by Redacted; a null, false or empty
// value stays as it is, so "no password" still shows. nil stays nil. A
// doc that is not JSON becomes the JSON string Redacted: nothing a
// snapshot failed to encode reaches the log.
func Redact(doc json.RawMessage) json.RawMessage {
	if doc == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		b, _ := json.Marshal(Redacted)
		return b
	}
	b, err := json.Marshal(redactValue(v))
	if err != nil {
		b, _ = json.Marshal(Redacted)
	}
	return b
}

func redactValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, val := range t {
			if isSecret(k) && !empty(val) {
				t[k] = Redacted
				continue
			}
			t[k] = redactValue(val)
		}
	case []any:
		for i := range t {
			t[i] = redactValue(t[i])
		}
	}
	return v
}

func empty(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case bool:
		return !t
	case string:
		return t == ""
	}
	return false
}

// Snapshot is v as JSON, redacted: the Before or After of an entry. A
// value that does not encode is the JSON string Redacted.
func Snapshot(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(Redacted)
		return b
	}
	return Redact(b)
}
