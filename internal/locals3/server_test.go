package locals3_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/locals3"
)

const (
	locked   = "archive"
	governed = "governed"
	plain    = "plain"
)

// clock is a settable now.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// start serves the stand-in with a COMPLIANCE bucket, a GOVERNANCE bucket
// (both one day's default retention) and a plain one, and returns the
// SDK's own client for it, as the function builds it (path-style, the
// SDK's default checksum behaviour unless opts change it).
func start(t *testing.T, opts ...func(*s3.Options)) (*s3.Client, *locals3.Server, *clock) {
	t.Helper()
	c := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	srv := locals3.New(locals3.Options{Now: c.now, Buckets: []locals3.Bucket{
		{Name: locked, ObjectLock: true, DefaultRetention: &locals3.Retention{Mode: locals3.Compliance, Days: 1}},
		{Name: governed, ObjectLock: true, DefaultRetention: &locals3.Retention{Mode: locals3.Governance, Days: 1}},
		{Name: plain},
	}})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	client := s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(hs.URL), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider("AKIDLOCAL", "local-secret", ""),
		Retryer:     aws.NopRetryer{},
	}, opts...)
	return client, srv, c
}

// code is the S3 error code of err ("" for none).
func code(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var api smithy.APIError
	require.True(t, errors.As(err, &api), "not an S3 error: %v", err)
	return api.ErrorCode()
}

func put(ctx context.Context, c *s3.Client, bucket, key, body string, edit func(*s3.PutObjectInput)) (*s3.PutObjectOutput, error) {
	// A checksum the SDK computes, as the function asks for one: see
	// TestRefusesAnUploadUnderObjectLockWithoutAChecksum for why.
	in := &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(body),
		ChecksumAlgorithm: types.ChecksumAlgorithmSha256}
	if edit != nil {
		edit(in)
	}
	return c.PutObject(ctx, in)
}

func TestRefusesAnUploadUnderObjectLockWithoutAChecksum(t *testing.T) {
	// The SDK sends no checksum for PutObject unless asked: with
	// RequestChecksumCalculation WhenRequired (PutObject's model requires
	// none), and with it unset, as in an aws.Config built by hand (the
	// functions' is, shared/fnclients: only LoadDefaultConfig defaults it
	// to WhenSupported). S3, and so the stand-in, refuse such an upload to
	// a bucket with a default retention.
	c, srv, _ := start(t, func(o *s3.Options) { o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired })
	unset, _, _ := start(t)
	ctx := context.Background()
	noChecksum := func(in *s3.PutObjectInput) { in.ChecksumAlgorithm = "" }
	_, err := put(ctx, unset, locked, "audit/a.jsonl", "{}\n", noChecksum)
	assert.Equal(t, "InvalidRequest", code(t, err), "unset")
	_, err = put(ctx, c, locked, "audit/a.jsonl", "{}\n", noChecksum)
	assert.Equal(t, "InvalidRequest", code(t, err))
	var api smithy.APIError
	require.ErrorAs(t, err, &api)
	assert.Equal(t, "Content-MD5 OR x-amz-checksum- HTTP header is required for Put Object requests with Object Lock parameters", api.ErrorMessage())
	var re interface{ HTTPStatusCode() int }
	require.ErrorAs(t, err, &re)
	assert.Equal(t, http.StatusBadRequest, re.HTTPStatusCode())
	vs, _ := srv.Versions(locked)
	assert.Empty(t, vs, "nothing stored")

	// Without Object Lock no checksum is needed.
	_, err = put(ctx, c, plain, "a", "{}\n", noChecksum)
	assert.NoError(t, err)
	// Explicit lock headers need one too.
	_, err = put(ctx, c, locked, "b", "{}\n", func(in *s3.PutObjectInput) {
		noChecksum(in)
		in.ObjectLockMode, in.ObjectLockRetainUntilDate = types.ObjectLockModeGovernance, aws.Time(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	})
	assert.Equal(t, "InvalidRequest", code(t, err))
	// Content-MD5 is enough.
	sum := md5.Sum([]byte("{}\n"))
	_, err = put(ctx, c, locked, "c", "{}\n", func(in *s3.PutObjectInput) {
		noChecksum(in)
		in.ContentMD5 = aws.String(base64.StdEncoding.EncodeToString(sum[:]))
	})
	assert.NoError(t, err)
}

func TestVerifiesEveryChecksumTheSDKSends(t *testing.T) {
	// The SDK computes each algorithm itself: the stand-in's digests
	// agree with its, or these uploads would fail BadDigest.
	c, srv, _ := start(t)
	ctx := context.Background()
	for _, alg := range []types.ChecksumAlgorithm{types.ChecksumAlgorithmCrc32, types.ChecksumAlgorithmCrc32c,
		types.ChecksumAlgorithmCrc64nvme, types.ChecksumAlgorithmSha1, types.ChecksumAlgorithmSha256} {
		t.Run(string(alg), func(t *testing.T) {
			out, err := put(ctx, c, locked, "k-"+string(alg), "line one\nline two\n", func(in *s3.PutObjectInput) { in.ChecksumAlgorithm = alg })
			require.NoError(t, err)
			assert.NotEmpty(t, aws.ToString(out.VersionId))
		})
	}
	vs, err := srv.Versions(locked)
	require.NoError(t, err)
	require.Len(t, vs, 5)
	for _, v := range vs {
		assert.Equal(t, strings.TrimPrefix(v.Key, "k-"), v.ChecksumAlgorithm)
		assert.Equal(t, locals3.Compliance, v.Mode)
	}
}

func TestRefusesAChecksumThatDoesNotMatch(t *testing.T) {
	c, srv, _ := start(t)
	ctx := context.Background()
	body := "entries\n"
	good := sha256.Sum256([]byte(body))
	other := sha256.Sum256([]byte("other"))
	b64 := base64.StdEncoding.EncodeToString
	tests := []struct {
		name string
		edit func(*s3.PutObjectInput)
		want string
	}{
		{"sha256 of other bytes", func(in *s3.PutObjectInput) { in.ChecksumSHA256 = aws.String(b64(other[:])) }, "BadDigest"},
		{"sha256 of the wrong length", func(in *s3.PutObjectInput) { in.ChecksumSHA256 = aws.String(b64(good[:8])) }, "InvalidRequest"},
		{"sha256 not base64", func(in *s3.PutObjectInput) { in.ChecksumSHA256 = aws.String("not base64!") }, "InvalidRequest"},
		{"md5 of other bytes", func(in *s3.PutObjectInput) {
			in.ChecksumAlgorithm = ""
			s := md5.Sum([]byte("other"))
			in.ContentMD5 = aws.String(b64(s[:]))
		}, "BadDigest"},
		{"md5 of the wrong length", func(in *s3.PutObjectInput) {
			in.ChecksumAlgorithm, in.ContentMD5 = "", aws.String(b64([]byte("short")))
		}, "InvalidDigest"},
		{"the right sha256", func(in *s3.PutObjectInput) { in.ChecksumSHA256 = aws.String(b64(good[:])) }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := put(ctx, c, locked, "k", body, tt.edit)
			assert.Equal(t, tt.want, code(t, err))
		})
	}
	vs, _ := srv.Versions(locked)
	require.Len(t, vs, 1, "only the upload with the right checksum is stored")
	assert.Equal(t, "SHA256", vs[0].ChecksumAlgorithm)
	assert.Equal(t, b64(good[:]), vs[0].Checksum)
}

