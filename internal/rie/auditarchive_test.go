package rie_test

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/locals3"
)

// testAuditArchive runs the audit archive's bootstrap as Lambda would, its
// S3 calls sent to the S3 stand-in through AWS_ENDPOINT_URL_S3, the
// endpoint variable the SDK honours, onto a bucket with Object Lock and a
// default retention: the upload lands only if the bootstrap sends its
// checksum, and at an IP endpoint the SDK addresses the bucket path-style.
func testAuditArchive(t *testing.T, _ tables, _ *shared) {
	const bucket = "shortener-audit-archive"
	srv := locals3.New(locals3.Options{Buckets: []locals3.Bucket{
		{Name: bucket, ObjectLock: true, DefaultRetention: &locals3.Retention{Mode: locals3.Compliance, Days: 1}}}})
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	f := start(t, "auditarchive", env(t, "auditarchive", map[string]string{
		"AUDIT_ARCHIVE_BUCKET": bucket, "AWS_ENDPOINT_URL_S3": hs.URL}))

	res := invoke(t, f, fixture(t, "auditarchive", "batch.json", nil))
	var resp events.DynamoDBEventResponse
	require.NoError(t, json.Unmarshal(res.Body, &resp), "%s", res.Body)
	assert.Empty(t, resp.BatchItemFailures, "%s", f.Output())
	vs, err := srv.Versions(bucket)
	require.NoError(t, err)
	require.Len(t, vs, 1)
	assert.True(t, strings.HasPrefix(vs[0].Key, "audit/"))
	assert.Equal(t, "SHA256", vs[0].ChecksumAlgorithm)
	assert.Equal(t, 3, strings.Count(string(vs[0].Body), "\n"))
}
