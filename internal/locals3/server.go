package locals3

import (
	"bytes"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Mode is an Object Lock retention mode, as S3 spells it.
type Mode string

// Retention modes
// (https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock.html#object-lock-retention-modes).
const (
	// Governance: a version's lock can be shortened or removed, and the
	// version deleted, by a caller who asks to bypass it.
	Governance Mode = "GOVERNANCE"
	// Compliance: by no one, the account's root user included, until it
	// expires.
	Compliance Mode = "COMPLIANCE"
)

// Retention is a bucket's default retention: every new version is locked
// in Mode for Days from its creation.
type Retention struct {
	Mode Mode
	Days int
}

// Bucket is a bucket the server holds.
type Bucket struct {
	Name string
	// ObjectLock enables Object Lock, and with it versioning, which a
	// bucket with Object Lock cannot suspend.
	ObjectLock bool
	// DefaultRetention, with ObjectLock, locks every new version.
	DefaultRetention *Retention
}

// Options configure a Server.
type Options struct {
	Buckets []Bucket
	// Now reads the clock (time.Now when nil): retention is checked
	// against it.
	Now func() time.Time
	// MaxObjectBytes bounds an upload's body (64 MiB when zero); S3's
	// own bound for one PutObject is 5 GB.
	MaxObjectBytes int64
}

// Version is one version of an object, or a delete marker.
type Version struct {
	Key          string
	VersionID    string
	DeleteMarker bool
	Body         []byte
	ContentType  string
	// ETag is the quoted hex MD5 of the body.
	ETag string
	// ChecksumAlgorithm and Checksum are the x-amz-checksum-* header the
	// upload carried, verified (CRC32, CRC32C, CRC64NVME, SHA1 or SHA256,
	// its value base64); both empty for an upload with Content-MD5 only.
	ChecksumAlgorithm string
	Checksum          string
	// ContentMD5 is the Content-MD5 the upload carried, verified.
	ContentMD5   string
	Metadata     map[string]string
	LastModified time.Time
	// Mode and RetainUntil are the version's lock; Mode "" is none.
	Mode        Mode
	RetainUntil time.Time
	// IsLatest: the current version of its key.
	IsLatest bool
}

// Server is the stand-in: an http.Handler answering path-style S3 requests.
type Server struct {
	now      func() time.Time
	maxBytes int64

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	Bucket
	// versions of each key, oldest first.
	versions map[string][]*Version
}

// New returns a server holding o's buckets, empty.
func New(o Options) *Server {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxObjectBytes <= 0 {
		o.MaxObjectBytes = 64 << 20
	}
	s := &Server{now: o.Now, maxBytes: o.MaxObjectBytes, buckets: map[string]*bucket{}}
	for _, b := range o.Buckets {
		s.buckets[b.Name] = &bucket{Bucket: b, versions: map[string][]*Version{}}
	}
	return s
}

// Versions are every version and delete marker in bucketName, by key,
// newest first within a key; copies, so a caller cannot change them.
func (s *Server) Versions(bucketName string) ([]Version, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.buckets[bucketName]
	if !ok {
		return nil, fmt.Errorf("locals3: no bucket %q", bucketName)
	}
	keys := make([]string, 0, len(b.versions))
	for k := range b.versions {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []Version
	for _, k := range keys {
		vs := b.versions[k]
		for i := len(vs) - 1; i >= 0; i-- {
			v := *vs[i]
			v.Body = bytes.Clone(v.Body)
			v.IsLatest = i == len(vs)-1
			out = append(out, v)
		}
	}
	return out, nil
}

// s3Error is an answer S3 gives in its error XML
// (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html).
type s3Error struct {
	status  int
	code    string
	message string
	header  map[string]string
}

func (e *s3Error) Error() string { return e.code + ": " + e.message }

func fail(status int, code, message string) *s3Error {
	return &s3Error{status: status, code: code, message: message}
}

var (
	errAccessDenied = fail(http.StatusForbidden, "AccessDenied", "Access Denied")
	errNoSuchBucket = fail(http.StatusNotFound, "NoSuchBucket", "The specified bucket does not exist")
	errNoSuchKey    = fail(http.StatusNotFound, "NoSuchKey", "The specified key does not exist.")
	errNoSuchVer    = fail(http.StatusNotFound, "NoSuchVersion", "The specified version does not exist.")
	// errChecksumRequired is S3's answer to an upload under Object Lock
	// without a checksum, as it words it.
	errChecksumRequired = fail(http.StatusBadRequest, "InvalidRequest",
		"Content-MD5 OR x-amz-checksum- HTTP header is required for Put Object requests with Object Lock parameters")
)

type errorBody struct {
	XMLName   xml.Name `xml:"Error"`
	Code      string   `xml:"Code"`
	Message   string   `xml:"Message"`
	Resource  string   `xml:"Resource,omitempty"`
	RequestID string   `xml:"RequestId"`
	HostID    string   `xml:"HostId"`
}

func writeError(w http.ResponseWriter, r *http.Request, err error) {
	var e *s3Error
	if !errors.As(err, &e) {
		e = fail(http.StatusInternalServerError, "InternalError", "We encountered an internal error. Please try again.")
	}
	for k, v := range e.header {
		w.Header().Set(k, v)
	}
	id := newID(8)
	w.Header().Set("x-amz-request-id", id)
	if r.Method == http.MethodHead {
		w.WriteHeader(e.status) // HEAD answers carry no body
		return
	}
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(e.status)
	body, _ := xml.Marshal(errorBody{Code: e.code, Message: e.message, Resource: r.URL.Path, RequestID: id, HostID: "locals3"})
	_, _ = w.Write(append([]byte(xml.Header), body...))
}

// ServeHTTP answers one path-style request: /<bucket>/<key>.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := s.serve(w, r); err != nil {
		writeError(w, r, err)
	}
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) error {
	// No signature, no access: the bucket has no policy letting anonymous
	// callers in. The signature itself is not verified.
	if !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") {
		return errAccessDenied
	}
	name, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	q := r.URL.Query()
	if name == "" {
		return fail(http.StatusNotImplemented, "NotImplemented", "locals3 plays object requests on a path-style endpoint only")
	}
	if key == "" {
		return fail(http.StatusNotImplemented, "NotImplemented", "locals3 does not play bucket requests (listings, configuration)")
	}
	for _, sub := range []string{"uploads", "uploadId", "legal-hold", "tagging", "acl", "attributes"} {
		if q.Has(sub) {
			return fail(http.StatusNotImplemented, "NotImplemented", "locals3 does not play ?"+sub)
		}
	}
	retention := q.Has("retention")
	switch {
	case r.Method == http.MethodPut && retention:
		return s.putRetention(w, r, name, key)
	case r.Method == http.MethodPut:
		return s.putObject(w, r, name, key)
	case r.Method == http.MethodGet && retention:
		return s.getRetention(w, name, key, q.Get("versionId"))
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		return s.getObject(w, r, name, key, q.Get("versionId"))
	case r.Method == http.MethodDelete:
		return s.deleteObject(w, r, name, key, q.Get("versionId"))
	}
	return fail(http.StatusMethodNotAllowed, "MethodNotAllowed", "The specified method is not allowed against this resource.")
}