func TestRefusesTwoChecksumsAndAMismatchedPayloadHash(t *testing.T) {
	c := locals3.New(locals3.Options{Buckets: []locals3.Bucket{{Name: plain}}})
	sign := func(r *http.Request) {
		r.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20260301/us-east-1/s3/aws4_request")
	}
	tests := []struct {
		name    string
		headers map[string]string
		status  int
		want    string
	}{
		{"unsigned", nil, http.StatusForbidden, "AccessDenied"},
		{"two checksums", map[string]string{"x-amz-checksum-crc32": "AAAAAA==", "x-amz-checksum-sha1": "2jmj7l5rSw0yVb/vlWAYkK/YBwk="}, http.StatusBadRequest, "InvalidRequest"},
		{"payload hash", map[string]string{"x-amz-content-sha256": strings.Repeat("0", 64)}, http.StatusBadRequest, "XAmzContentSHA256Mismatch"},
		{"algorithm named, no checksum", map[string]string{"x-amz-sdk-checksum-algorithm": "CRC32"}, http.StatusBadRequest, "InvalidRequest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPut, "/"+plain+"/k", bytes.NewReader(nil))
			if tt.headers != nil {
				sign(r)
			}
			for k, v := range tt.headers {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			c.ServeHTTP(w, r)
			assert.Equal(t, tt.status, w.Code)
			assert.Contains(t, w.Body.String(), "<Code>"+tt.want+"</Code>")
		})
	}
}

