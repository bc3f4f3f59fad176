package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/auditarchive/auditarchivefn"
)

type archiveListing struct {
	Bucket   string           `json:"bucket"`
	Endpoint string           `json:"endpoint"`
	Objects  []archivedObject `json:"objects"`
}

// TestAuditArchiveEndToEnd: with SHORTENER_AUDIT_ARCHIVE=true a change
// made through the API is in an object of the local S3 stand-in within
// seconds, as its audit entry (its password redacted), with the SHA-256 S3
// verified and a COMPLIANCE lock; /_local/audit-archive shows it
// read-only, and the stand-in refuses to delete it.
func TestAuditArchiveEndToEnd(t *testing.T) {
	r := startLocal(t, map[string]string{"SHORTENER_AUDIT_ARCHIVE": "true"})
	status, _, body := r.do(t, http.MethodPost, "/v1/links", r.key,
		`{"url":"https://example.com/archived","alias":"archived-e2e","password":"correct-horse-battery"}`)
	require.Equal(t, http.StatusCreated, status, "%s", body)

	var obj archivedObject
	var list archiveListing
	require.Eventually(t, func() bool {
		status, _, b := r.do(t, http.MethodGet, auditArchivePath, "", "")
		require.Equal(t, http.StatusOK, status, "%s", b)
		list = archiveListing{}
		require.NoError(t, json.Unmarshal(b, &list))
		for _, o := range list.Objects {
			if o.IsLatest && !o.DeleteMarker {
				obj = o
				return true
			}
		}
		return false
	}, 30*time.Second, 200*time.Millisecond, "the entry reaches the archive")
	assert.Regexp(t, `^audit/\d{4}/\d{2}/\d{2}/\d{1,40}-\d{1,40}\.jsonl$`, obj.Key)
	assert.Equal(t, "COMPLIANCE", obj.LockMode)
	assert.Equal(t, "1", obj.Metadata["entries"])

	status, hdr, content := r.do(t, http.MethodGet, auditArchivePath+"?key="+url.QueryEscape(obj.Key), "", "")
	require.Equal(t, http.StatusOK, status, "%s", content)
	assert.Equal(t, auditarchivefn.ContentType, hdr.Get("Content-Type"))
	sum := sha256.Sum256(content)
	assert.Equal(t, base64.StdEncoding.EncodeToString(sum[:]), obj.ChecksumSHA256, "the checksum S3 verified is the object's")
	var line auditarchivefn.Line
	require.NoError(t, json.Unmarshal(content, &line))
	assert.Equal(t, "e2e-owner", line.Workspace)
	assert.Equal(t, "create", line.Action)
	assert.Equal(t, "archived-e2e", line.Target.ID)
	assert.Contains(t, string(line.After), `"password":"[redacted]"`)
	assert.NotContains(t, string(content), "correct-horse-battery")

	// Read-only here; and in S3 the locked version cannot be deleted.
	status, _, _ = r.do(t, http.MethodDelete, auditArchivePath+"?key="+url.QueryEscape(obj.Key), "", "")
	assert.Equal(t, http.StatusMethodNotAllowed, status)
	c := s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(list.Endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider("AKIDLOCAL", "local-secret", ""), Retryer: aws.NopRetryer{}})
	_, err := c.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: aws.String(list.Bucket), Key: aws.String(obj.Key),
		VersionId: aws.String(obj.VersionID)})
	var api smithy.APIError
	require.ErrorAs(t, err, &api)
	assert.Equal(t, "AccessDenied", api.ErrorCode())
}

// TestAuditArchiveIsOffByDefault: make dev's default has no archive.
func TestAuditArchiveIsOffByDefault(t *testing.T) {
	r := startLocal(t, nil)
	status, _, body := r.do(t, http.MethodGet, auditArchivePath, "", "")
	assert.Equal(t, http.StatusNotFound, status)
	assert.Contains(t, string(body), "SHORTENER_AUDIT_ARCHIVE=true")
}
