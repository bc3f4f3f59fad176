package cfkvs

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/awscall/awscalltest"
	"github.com/shortlink-dev/shortener/shared/edgeversion"
)

const storeARN = "arn:aws:cloudfront::123456789012:key-value-store/a1b2c3d4-5678-90ab-cdef-EXAMPLE11111"

// escapedARN is the ARN as a path label: ":" and "/" escaped.
const escapedARN = "arn%3Aaws%3Acloudfront%3A%3A123456789012%3Akey-value-store%2Fa1b2c3d4-5678-90ab-cdef-EXAMPLE11111"

func client(t *testing.T, answers ...func(http.ResponseWriter, []byte)) (*Client, *awscalltest.Service) {
	svc, srv := awscalltest.Serve(t, answers...)
	c := New(awscalltest.Config(srv.URL))
	c.Now = func() time.Time { return time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC) }
	return c, svc
}

func TestPutKey(t *testing.T) {
	c, svc := client(t, awscalltest.Reply("application/json", 200, `{"ItemCount":1,"TotalSizeInBytes":21}`, "ETag", "ETAG2"))
	etag, err := c.PutKey(context.Background(), storeARN, "/abc1234", "1764757200000", "ETAG1")
	require.NoError(t, err)
	assert.Equal(t, "ETAG2", etag)
	got := svc.Requests()
	require.Len(t, got, 1)
	r := got[0]
	assert.Equal(t, http.MethodPut, r.Method)
	assert.Equal(t, "/key-value-stores/"+escapedARN+"/keys/%2Fabc1234", r.Path)
	assert.Equal(t, "ETAG1", r.Header.Get("If-Match"))
	assert.JSONEq(t, `{"Value":"1764757200000"}`, string(r.Body))
	assert.Equal(t, "*", r.Header.Get("X-Amz-Region-Set"))
	auth := r.Header.Get("Authorization")
	assert.True(t, strings.HasPrefix(auth, "AWS4-ECDSA-P256-SHA256 Credential="+awscalltest.AccessKeyID+"/20261203/cloudfront-keyvaluestore/aws4_request, "), auth)
	assert.Contains(t, auth, "if-match;")
	assert.NotEmpty(t, r.Header.Get("X-Amz-Security-Token"))
}

func TestPutKeyConflict(t *testing.T) {
	c, svc := client(t, awscalltest.Reply("application/json", 409, `{"Message":"Pre-condition failed"}`, "X-Amzn-ErrorType", "ConflictException"))
	_, err := c.PutKey(context.Background(), storeARN, "/abc1234", "1", "OLD")
	assert.ErrorIs(t, err, edgeversion.ErrConflict)
	assert.Len(t, svc.Requests(), 1, "a conflict is not retried here: the writer asks for the ETag first")
}

func TestGetKeyAndDescribe(t *testing.T) {
	tests := []struct {
		name      string
		answer    func(http.ResponseWriter, []byte)
		wantValue string
		wantFound bool
		wantErr   bool
		wantTries int
	}{
		{"found", awscalltest.Reply("application/json", 200, `{"Key":"/abc1234","Value":"7","ItemCount":1,"TotalSizeInBytes":9}`), "7", true, false, 1},
		{"missing", awscalltest.Reply("application/json", 404, `{"Message":"not found"}`, "X-Amzn-ErrorType", "ResourceNotFoundException"), "", false, false, 1},
		{"denied", awscalltest.Reply("application/json", 403, `{"Message":"no"}`, "X-Amzn-ErrorType", "AccessDeniedException"), "", false, true, 1},
		{"throttled, retried", awscalltest.Reply("application/json", 429, `{}`, "X-Amzn-ErrorType", "ThrottlingException"), "", false, true, DefaultAttempts},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, svc := client(t, tt.answer)
			v, found, err := c.GetKey(context.Background(), storeARN, "/abc1234")
			if tt.wantErr {
				assert.Error(t, err)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.wantValue, v)
			assert.Equal(t, tt.wantFound, found)
			assert.Len(t, svc.Requests(), tt.wantTries)
		})
	}
	c, svc := client(t, awscalltest.Reply("application/json", 200, `{"KvsARN":"x"}`, "ETag", "ETAG9"))
	etag, err := c.DescribeKeyValueStore(context.Background(), storeARN)
	require.NoError(t, err)
	assert.Equal(t, "ETAG9", etag)
	assert.Equal(t, "/key-value-stores/"+escapedARN, svc.Requests()[0].Path)
}

func TestAccountEndpoint(t *testing.T) {
	ep, err := AccountEndpoint(storeARN)
	require.NoError(t, err)
	assert.Equal(t, "https://123456789012.cloudfront-kvs.global.api.aws", ep)
	for _, bad := range []string{"", "arn:aws:s3:::bucket", "arn:aws:cloudfront::12345:key-value-store/x", "arn:aws:cloudfront::123456789012:distribution/E1"} {
		_, err := AccountEndpoint(bad)
		assert.Error(t, err, bad)
	}
}

