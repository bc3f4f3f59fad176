package createfn

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/apigw/apigwtest"
	"github.com/shortlink-dev/shortener/shared/linkapi"
	"github.com/shortlink-dev/shortener/shared/linkstore"
)

// TestBatchKeepsWhatAnImportHad: a batch of imported links keeps each
// one's click total, and takes 1-, 2- and 100-character aliases only when
// the deployment widened the alias lengths (SHORTENER_ALIAS_MIN_LENGTH,
// SHORTENER_ALIAS_MAX_LENGTH), on every store.
func TestBatchKeepsWhatAnImportHad(t *testing.T) {
	long := strings.Repeat("k", 100)
	items := []any{
		map[string]any{"url": "https://example.com/a", "alias": "a", "imported_clicks": 48213},
		map[string]any{"url": "https://example.com/zz", "alias": "zz", "imported_clicks": 0},
		map[string]any{"url": "https://example.com/long", "alias": long, "imported_clicks": 7},
		map[string]any{"url": "https://example.com/neg", "alias": "neg", "imported_clicks": -1},
		map[string]any{"url": "https://example.com/big", "alias": "big", "imported_clicks": 1_000_000_000_001},
	}
	tests := []struct {
		name       string
		min, max   int
		wantStatus []int
	}{
		{name: "defaults", wantStatus: []int{400, 400, 400, 400, 400}},
		{name: "widened", min: 1, max: 100, wantStatus: []int{201, 201, 201, 400, 400}},
	}
	for _, st := range stores {
		for _, tt := range tests {
			t.Run(st.name+"/"+tt.name, func(t *testing.T) {
				store := st.new(t)
				cfg := testConfig
				cfg.AliasMinLength, cfg.AliasMaxLength = tt.min, tt.max
				h, err := New(Options{Store: store, Now: time.Now, Config: cfg, Owners: testOwners, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
				require.NoError(t, err)
				resp, err := h.Handle(context.Background(), batchEvent(t, batchOf(items...)))
				require.NoError(t, err)
				got := results(t, resp)
				require.Len(t, got, len(items))
				var status []int
				for _, r := range got {
					status = append(status, r.Status)
				}
				assert.Equal(t, tt.wantStatus, status)
				if tt.min == 0 {
					for i := range 3 {
						p := problemOf(t, got[i])
						assert.Equal(t, "alias", p.Field)
						assert.Contains(t, p.Detail, "must be 3 to 64 characters")
					}
					return
				}
				assert.Equal(t, "imported_clicks", problemOf(t, got[3]).Field)
				assert.Equal(t, "imported_clicks", problemOf(t, got[4]).Field)
				for i, want := range []int64{48213, 0, 7} {
					assert.Equal(t, want, got[i].Link.ImportedClicks, "the answer shows the total")
					stored, err := store.Get(context.Background(), got[i].Link.Code)
					require.NoError(t, err)
					assert.Equal(t, want, stored.ImportedClicks, "item %d", i)
				}
				assert.Equal(t, "https://sho.rt/a", got[0].Link.ShortURL)
				assert.Equal(t, long, got[2].Link.Code)
			})
		}
	}
}

// TestCreateImportedClicks: a single create keeps the total too, and its
// answer carries it.
func TestCreateImportedClicks(t *testing.T) {
	f := newFixture(t, "Ab3dE5g")
	resp, err := f.h.Handle(context.Background(), apigwtest.WithBody(event(t, "create-request.json"), `{"url":"https://example.com/","imported_clicks":12}`))
	require.NoError(t, err)
	require.Equal(t, 201, resp.StatusCode, resp.Body)
	assert.Equal(t, int64(12), apigwtest.Decode[linkapi.Link](t, resp).ImportedClicks)
	stored, err := f.store.Get(context.Background(), "Ab3dE5g")
	require.NoError(t, err)
	assert.Equal(t, int64(12), stored.ImportedClicks)
	listed, _, err := f.store.List(context.Background(), stored.Owner, 10, "")
	require.NoError(t, err)
	assert.Equal(t, linkstore.Listed(stored), listed[0], "a listing leaves it out, as the by-owner index does")

	bad, err := f.h.Handle(context.Background(), apigwtest.WithBody(event(t, "create-request.json"), `{"url":"https://example.com/","imported_clicks":"12"}`))
	require.NoError(t, err)
	apigwtest.RequireProblem(t, bad, 400, "imported_clicks")
}
