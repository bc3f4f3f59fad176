package eventtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadDecodesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "get.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"httpMethod":"GET","path":"/Ab3dE5g","requestContext":{"identity":{"apiKey":"k"}}}`), 0o600))
	ev := Load[events.APIGatewayProxyRequest](t, path)
	assert.Equal(t, "GET", ev.HTTPMethod)
	assert.Equal(t, "/Ab3dE5g", ev.Path)
	assert.Equal(t, "k", ev.RequestContext.Identity.APIKey)
}

// TestLoadFailsOnWhatIsNotThere: a missing file or one that is not JSON is
// the test's failure, never an empty event.
func TestLoadFailsOnWhatIsNotThere(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"Records":`), 0o600))
	for _, path := range []string{filepath.Join(t.TempDir(), "absent.json"), bad} {
		ft := &fatalT{TB: t}
		func() {
			defer func() { _ = recover() }()
			Load[events.KinesisEvent](ft, path)
		}()
		assert.True(t, ft.failed, path)
	}
}

// fatalT records a Fatalf and stops the call, as testing.T does.
type fatalT struct {
	testing.TB
	failed bool
}

func (f *fatalT) Fatalf(string, ...any) { f.failed = true; panic("fatal") }
