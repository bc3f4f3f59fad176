package createfn

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkapi"
	"github.com/shortlink-dev/shortener/shared/linkstore"
)

// BatchConcurrency bounds the items of one batch in flight at once. Each
// item is one conditional write (about 10 ms in DynamoDB), so 100 items
// take some 13 rounds, far inside API Gateway's 29 s, without one
// caller's batch turning into 100 simultaneous writes.
const BatchConcurrency = 8

// BatchBudget bounds the work of one batch below API Gateway's 29 s
// integration timeout; an item still waiting when it runs out answers 503
// and is retried with the batch (the same Idempotency-Key makes that safe).
// A Lambda deadline that comes sooner bounds it too, less batchMargin for
// writing the answer.
const BatchBudget = 25 * time.Second

const batchMargin = 500 * time.Millisecond

// MaxBatchBodyBytes caps a batch body: 100 create requests with URLs of
// the default 8 KiB cap and their other fields fit in 1 MiB.
const MaxBatchBodyBytes = 1 << 20

// batch answers POST /v1/links/batch; see the package documentation.
func (h *Handler) batch(ctx context.Context, req *events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	p, err := apigw.Authorize(ctx, req, h.Owners, apigw.RoleEditor)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	caller := p // who the audit log names
	owner := p.Owner
	if req.HTTPMethod != http.MethodPost {
		return events.APIGatewayProxyResponse{}, &apigw.MethodError{Allow: http.MethodPost, Detail: "use POST to create links in bulk"}
	}
	var body linkapi.BatchRequest
	if err := decodeBatch(req, &body); err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	n := len(body.Links)
	if n == 0 || n > linkapi.MaxBatch {
		return events.APIGatewayProxyResponse{}, &link.FieldError{Field: "links",
			Reason: fmt.Sprintf("must hold 1 to %d create requests, got %d", linkapi.MaxBatch, n)}
	}
	key := apigw.Header(req, "Idempotency-Key")
	if key != "" {
		if err := checkIdempotencyKey(key); err != nil {
			return events.APIGatewayProxyResponse{}, err
		}
	}

	now := h.Now().UTC()
	items := make([]request, n)
	decodeErrs := make([]error, n)
	canonical := make([][]byte, n)
	for i, raw := range body.Links {
		items[i].owner = owner
		items[i].audit = apigw.AuditEntry(req, caller, now)
		if err := apigw.DecodeStrict(raw, &items[i].wire); err != nil {
			decodeErrs[i] = err
			canonical[i] = canonicalRaw(raw)
			continue
		}
		canonical[i] = canonicalJSON(items[i].wire)
	}

	budget := BatchBudget
	if deadline, ok := ctx.Deadline(); ok {
		budget = min(budget, time.Until(deadline)-batchMargin)
	}
	bctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()

	// Under a key, the key itself is bound to this body first, and every
	// item's record is read before anything is written, so a body that is
	// not the first one is refused whole.
	var hash string
	seen := make([]*created, n)
	if key != "" {
		hash = batchFingerprint(canonical)
		if err := h.claimBatch(bctx, owner, key, hash, now); err != nil {
			return events.APIGatewayProxyResponse{}, err
		}
		if seen, err = h.lookBatch(bctx, owner, key, hash, n); err != nil {
			return events.APIGatewayProxyResponse{}, err
		}
	}

	results := make([]linkapi.BatchResult, n)
	var mu sync.Mutex
	replayed, retry := false, false
	forEach(n, BatchConcurrency, func(i int) {
		c, err := seen[i], decodeErrs[i]
		if c == nil && err == nil {
			r := items[i]
			if key != "" {
				r.idem = &linkstore.Idempotency{Owner: owner, Key: itemKey(key, i), RequestHash: hash,
					ExpiresAt: now.Add(linkstore.IdempotencyWindow)}
			}
			var got created
			if got, err = h.create(bctx, r, now, false); err == nil {
				c = &got
			}
		}
		results[i] = h.result(ctx, req, i, c, err)
		mu.Lock()
		if c != nil {
			replayed = replayed || c.replayed
		}
		retry = retry || results[i].Status == http.StatusServiceUnavailable
		mu.Unlock()
	})

	headers := map[string]string{}
	if replayed {
		headers["Idempotent-Replayed"] = "true"
	}
	if retry {
		// Some item met a busy or slow DynamoDB: say when to send the
		// batch again, as a 503 would.
		headers["Retry-After"] = apigw.RetryAfter
	}
	return apigw.JSON(http.StatusOK, linkapi.BatchResponse{Results: results}, headers), nil
}