// TestListKeys: a page is a signed GET of the store's keys with MaxResults
// and, after the first, the NextToken the page before answered, sent
// URI-encoded as it is signed; the last page answers no token.
func TestListKeys(t *testing.T) {
	c, svc := client(t,
		awscalltest.Reply("application/json", 200, `{"Items":[{"Key":"/abc1234","Value":"1764757200000"},{"Key":"/My-Alias","Value":"7"}],"NextToken":"tok+/=="}`),
		awscalltest.Reply("application/json", 200, `{"Items":[{"Key":"/zz","Value":"9"}]}`))
	items, next, err := c.ListKeys(context.Background(), storeARN, 2, "")
	require.NoError(t, err)
	assert.Equal(t, []edgeversion.Item{{Key: "/abc1234", Value: "1764757200000"}, {Key: "/My-Alias", Value: "7"}}, items)
	assert.Equal(t, "tok+/==", next)
	items, next, err = c.ListKeys(context.Background(), storeARN, 2, next)
	require.NoError(t, err)
	assert.Equal(t, []edgeversion.Item{{Key: "/zz", Value: "9"}}, items)
	assert.Empty(t, next)

	got := svc.Requests()
	require.Len(t, got, 2)
	for _, r := range got {
		assert.Equal(t, http.MethodGet, r.Method)
		assert.Equal(t, "/key-value-stores/"+escapedARN+"/keys", r.Path)
		assert.Empty(t, r.Body)
		assert.Empty(t, r.Header.Get("If-Match"))
		assert.True(t, strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-ECDSA-P256-SHA256 Credential="+awscalltest.AccessKeyID+"/20261203/cloudfront-keyvaluestore/aws4_request, "))
	}
	assert.Equal(t, "MaxResults=2", got[0].Query)
	assert.Equal(t, "MaxResults=2&NextToken=tok%2B%2F%3D%3D", got[1].Query)

	for _, bad := range []int{0, -1, edgeversion.MaxListResults + 1} {
		_, _, err := c.ListKeys(context.Background(), storeARN, bad, "")
		assert.Error(t, err, bad)
	}
	assert.Len(t, svc.Requests(), 2, "a page size out of bounds is never asked for")
}

// TestUpdateKeys: the sweep's deletes are one signed POST of the store's
// keys with the ETag in If-Match and the Deletes list as JSON; the answer's
// ETag is the store's new one.
func TestUpdateKeys(t *testing.T) {
	c, svc := client(t, awscalltest.Reply("application/json", 200, `{"ItemCount":1,"TotalSizeInBytes":21}`, "ETag", "ETAG3"))
	etag, err := c.UpdateKeys(context.Background(), storeARN, nil, []string{"/abc1234", "/My-Alias"}, "ETAG2")
	require.NoError(t, err)
	assert.Equal(t, "ETAG3", etag)
	got := svc.Requests()
	require.Len(t, got, 1)
	r := got[0]
	assert.Equal(t, http.MethodPost, r.Method)
	assert.Equal(t, "/key-value-stores/"+escapedARN+"/keys", r.Path)
	assert.Empty(t, r.Query)
	assert.Equal(t, "ETAG2", r.Header.Get("If-Match"))
	assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
	assert.JSONEq(t, `{"Deletes":[{"Key":"/abc1234"},{"Key":"/My-Alias"}]}`, string(r.Body))
	auth := r.Header.Get("Authorization")
	assert.Contains(t, auth, "if-match;")
	assert.Contains(t, auth, "content-type;")
}

// TestUpdateKeysRefusals: a changed ETag is edgeversion.ErrConflict, not
// retried here (the sweep reads the store again first); a call beyond
// UpdateKeys' bounds (50 keys) is never sent.
func TestUpdateKeysRefusals(t *testing.T) {
	c, svc := client(t, awscalltest.Reply("application/json", 409, `{"Message":"Pre-condition failed"}`, "X-Amzn-ErrorType", "ConflictException"))
	_, err := c.UpdateKeys(context.Background(), storeARN, nil, []string{"/abc1234"}, "OLD")
	assert.ErrorIs(t, err, edgeversion.ErrConflict)
	assert.Len(t, svc.Requests(), 1)

	keys := make([]string, edgeversion.MaxUpdateKeys+1)
	for i := range keys {
		keys[i] = "/k" + strconv.Itoa(i)
	}
	_, err = c.UpdateKeys(context.Background(), storeARN, nil, keys, "E")
	assert.ErrorContains(t, err, "51 keys")
	_, err = c.UpdateKeys(context.Background(), storeARN, nil, nil, "E")
	assert.Error(t, err)
	assert.Len(t, svc.Requests(), 1, "nothing sent beyond the bounds")

	c, svc = client(t, awscalltest.Reply("application/json", 402, `{"Message":"Limit exceeded"}`, "X-Amzn-ErrorType", "ServiceQuotaExceededException"))
	_, err = c.UpdateKeys(context.Background(), storeARN, nil, []string{"/abc1234"}, "E")
	assert.Error(t, err)
	assert.NotErrorIs(t, err, edgeversion.ErrConflict)
	assert.Len(t, svc.Requests(), 1)
}
