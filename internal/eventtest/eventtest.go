package eventtest

import (
	"encoding/json"
	"os"
	"testing"
)

// Load decodes the JSON file at path into a T; a file that is missing or
// does not decode fails t.
func Load[T any](t testing.TB, path string) T {
	t.Helper()
	var v T
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("eventtest: %v", err)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("eventtest: %s: %v", path, err)
	}
	return v
}
