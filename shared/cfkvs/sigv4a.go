package cfkvs

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math/big"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/smithy-go/encoding/httpbinding"
)

// algorithm is Signature Version 4A's name, in the string to sign and the
// Authorization header, and the KDF's label.
const algorithm = "AWS4-ECDSA-P256-SHA256"

// nMinusTwo is the P-256 group order less two: a derived candidate must be
// below it, so that candidate+1 is a valid private key.
var nMinusTwo = new(big.Int).Sub(elliptic.P256().Params().N, big.NewInt(2))

// deriveKey is the ECDSA P-256 key Signature Version 4A signs with for an
// access key pair: the first candidate below n-2 of an HMAC-SHA256 counter
// mode KDF (NIST SP 800-108) keyed "AWS4A"+secret, with the access key and
// a one-byte counter as context, plus one.
func deriveKey(accessKey, secretKey string) (*ecdsa.PrivateKey, error) {
	key := []byte("AWS4A" + secretKey)
	for counter := 1; counter <= 0xFF; counter++ {
		ctx := append([]byte(accessKey), byte(counter))
		// One HMAC block: 256 bits are asked for, one SHA-256 output.
		var fixed bytes.Buffer
		fixed.WriteString(algorithm)
		fixed.WriteByte(0)
		fixed.Write(ctx)
		_ = binary.Write(&fixed, binary.BigEndian, int32(256))
		h := hmac.New(sha256.New, key)
		_ = binary.Write(h, binary.BigEndian, int32(1))
		h.Write(fixed.Bytes())
		candidate := new(big.Int).SetBytes(h.Sum(nil))
		if candidate.Cmp(nMinusTwo) < 0 {
			d := candidate.Add(candidate, big.NewInt(1)).FillBytes(make([]byte, 32))
			return ecdsa.ParseRawPrivateKey(elliptic.P256(), d)
		}
	}
	return nil, errors.New("sigv4a: no key below n-2 in 255 candidates")
}

// ignoredHeaders are never signed, as the SDK's signers leave them out.
var ignoredHeaders = map[string]bool{"authorization": true, "user-agent": true, "x-amzn-trace-id": true, "transfer-encoding": true}

// stringToSign sets the request's X-Amz-Date, X-Amz-Region-Set and
// session token headers and returns the signed header list and the string
// to sign of r with the payload's hash, for service and regionSet at now.
func stringToSign(r *http.Request, payloadHash, service, regionSet string, creds aws.Credentials, now time.Time) (signed, sts string) {
	now = now.UTC()
	amzDate := now.Format("20060102T150405Z")
	r.Header.Set("X-Amz-Region-Set", regionSet)
	r.Header.Set("X-Amz-Date", amzDate)
	if creds.SessionToken != "" {
		r.Header.Set("X-Amz-Security-Token", creds.SessionToken)
	}
	signed, creq := canonicalRequest(r, payloadHash)
	sum := sha256.Sum256([]byte(creq))
	scope := now.Format("20060102") + "/" + service + "/aws4_request"
	return signed, strings.Join([]string{algorithm, amzDate, scope, hex.EncodeToString(sum[:])}, "\n")
}

// canonicalRequest is Signature Version 4's canonical request of r, whose
// body hashes to payloadHash, with its signed header list: every header
// but ignoredHeaders, host and content-length included.
func canonicalRequest(r *http.Request, payloadHash string) (signed, creq string) {
	host := r.Host
	if host == "" {
		host = r.URL.Host
	}
	values := map[string][]string{"host": {host}}
	names := []string{"host"}
	if r.ContentLength > 0 {
		values["content-length"] = []string{strconv.FormatInt(r.ContentLength, 10)}
		names = append(names, "content-length")
	}
	for k, vs := range r.Header {
		lk := strings.ToLower(k)
		if ignoredHeaders[lk] {
			continue
		}
		if _, ok := values[lk]; !ok {
			names = append(names, lk)
		}
		values[lk] = append(values[lk], vs...)
	}
	sort.Strings(names)
	var canon strings.Builder
	for _, n := range names {
		canon.WriteString(n)
		canon.WriteByte(':')
		for i, v := range values[n] {
			if i > 0 {
				canon.WriteByte(',')
			}
			canon.WriteString(strings.Join(strings.Fields(v), " "))
		}
		canon.WriteByte('\n')
	}
	signed = strings.Join(names, ";")
	path := r.URL.EscapedPath()
	if r.URL.Opaque != "" {
		path = "/" + strings.Join(strings.Split(r.URL.Opaque, "/")[3:], "/")
	}
	if path == "" {
		path = "/"
	}
	creq = strings.Join([]string{r.Method, httpbinding.EscapePath(path, false), canonicalQuery(r.URL.Query()), canon.String(), signed, payloadHash}, "\n")
	return signed, creq
}

// canonicalQuery is the canonical query string of q: each name and value
// URI-encoded (every byte but the unreserved A-Z a-z 0-9 - _ . ~, a space
// as %20, never +), sorted by name, then value, and joined with &; "" for
// none. A request's query is sent in this form too (ListKeys' NextToken
// may hold "+", "/" and "=").
func canonicalQuery(q url.Values) string {
	var params [][2]string
	for k, vs := range q {
		for _, v := range vs {
			params = append(params, [2]string{uriEncode(k), uriEncode(v)})
		}
	}
	sort.Slice(params, func(i, j int) bool {
		if params[i][0] != params[j][0] {
			return params[i][0] < params[j][0]
		}
		return params[i][1] < params[j][1]
	})
	out := make([]string, len(params))
	for i, p := range params {
		out[i] = p[0] + "=" + p[1]
	}
	return strings.Join(out, "&")
}

func uriEncode(s string) string { return strings.ReplaceAll(url.QueryEscape(s), "+", "%20") }

// sign signs r (whose body hashes to payloadHash) with Signature Version
// 4A for service in regionSet, setting its Authorization header.
func sign(r *http.Request, payloadHash, service, regionSet string, creds aws.Credentials, now time.Time) error {
	key, err := deriveKey(creds.AccessKeyID, creds.SecretAccessKey)
	if err != nil {
		return err
	}
	signed, sts := stringToSign(r, payloadHash, service, regionSet, creds, now)
	digest := sha256.Sum256([]byte(sts))
	sig, err := ecdsa.SignASN1(rand.Reader, key, digest[:])
	if err != nil {
		return err
	}
	scope := now.UTC().Format("20060102") + "/" + service + "/aws4_request"
	r.Header.Set("Authorization", algorithm+" Credential="+creds.AccessKeyID+"/"+scope+", SignedHeaders="+signed+", Signature="+hex.EncodeToString(sig))
	return nil
}
