package locals3

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"hash/crc64"
	"net/http"
	"strings"
)

// checksums are the x-amz-checksum-* algorithms S3 takes, by the header's
// suffix, each with the digest of a body
// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html).
var checksums = map[string]struct {
	name string // as S3 names it in its messages and ChecksumAlgorithm
	sum  func([]byte) []byte
}{
	"crc32":     {"CRC32", func(b []byte) []byte { return binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(b)) }},
	"crc32c":    {"CRC32C", func(b []byte) []byte { return binary.BigEndian.AppendUint32(nil, crc32.Checksum(b, castagnoli)) }},
	"crc64nvme": {"CRC64NVME", func(b []byte) []byte { return binary.BigEndian.AppendUint64(nil, crc64.Checksum(b, nvme)) }},
	"sha1":      {"SHA1", func(b []byte) []byte { s := sha1.Sum(b); return s[:] }},
	"sha256":    {"SHA256", func(b []byte) []byte { s := sha256.Sum256(b); return s[:] }},
}

var (
	castagnoli = crc32.MakeTable(crc32.Castagnoli)
	// nvme is CRC-64/NVME's polynomial, reflected, as hash/crc64 takes it
	// (its initial value and final XOR are all ones, as crc64's are).
	nvme = crc64.MakeTable(0x9a6c9329ac4bc9b5)
)

// verifyChecksums checks the integrity headers of an upload against its
// body, as S3 does: it returns the Content-MD5 and the one x-amz-checksum-*
// header sent (its algorithm as S3 names it, and its value), each empty
// when not sent, or S3's error for a malformed or mismatched one.
func verifyChecksums(h http.Header, body []byte) (contentMD5, algorithm, value string, err error) {
	if _, sent := h["Content-Md5"]; sent {
		contentMD5 = h.Get("Content-Md5")
		want, derr := base64.StdEncoding.DecodeString(contentMD5)
		if derr != nil || len(want) != md5.Size {
			return "", "", "", fail(http.StatusBadRequest, "InvalidDigest", "The Content-MD5 you specified is not valid.")
		}
		if got := md5.Sum(body); string(got[:]) != string(want) {
			return "", "", "", fail(http.StatusBadRequest, "BadDigest", "The Content-MD5 you specified did not match what we received.")
		}
	}
	for k := range h {
		suffix, ok := strings.CutPrefix(strings.ToLower(k), "x-amz-checksum-")
		if !ok || suffix == "mode" || suffix == "type" {
			continue
		}
		c, known := checksums[suffix]
		if !known {
			return "", "", "", fail(http.StatusBadRequest, "InvalidRequest", "x-amz-checksum-"+suffix+" is not a checksum algorithm S3 supports")
		}
		if algorithm != "" {
			return "", "", "", fail(http.StatusBadRequest, "InvalidRequest", "Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.")
		}
		algorithm, value = c.name, h.Get(k)
		want, derr := base64.StdEncoding.DecodeString(value)
		got := c.sum(body)
		if derr != nil || len(want) != len(got) {
			return "", "", "", fail(http.StatusBadRequest, "InvalidRequest", "Value for x-amz-checksum-"+suffix+" header is invalid.")
		}
		if string(got) != string(want) {
			return "", "", "", fail(http.StatusBadRequest, "BadDigest", "The "+c.name+" you specified did not match the calculated checksum.")
		}
	}
	if sdk := h.Get("X-Amz-Sdk-Checksum-Algorithm"); sdk != "" && algorithm == "" && h.Get("X-Amz-Trailer") == "" {
		return "", "", "", fail(http.StatusBadRequest, "InvalidRequest",
			"x-amz-sdk-checksum-algorithm specified, but no corresponding x-amz-checksum-* or x-amz-trailer headers were found.")
	}
	return contentMD5, algorithm, value, nil
}
