package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The promises a create, a retry and an edit keep across Regions, checked
// through the multi-Region twin, whose links and idempotency tables are
// MREC replicas (internal/localglobaltable): they hold only because every
// create reserves its code in the MRSC reservation table first, and edits
// and idempotency records go through it (docs/lifecycle.md, section 7).

// at is the run seen from a viewer whose /v1 domain resolves to region:
// requests go to that Region's API directly.
func (r *localRun) at(t testing.TB, region string) *localRun {
	t.Helper()
	for _, s := range r.regions(t).Regions {
		if s.Region == region {
			in := *r
			in.base = s.Target
			return &in
		}
	}
	t.Fatalf("no Region %s", region)
	return nil
}

// TestAliasRaceAcrossRegions: 50 creates of one alias at once, spread over
// the three Regions' APIs, give exactly one 201 and 49 409s, and every
// Region redirects the alias to the winner's URL.
func TestAliasRaceAcrossRegions(t *testing.T) {
	r := startRegions(t, nil)
	in := make([]*localRun, len(threeRegions))
	for i, region := range threeRegions {
		in[i] = r.at(t, region)
	}
	const n = 50
	statuses := make([]int, n)
	bodies := make([][]byte, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			statuses[i], _, bodies[i] = in[i%len(in)].do(t, "POST", "/v1/links", r.key,
				fmt.Sprintf(`{"url":"https://example.com/racer/%d","alias":"Spread"}`, i))
		})
	}
	wg.Wait()
	count := map[int]int{}
	winner := ""
	for i, s := range statuses {
		count[s]++
		if s == http.StatusCreated {
			var c created
			require.NoError(t, json.Unmarshal(bodies[i], &c))
			winner = c.URL
		}
	}
	require.Equal(t, map[int]int{201: 1, 409: n - 1}, count)
	for _, region := range threeRegions {
		r.at(t, region).eventually(t, "/v1/links/spread", func(status int, _ http.Header, body []byte) bool {
			var c created
			return status == http.StatusOK && json.Unmarshal(body, &c) == nil && c.URL == winner
		})
	}
}

// TestIdempotentRetryInAnotherRegion: a create answered in one Region and
// retried with its Idempotency-Key in another gets the same link back,
// and the owner has that one link.
func TestIdempotentRetryInAnotherRegion(t *testing.T) {
	r := startRegions(t, nil)
	const req = `{"url":"https://example.com/once-across-regions"}`
	status, _, body := r.at(t, "us-east-1").do(t, "POST", "/v1/links", r.key, req, "Idempotency-Key", "retry-elsewhere-1")
	require.Equal(t, http.StatusCreated, status, string(body))
	var first created
	require.NoError(t, json.Unmarshal(body, &first))

	for _, region := range threeRegions[1:] {
		status, h, body := r.at(t, region).do(t, "POST", "/v1/links", r.key, req, "Idempotency-Key", "retry-elsewhere-1")
		require.Equal(t, http.StatusCreated, status, "%s: %s", region, body)
		var again created
		require.NoError(t, json.Unmarshal(body, &again))
		assert.Equal(t, first.Code, again.Code, region)
		assert.Equal(t, "true", h.Get("Idempotent-Replayed"), region)
	}

	// A marker created in each Region after the retries: once a Region
	// lists every marker, it lists any link a retry made before them.
	for _, region := range threeRegions {
		status, _, body := r.at(t, region).do(t, "POST", "/v1/links", r.key, `{"url":"https://example.com/marker/`+region+`"}`)
		require.Equal(t, http.StatusCreated, status, string(body))
	}
	for _, region := range threeRegions {
		_, body := r.at(t, region).eventually(t, "/v1/links?limit=100", func(status int, _ http.Header, body []byte) bool {
			for _, m := range threeRegions {
				if !strings.Contains(string(body), "https://example.com/marker/"+m) {
					return false
				}
			}
			return status == http.StatusOK
		})
		assert.Equal(t, 1, strings.Count(string(body), "https://example.com/once-across-regions"), "%s: %s", region, body)
	}
}

// TestIfMatchAcrossRegions: two edits of one version at once, one in each
// of two Regions, give one 200 and one 412, again and again.
func TestIfMatchAcrossRegions(t *testing.T) {
	r := startRegions(t, nil)
	east, west := r.at(t, "us-east-1"), r.at(t, "us-west-2")
	status, _, body := east.do(t, "POST", "/v1/links", r.key, `{"url":"https://example.com/v0","alias":"Contended"}`)
	require.Equal(t, http.StatusCreated, status, string(body))
	etag := ""
	for round := range 5 {
		// Both Regions hold the same version first (replicated), as two
		// clients editing what they both read.
		h, _ := east.eventually(t, "/v1/links/contended", func(status int, h http.Header, _ []byte) bool {
			return status == http.StatusOK && h.Get("ETag") != etag
		})
		etag = h.Get("ETag")
		west.eventually(t, "/v1/links/contended", func(status int, h http.Header, _ []byte) bool {
			return status == http.StatusOK && h.Get("ETag") == etag
		})
		var got [2]int
		var wg sync.WaitGroup
		for i, in := range []*localRun{east, west} {
			wg.Go(func() {
				got[i], _, _ = in.do(t, "PATCH", "/v1/links/contended", r.key,
					fmt.Sprintf(`{"url":"https://example.com/r%d/%d"}`, round, i), "If-Match", etag)
			})
		}
		wg.Wait()
		assert.ElementsMatch(t, []int{http.StatusOK, http.StatusPreconditionFailed}, got[:], "round %d", round)
	}
}
