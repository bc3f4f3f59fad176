package cfkvs

import (
	"context"
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/smithy-go/logging"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The SDK's own Signature Version 4A test vectors (its internal/v4a
// package's tests): an access key pair, the public key derived from it,
// and a request's string to sign, by its hash.
const (
	vectorAccessKey = "AKISORANDOMAASORANDOM"
	vectorSecretKey = "q+jcrXGc+0zWN6uzclKVhvMmUsIfRPa4rlRandom"
)

func TestDeriveKey(t *testing.T) {
	key, err := deriveKey(vectorAccessKey, vectorSecretKey)
	require.NoError(t, err)
	pub, err := key.PublicKey.Bytes() // 0x04 || X || Y
	require.NoError(t, err)
	x, _ := new(big.Int).SetString("15D242CEEBF8D8169FD6A8B5A746C41140414C3B07579038DA06AF89190FFFCB", 16)
	y, _ := new(big.Int).SetString("515242CEDD82E94799482E4C0514B505AFCCF2C0C98D6A553BF539F424C5EC0", 16)
	assert.Equal(t, x.FillBytes(make([]byte, 32)), pub[1:33])
	assert.Equal(t, y.FillBytes(make([]byte, 32)), pub[33:])
}

// vectorRequest is the SDK vector's request.
func vectorRequest() *http.Request {
	req, _ := http.NewRequest("POST", "https://dynamodb.us-east-1.amazonaws.com", nil)
	req.URL.Opaque = "//example.org/bucket/key-._~,!@%23$%25^&*()"
	req.Header.Set("X-Amz-Target", "prefix.Operation")
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("Content-Length", "1024")
	req.Header.Set("X-Amz-Meta-Other-Header", "some-value=!@#$%^&* (+)")
	req.Header.Add("X-Amz-Meta-Other-Header_With_Underscore", "some-value=!@#$%^&* (+)")
	req.Header.Add("X-amz-Meta-Other-Header_With_Underscore", "some-value=!@#$%^&* (+)")
	return req
}

const emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

func TestStringToSignMatchesTheSDK(t *testing.T) {
	tests := []struct {
		name       string
		token      string
		wantSigned string
		wantHash   string
	}{
		{"no session token", "", "content-length;content-type;host;x-amz-date;x-amz-meta-other-header;x-amz-meta-other-header_with_underscore;x-amz-region-set;x-amz-target",
			"1aeefb422ae6aa0de7aec829da813e55cff35553cac212dffd5f9474c71e47ee"},
		{"session token", "TOKEN", "content-length;content-type;host;x-amz-date;x-amz-meta-other-header;x-amz-meta-other-header_with_underscore;x-amz-region-set;x-amz-security-token;x-amz-target",
			"4ba7d0482cf4d5450cefdc067a00de1a4a715e444856fa3e1d85c35fb34d9730"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			creds := aws.Credentials{AccessKeyID: vectorAccessKey, SecretAccessKey: vectorSecretKey, SessionToken: tt.token}
			signed, sts := stringToSign(vectorRequest(), emptySHA256, "dynamodb", "us-east-1", creds, time.Unix(0, 0))
			assert.Equal(t, tt.wantSigned, signed)
			sum := sha256.Sum256([]byte(sts))
			assert.Equal(t, tt.wantHash, hex.EncodeToString(sum[:]))
		})
	}
}

// TestSignVerifies: the Authorization header's signature verifies with
// the derived public key over the string to sign.
func TestSignVerifies(t *testing.T) {
	creds := aws.Credentials{AccessKeyID: vectorAccessKey, SecretAccessKey: vectorSecretKey}
	req := vectorRequest()
	require.NoError(t, sign(req, emptySHA256, "dynamodb", "us-east-1", creds, time.Unix(0, 0)))
	auth := req.Header.Get("Authorization")
	require.True(t, strings.HasPrefix(auth, algorithm+" Credential="+vectorAccessKey+"/19700101/dynamodb/aws4_request, SignedHeaders="), auth)
	sig, err := hex.DecodeString(auth[strings.LastIndex(auth, "Signature=")+len("Signature="):])
	require.NoError(t, err)
	_, sts := stringToSign(vectorRequest(), emptySHA256, "dynamodb", "us-east-1", creds, time.Unix(0, 0))
	digest := sha256.Sum256([]byte(sts))
	key, err := deriveKey(vectorAccessKey, vectorSecretKey)
	require.NoError(t, err)
	assert.True(t, ecdsa.VerifyASN1(&key.PublicKey, digest[:], sig))
}

// TestCanonicalQueryMatchesTheSDK: a ListKeys request's canonical request
// (method, path and query lines; Signature Version 4A shares them with 4)
// is the one the SDK's Signature Version 4 signer builds for it: the
// names sorted, then the values, each URI-encoded, a space as %20.
func TestCanonicalQueryMatchesTheSDK(t *testing.T) {
	const escapedARN = "arn%3Aaws%3Acloudfront%3A%3A123456789012%3Akey-value-store%2Fa1b2c3d4"
	for _, q := range []url.Values{
		{"MaxResults": {"50"}},
		{"MaxResults": {"50"}, "NextToken": {"tok+/== ~x"}},
		{"b": {"2", "1"}, "a1": {"x"}, "a": {"y"}},
	} {
		u := "https://123456789012.cloudfront-kvs.global.api.aws/key-value-stores/" + escapedARN + "/keys?" + canonicalQuery(q)
		ours, err := http.NewRequest(http.MethodGet, u, nil)
		require.NoError(t, err)
		_, creq := canonicalRequest(ours, emptySHA256)

		sdk, err := http.NewRequest(http.MethodGet, u, nil)
		require.NoError(t, err)
		var logged string
		signer := v4.NewSigner(func(o *v4.SignerOptions) {
			o.LogSigning = true
			o.Logger = logging.LoggerFunc(func(_ logging.Classification, format string, v ...any) { logged = fmt.Sprintf(format, v...) })
		})
		require.NoError(t, signer.SignHTTP(context.Background(), aws.Credentials{AccessKeyID: "AK", SecretAccessKey: "SK"}, sdk, emptySHA256,
			"cloudfront-keyvaluestore", "us-east-1", time.Unix(0, 0)))
		_, canon, ok := strings.Cut(logged, "---[ CANONICAL STRING  ]-----------------------------\n")
		require.True(t, ok, logged)
		assert.Equal(t, strings.SplitN(canon, "\n", 4)[:3], strings.SplitN(creq, "\n", 4)[:3], q)
	}
	assert.Empty(t, canonicalQuery(nil))
}