func TestKeepsVersionsAndRefusesToDeleteALockedOne(t *testing.T) {
	c, srv, clk := start(t)
	ctx := context.Background()
	first, err := put(ctx, c, locked, "audit/k.jsonl", "v1\n", nil)
	require.NoError(t, err)
	second, err := put(ctx, c, locked, "audit/k.jsonl", "v1\n", nil)
	require.NoError(t, err)
	assert.NotEqual(t, aws.ToString(first.VersionId), aws.ToString(second.VersionId), "a second upload of a key is a second version")

	// A locked version cannot be deleted, whoever asks, bypass or not.
	for _, bypass := range []*bool{nil, aws.Bool(true)} {
		_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(locked), Key: aws.String("audit/k.jsonl"),
			VersionId: first.VersionId, BypassGovernanceRetention: bypass})
		assert.Equal(t, "AccessDenied", code(t, err))
	}
	// A delete without a version ID only hides the versions behind a marker.
	del, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(locked), Key: aws.String("audit/k.jsonl")})
	require.NoError(t, err)
	assert.True(t, aws.ToBool(del.DeleteMarker))
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(locked), Key: aws.String("audit/k.jsonl")})
	assert.Equal(t, "NoSuchKey", code(t, err))
	got, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(locked), Key: aws.String("audit/k.jsonl"), VersionId: first.VersionId,
		ChecksumMode: types.ChecksumModeEnabled})
	require.NoError(t, err)
	b, _ := io.ReadAll(got.Body)
	assert.Equal(t, "v1\n", string(b))
	assert.Equal(t, types.ObjectLockModeCompliance, got.ObjectLockMode)
	assert.Equal(t, clk.t.Add(24*time.Hour), aws.ToTime(got.ObjectLockRetainUntilDate))
	assert.NotEmpty(t, aws.ToString(got.ChecksumSHA256), "the stored checksum, asked for")
	vs, _ := srv.Versions(locked)
	assert.Len(t, vs, 3, "two versions and the marker")

	// Once the retention has passed, the version can go.
	clk.t = clk.t.Add(24*time.Hour + time.Second)
	_, err = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(locked), Key: aws.String("audit/k.jsonl"), VersionId: first.VersionId})
	assert.NoError(t, err)
}

func TestRetentionCanOnlyGrowUnderCompliance(t *testing.T) {
	c, _, clk := start(t)
	ctx := context.Background()
	out, err := put(ctx, c, locked, "k", "x\n", nil)
	require.NoError(t, err)
	retain := func(mode types.ObjectLockRetentionMode, until time.Time, bypass bool) error {
		in := &s3.PutObjectRetentionInput{Bucket: aws.String(locked), Key: aws.String("k"), VersionId: out.VersionId,
			Retention: &types.ObjectLockRetention{Mode: mode, RetainUntilDate: aws.Time(until)}}
		if bypass {
			in.BypassGovernanceRetention = aws.Bool(true)
		}
		_, err := c.PutObjectRetention(ctx, in)
		return err
	}
	day := clk.t.Add(24 * time.Hour)
	assert.Equal(t, "AccessDenied", code(t, retain(types.ObjectLockRetentionModeCompliance, day.Add(-time.Hour), false)), "shorter")
	assert.Equal(t, "AccessDenied", code(t, retain(types.ObjectLockRetentionModeCompliance, day.Add(-time.Hour), true)), "shorter, bypassing")
	assert.Equal(t, "AccessDenied", code(t, retain(types.ObjectLockRetentionModeGovernance, day.Add(time.Hour), true)), "to GOVERNANCE")
	assert.NoError(t, retain(types.ObjectLockRetentionModeCompliance, day.Add(time.Hour), false), "longer")
	r, err := c.GetObjectRetention(ctx, &s3.GetObjectRetentionInput{Bucket: aws.String(locked), Key: aws.String("k"), VersionId: out.VersionId})
	require.NoError(t, err)
	assert.Equal(t, day.Add(time.Hour), aws.ToTime(r.Retention.RetainUntilDate))
}

func TestGovernanceGivesWayOnlyToABypass(t *testing.T) {
	c, _, clk := start(t)
	ctx := context.Background()
	out, err := put(ctx, c, governed, "k", "x\n", nil)
	require.NoError(t, err)
	shorten := func(bypass bool) error {
		in := &s3.PutObjectRetentionInput{Bucket: aws.String(governed), Key: aws.String("k"), VersionId: out.VersionId,
			Retention: &types.ObjectLockRetention{Mode: types.ObjectLockRetentionModeGovernance, RetainUntilDate: aws.Time(clk.t.Add(time.Hour))}}
		if bypass {
			in.BypassGovernanceRetention = aws.Bool(true)
		}
		_, err := c.PutObjectRetention(ctx, in)
		return err
	}
	assert.Equal(t, "AccessDenied", code(t, shorten(false)))
	assert.NoError(t, shorten(true))
	del := &s3.DeleteObjectInput{Bucket: aws.String(governed), Key: aws.String("k"), VersionId: out.VersionId}
	_, err = c.DeleteObject(ctx, del)
	assert.Equal(t, "AccessDenied", code(t, err))
	del.BypassGovernanceRetention = aws.Bool(true)
	_, err = c.DeleteObject(ctx, del)
	assert.NoError(t, err)
}