// readBody reads an upload's body and checks the signature's payload hash.
func (s *Server) readBody(r *http.Request) ([]byte, error) {
	if enc := r.Header.Get("Content-Encoding"); strings.Contains(enc, "aws-chunked") ||
		strings.HasPrefix(r.Header.Get("X-Amz-Content-Sha256"), "STREAMING-") {
		return nil, fail(http.StatusNotImplemented, "NotImplemented", "locals3 does not play aws-chunked uploads (trailing checksums)")
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, s.maxBytes+1))
	if err != nil {
		return nil, fail(http.StatusBadRequest, "IncompleteBody", "You did not provide the number of bytes specified by the Content-Length HTTP header.")
	}
	if int64(len(body)) > s.maxBytes {
		return nil, fail(http.StatusBadRequest, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed size")
	}
	if h := r.Header.Get("X-Amz-Content-Sha256"); h != "" && h != "UNSIGNED-PAYLOAD" {
		sum := sha256.Sum256(body)
		if !strings.EqualFold(h, hex.EncodeToString(sum[:])) {
			return nil, fail(http.StatusBadRequest, "XAmzContentSHA256Mismatch", "The provided 'x-amz-content-sha256' header does not match what was computed.")
		}
	}
	return body, nil
}

func (s *Server) putObject(w http.ResponseWriter, r *http.Request, name, key string) error {
	body, err := s.readBody(r)
	if err != nil {
		return err
	}
	md5Header, alg, sum, err := verifyChecksums(r.Header, body)
	if err != nil {
		return err
	}
	now := s.now().UTC()
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.buckets[name]
	if !ok {
		return errNoSuchBucket
	}
	mode, until, err := lockOf(r.Header, b, now)
	if err != nil {
		return err
	}
	if mode != "" && md5Header == "" && alg == "" {
		return errChecksumRequired
	}
	etagSum := md5.Sum(body)
	v := &Version{
		Key: key, VersionID: "null", Body: body, ContentType: r.Header.Get("Content-Type"),
		ETag: `"` + hex.EncodeToString(etagSum[:]) + `"`, ChecksumAlgorithm: alg, Checksum: sum, ContentMD5: md5Header,
		Metadata: metadataOf(r.Header), LastModified: now, Mode: mode, RetainUntil: until,
	}
	if b.ObjectLock {
		v.VersionID = newID(24)
		b.versions[key] = append(b.versions[key], v)
	} else {
		b.versions[key] = []*Version{v} // unversioned: replaced
	}
	w.Header().Set("ETag", v.ETag)
	if b.ObjectLock {
		w.Header().Set("x-amz-version-id", v.VersionID)
	}
	if alg != "" {
		w.Header().Set("x-amz-checksum-"+strings.ToLower(alg), sum)
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

// lockOf is the lock a new version gets: the request's
// x-amz-object-lock-mode and -retain-until-date (both or neither), else
// the bucket's default retention.
func lockOf(h http.Header, b *bucket, now time.Time) (Mode, time.Time, error) {
	if h.Get("X-Amz-Object-Lock-Legal-Hold") != "" {
		return "", time.Time{}, fail(http.StatusNotImplemented, "NotImplemented", "locals3 does not play legal holds")
	}
	mode, until := Mode(h.Get("X-Amz-Object-Lock-Mode")), h.Get("X-Amz-Object-Lock-Retain-Until-Date")
	if mode != "" || until != "" {
		if !b.ObjectLock {
			return "", time.Time{}, fail(http.StatusBadRequest, "InvalidRequest", "Bucket is missing Object Lock Configuration")
		}
		if mode == "" || until == "" {
			return "", time.Time{}, fail(http.StatusBadRequest, "InvalidArgument", "x-amz-object-lock-retain-until-date and x-amz-object-lock-mode must both be supplied")
		}
		t, err := time.Parse(time.RFC3339, until)
		if err != nil {
			return "", time.Time{}, fail(http.StatusBadRequest, "InvalidArgument", "The retain until date must be provided in ISO 8601 format")
		}
		if mode != Governance && mode != Compliance {
			return "", time.Time{}, fail(http.StatusBadRequest, "InvalidArgument", "Unknown wormMode directive.")
		}
		if !t.After(now) {
			return "", time.Time{}, fail(http.StatusBadRequest, "InvalidArgument", "The retain until date must be in the future!")
		}
		return mode, t.UTC(), nil
	}
	if b.ObjectLock && b.DefaultRetention != nil {
		d := b.DefaultRetention
		return d.Mode, now.Add(time.Duration(d.Days) * 24 * time.Hour), nil
	}
	return "", time.Time{}, nil
}

func metadataOf(h http.Header) map[string]string {
	m := map[string]string{}
	for k, vs := range h {
		if name, ok := strings.CutPrefix(strings.ToLower(k), "x-amz-meta-"); ok && len(vs) > 0 {
			m[name] = vs[0]
		}
	}
	return m
}

func (s *Server) find(name, key, versionID string) (*bucket, *Version, int, error) {
	b, ok := s.buckets[name]
	if !ok {
		return nil, nil, 0, errNoSuchBucket
	}
	vs := b.versions[key]
	if versionID == "" {
		if len(vs) == 0 {
			return b, nil, 0, errNoSuchKey
		}
		return b, vs[len(vs)-1], len(vs) - 1, nil
	}
	for i, v := range vs {
		if v.VersionID == versionID {
			return b, v, i, nil
		}
	}
	return b, nil, 0, errNoSuchVer
}

func (s *Server) getObject(w http.ResponseWriter, r *http.Request, name, key, versionID string) error {
	s.mu.Lock()
	_, v, _, err := s.find(name, key, versionID)
	var cp Version
	if v != nil {
		cp = *v
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if cp.DeleteMarker {
		h := map[string]string{"x-amz-delete-marker": "true", "x-amz-version-id": cp.VersionID}
		if versionID != "" {
			e := *fail(http.StatusMethodNotAllowed, "MethodNotAllowed", "The specified method is not allowed against this resource.")
			e.header = h
			return &e
		}
		e := *errNoSuchKey
		e.header = h
		return &e
	}
	hd := w.Header()
	hd.Set("ETag", cp.ETag)
	hd.Set("Content-Length", strconv.Itoa(len(cp.Body)))
	hd.Set("Last-Modified", cp.LastModified.Format(http.TimeFormat))
	if cp.ContentType != "" {
		hd.Set("Content-Type", cp.ContentType)
	}
	if cp.VersionID != "null" {
		hd.Set("x-amz-version-id", cp.VersionID)
	}
	for k, v := range cp.Metadata {
		hd.Set("x-amz-meta-"+k, v)
	}
	if cp.Mode != "" {
		hd.Set("x-amz-object-lock-mode", string(cp.Mode))
		hd.Set("x-amz-object-lock-retain-until-date", cp.RetainUntil.Format(time.RFC3339))
	}
	if cp.ChecksumAlgorithm != "" && strings.EqualFold(r.Header.Get("X-Amz-Checksum-Mode"), "ENABLED") {
		hd.Set("x-amz-checksum-"+strings.ToLower(cp.ChecksumAlgorithm), cp.Checksum)
		hd.Set("x-amz-checksum-type", "FULL_OBJECT")
	}
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = w.Write(cp.Body)
	}
	return nil
}

// locked reports whether v is under retention at now.
func locked(v *Version, now time.Time) bool {
	return v.Mode != "" && now.Before(v.RetainUntil)
}

// bypass reports whether the request asks to bypass a GOVERNANCE lock.
func bypass(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("X-Amz-Bypass-Governance-Retention"), "true")
}

func (s *Server) deleteObject(w http.ResponseWriter, r *http.Request, name, key, versionID string) error {
	now := s.now().UTC()
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.buckets[name]
	if !ok {
		return errNoSuchBucket
	}
	if versionID == "" {
		if !b.ObjectLock {
			delete(b.versions, key)
			w.WriteHeader(http.StatusNoContent)
			return nil
		}
		// A versioned bucket keeps every version: the delete only hides
		// them behind a marker, which Object Lock allows.
		m := &Version{Key: key, VersionID: newID(24), DeleteMarker: true, LastModified: now}
		b.versions[key] = append(b.versions[key], m)
		w.Header().Set("x-amz-delete-marker", "true")
		w.Header().Set("x-amz-version-id", m.VersionID)
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	_, v, i, err := s.find(name, key, versionID)
	if errors.Is(err, errNoSuchVer) {
		w.WriteHeader(http.StatusNoContent) // S3 answers a delete of a version it does not have alike
		return nil
	}
	if err != nil {
		return err
	}
	if locked(v, now) && (v.Mode == Compliance || !bypass(r)) {
		return errAccessDenied
	}
	vs := b.versions[key]
	b.versions[key] = append(vs[:i:i], vs[i+1:]...)
	if len(b.versions[key]) == 0 {
		delete(b.versions, key)
	}
	if v.DeleteMarker {
		w.Header().Set("x-amz-delete-marker", "true")
	}
	w.Header().Set("x-amz-version-id", v.VersionID)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// retentionXML is PutObjectRetention's body and GetObjectRetention's answer.
type retentionXML struct {
	XMLName         xml.Name `xml:"Retention"`
	Mode            Mode     `xml:"Mode,omitempty"`
	RetainUntilDate string   `xml:"RetainUntilDate,omitempty"`
}

func (s *Server) putRetention(w http.ResponseWriter, r *http.Request, name, key string) error {
	body, err := s.readBody(r)
	if err != nil {
		return err
	}
	md5Header, alg, _, err := verifyChecksums(r.Header, body)
	if err != nil {
		return err
	}
	if md5Header == "" && alg == "" {
		// PutObjectRetention's body must carry a checksum too.
		return fail(http.StatusBadRequest, "InvalidRequest", "Missing required header for this request: Content-MD5 OR x-amz-checksum-*")
	}
	var want retentionXML
	if err := xml.Unmarshal(body, &want); err != nil {
		return fail(http.StatusBadRequest, "MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema")
	}
	var until time.Time
	if want.Mode != "" || want.RetainUntilDate != "" {
		if want.Mode != Governance && want.Mode != Compliance {
			return fail(http.StatusBadRequest, "MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema")
		}
		if until, err = time.Parse(time.RFC3339, want.RetainUntilDate); err != nil {
			return fail(http.StatusBadRequest, "InvalidArgument", "The retain until date must be provided in ISO 8601 format")
		}
	}
	now := s.now().UTC()
	s.mu.Lock()
	defer s.mu.Unlock()
	b, v, _, err := s.find(name, key, r.URL.Query().Get("versionId"))
	if err != nil {
		return err
	}
	if !b.ObjectLock {
		return fail(http.StatusBadRequest, "InvalidRequest", "Bucket is missing Object Lock Configuration")
	}
	if v.DeleteMarker {
		return fail(http.StatusMethodNotAllowed, "MethodNotAllowed", "The specified method is not allowed against this resource.")
	}
	if !until.IsZero() && !until.After(now) {
		return fail(http.StatusBadRequest, "InvalidArgument", "The retain until date must be in the future!")
	}
	if locked(v, now) {
		weaker := want.Mode == "" || until.Before(v.RetainUntil) || (v.Mode == Compliance && want.Mode != Compliance)
		if weaker && (v.Mode == Compliance || !bypass(r)) {
			return errAccessDenied
		}
	}
	v.Mode, v.RetainUntil = want.Mode, until.UTC()
	w.WriteHeader(http.StatusOK)
	return nil
}

func (s *Server) getRetention(w http.ResponseWriter, name, key, versionID string) error {
	s.mu.Lock()
	_, v, _, err := s.find(name, key, versionID)
	var out retentionXML
	if err == nil && v.Mode == "" {
		err = fail(http.StatusNotFound, "NoSuchObjectLockConfiguration", "The specified object does not have a ObjectLock configuration")
	}
	if err == nil {
		out = retentionXML{Mode: v.Mode, RetainUntilDate: v.RetainUntil.Format(time.RFC3339)}
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	b, _ := xml.Marshal(out)
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append([]byte(xml.Header), b...))
	return nil
}

// newID is n random bytes, URL-safe base64: a version or request ID.
func newID(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return base64.RawURLEncoding.EncodeToString(b)
}