// result is item i's answer: its link, or the problem the single create
// would have answered.
func (h *Handler) result(ctx context.Context, req *events.APIGatewayProxyRequest, i int, c *created, err error) linkapi.BatchResult {
	if err == nil {
		var l linkapi.Link
		if err = json.Unmarshal(c.body, &l); err == nil {
			return linkapi.BatchResult{Index: i, Status: http.StatusCreated, Link: &l}
		}
		err = fmt.Errorf("decode the link of item %d: %w", i, err)
	}
	p := apigw.Report(ctx, h.Log, req, err)
	b, _ := json.Marshal(p) // a struct of strings and an int always marshals
	return linkapi.BatchResult{Index: i, Status: p.Status, Problem: b}
}

// claimBatch binds key to the batch whose fingerprint is hash, before any
// item is created: the key's own record (the one a single create under
// the key would write) holds the hash, so the key names this request
// whatever becomes of its items. A key held by another body, or by a
// single create, is apigw.ErrIdempotencyMismatch; held by this body, it is
// a retry, and goes on.
func (h *Handler) claimBatch(ctx context.Context, owner, key, hash string, now time.Time) error {
	held, err := h.Store.ClaimIdempotency(ctx, linkstore.Idempotency{Owner: owner, Key: key, RequestHash: hash,
		ExpiresAt: now.Add(linkstore.IdempotencyWindow)})
	var taken *linkstore.ConflictError
	switch {
	case err == nil:
		return nil
	case !errors.As(err, &taken):
		return fmt.Errorf("claim the batch's idempotency key: %w", err)
	case held.RequestHash != hash:
		return apigw.ErrIdempotencyMismatch
	}
	return nil
}

// lookBatch reads the idempotency record of each of n items under key. It
// returns, per item, the link an earlier request created (nil where none
// did), or apigw.ErrIdempotencyMismatch if any record was written for
// another batch body.
func (h *Handler) lookBatch(ctx context.Context, owner, key, hash string, n int) ([]*created, error) {
	seen := make([]*created, n)
	errs := make([]error, n)
	forEach(n, BatchConcurrency, func(i int) {
		rec, err := h.Store.GetIdempotency(ctx, owner, itemKey(key, i))
		switch {
		case errors.Is(err, link.ErrNotFound):
		case err != nil:
			errs[i] = err
		case rec.RequestHash != hash:
			errs[i] = apigw.ErrIdempotencyMismatch
		default:
			seen[i] = &created{code: rec.Code, body: rec.Response, replayed: true}
		}
	})
	for _, err := range errs {
		if errors.Is(err, apigw.ErrIdempotencyMismatch) {
			return nil, err // the client's mistake first: retrying would not help
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("read the batch's idempotency records: %w", err)
	}
	return seen, nil
}

// canonicalRaw is an item that did not decode as its fingerprint sees
// it: compact, and, when it is an object with a password, that password
// replaced as canonicalJSON does.
func canonicalRaw(raw json.RawMessage) []byte {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil && obj != nil {
		if _, ok := obj["password"]; ok {
			obj["password"], _ = json.Marshal(redacted)
			b, _ := json.Marshal(obj) // raw messages that decoded always marshal
			return b
		}
	}
	var buf bytes.Buffer
	_ = json.Compact(&buf, raw) // raw came out of a JSON array, so it is valid JSON
	return buf.Bytes()
}

// itemKey is the idempotency key of item i of a batch sent under key. The
// space cannot occur in a client's key (checkIdempotencyKey), so an item's
// key never equals a single create's.
func itemKey(key string, i int) string { return key + " " + strconv.Itoa(i) }

// batchFingerprint hashes the batch as decoded, item by item, so the same
// batch sent with other spacing or key order is still the same batch.
func batchFingerprint(items [][]byte) string {
	sum := sha256.New()
	for _, it := range items {
		sum.Write(it)
		sum.Write([]byte{'\n'}) // cannot occur in compact JSON
	}
	return "batch:" + hex.EncodeToString(sum.Sum(nil))
}

// forEach calls fn(i) for every i in [0, n), at most workers at a time.
func forEach(n, workers int, fn func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// decodeBatch decodes a batch body strictly, as apigw.DecodeJSON does a
// single create's, with the batch's own size cap: a batch is up to 100
// times the single create's body.
func decodeBatch(req *events.APIGatewayProxyRequest, dst *linkapi.BatchRequest) error {
	if ct := apigw.Header(req, "Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return apigw.ErrUnsupportedMediaType
		}
	}
	if len(req.Body) > MaxBatchBodyBytes*4/3+4 {
		return &apigw.TooLargeError{Size: len(req.Body), Limit: MaxBatchBodyBytes}
	}
	body := []byte(req.Body)
	if req.IsBase64Encoded {
		var err error
		if body, err = base64.StdEncoding.DecodeString(req.Body); err != nil {
			return &link.FieldError{Field: "body", Reason: "is not valid base64"}
		}
	}
	if len(body) > MaxBatchBodyBytes {
		return &apigw.TooLargeError{Size: len(body), Limit: MaxBatchBodyBytes}
	}
	return apigw.DecodeStrict(body, dst)
}
