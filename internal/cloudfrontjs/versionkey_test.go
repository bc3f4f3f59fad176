package cloudfrontjs

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/edgespec"
)

// mapStore is a key value store of fixed values; the key "!fail" fails.
type mapStore map[string]string

func (m mapStore) Get(key string) (string, bool, error) {
	if key == "!fail" {
		return "", false, errors.New("store unreachable")
	}
	v, ok := m[key]
	return v, ok, nil
}

// TestVersionKeyFunction runs the deployed version-key function: a path
// the store holds gets its version in the header, any other "0" (get
// rejects for a missing key), a viewer's own header is overwritten, and a
// percent-encoded path is refused as canonical-path refuses it.
func TestVersionKeyFunction(t *testing.T) {
	store := mapStore{"/abc1234": "1764757200123"}
	f, err := Compile(edgespec.VersionKeyFunction, edgespec.MustFunctionSource(edgespec.VersionKeyFunction), WithKeyValueStore(store))
	require.NoError(t, err)
	tests := []struct {
		name, uri, viewer string
		want              string
		refused           bool
	}{
		{"changed code", "/abc1234", "", "1764757200123", false},
		{"never changed", "/xyz9876", "", edgespec.NoVersion, false},
		{"viewer's header overwritten", "/xyz9876", "999", edgespec.NoVersion, false},
		{"viewer's header overwritten by the store's", "/abc1234", "0", "1764757200123", false},
		{"percent-encoded", "/%61bc1234", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := testEvent()
			ev.Request.URI = tt.uri
			if tt.viewer != "" {
				ev.Request.Headers[edgespec.VersionHeader] = Value{Value: tt.viewer}
			}
			res, err := f.ViewerRequest(context.Background(), ev)
			require.NoError(t, err)
			if tt.refused {
				require.NotNil(t, res.Response)
				assert.Equal(t, 400, res.Response.StatusCode)
				assert.Equal(t, edgespec.NonCanonicalPathBody, string(res.Response.Body.Bytes()))
				return
			}
			require.NotNil(t, res.Request)
			assert.Equal(t, tt.uri, res.Request.URI, "the origin sees the path as sent")
			assert.Equal(t, tt.want, res.Request.Headers[edgespec.VersionHeader].Value)
		})
	}
}

// TestCloudFrontModule: the kvs() handle's get and exists, their formats
// and failures, and the module refused without a store.
func TestCloudFrontModule(t *testing.T) {
	store := mapStore{"k": "v", "j": `{"n": 3}`}
	tests := []struct {
		name    string
		body    string
		want    string
		wantErr error
	}{
		{"get", "var v = await h.get('k');", "v", nil},
		{"get json", "var v = String((await h.get('j', { format: 'json' })).n);", "3", nil},
		{"get missing rejects", "var v; try { v = await h.get('none'); } catch (e) { v = 'missing'; }", "missing", nil},
		{"exists", "var v = String(await h.exists('k')) + String(await h.exists('none'));", "truefalse", nil},
		{"store failure rejects", "var v = await h.get('!fail');", "", ErrExecution},
		{"bytes refused", "var v = await h.get('k', { format: 'bytes' });", "", ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := "import cf from 'cloudfront';\nvar h = cf.kvs();\nasync function handler(event) {\n" + tt.body +
				"\nevent.request.headers['x-v'] = { value: v };\nreturn event.request;\n}"
			f, err := Compile("kvs", src, WithKeyValueStore(store))
			require.NoError(t, err)
			res, err := f.ViewerRequest(context.Background(), testEvent())
			if tt.wantErr != nil {
				assert.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.Request.Headers["x-v"].Value)
		})
	}
	_, err := Compile("kvs", "import cf from 'cloudfront';\nvar h = cf.kvs();\nfunction handler(event) { return event.request; }")
	assert.ErrorIs(t, err, ErrUnsupported, "no store associated")
}
