package dynamo_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/internal/emulator/testenv"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkstore"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// benchLinks is how many links the paging benchmark's owner has, every
// one of them tagged.
const benchLinks = 10_000

var benchSeed struct {
	once sync.Once
	cfg  dynamo.LinkConfig
	err  error
}

// seededTables are tables on DynamoDB Local holding benchLinks links of
// one owner, each with the tag "bench" (written as creates write them:
// one transaction with the membership and the counter) and a title.
func seededTables(b *testing.B) dynamo.LinkConfig {
	benchSeed.once.Do(func() {
		db := testenv.DynamoDBClient(b)
		cfg := dynamo.LinkConfig{
			LinksTable: testenv.UniqueName(b, "links"), IdempotencyTable: testenv.UniqueName(b, "idem"),
			TagsTable: testenv.UniqueName(b, "tags"), Timeout: 30 * time.Second,
		}
		ctx := context.Background()
		if benchSeed.err = localtable.Links(ctx, db, cfg.LinksTable, cfg.IdempotencyTable); benchSeed.err != nil {
			return
		}
		if benchSeed.err = localtable.LinkTags(ctx, db, cfg.TagsTable); benchSeed.err != nil {
			return
		}
		store := dynamo.NewLinkStore(db, cfg)
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < benchLinks; i += 8 {
					at := start.Add(time.Duration(i) * time.Second)
					l := link.Link{Code: fmt.Sprintf("b%06d", i), URL: "https://example.com/page/" + fmt.Sprint(i), Owner: "bench-owner",
						CreatedAt: at, UpdatedAt: at, ExpiresAt: at.Add(link.DefaultTTL).Truncate(time.Second), Status: link.StatusActive,
						Version: 1, RedirectStatus: 302, Meta: link.Meta{Title: "Link number " + fmt.Sprint(i), Tags: []string{"bench"}}}
					if err := store.Create(ctx, l, nil); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		benchSeed.err = <-errs
		benchSeed.cfg = cfg
	})
	require.NoError(b, benchSeed.err)
	return benchSeed.cfg
}

// BenchmarkListPaging pages through one owner's 10,000 links, 100 a page
// (the API's largest), newest first: the plain listing as it is read
// today (by-owner) and from the new index (by-owner-all), and the
// listing of one tag all 10,000 carry (the tags table's membership, then
// BatchGetItem of the page's links). One op is one page; each walk starts
// over from the first page when it reaches the last. Compare the ns/op of
// the sub-benchmarks: scripts/with-emulators.sh go test -run '^$'
// -bench BenchmarkListPaging ./shared/dynamo/
func BenchmarkListPaging(b *testing.B) {
	cfg := seededTables(b)
	db := testenv.DynamoDBClient(b)
	ctx := context.Background()
	pager := func(b *testing.B, page func(cursor string) ([]link.Link, string, error)) {
		cursor, links := "", 0
		b.ResetTimer()
		for range b.N {
			got, next, err := page(cursor)
			if err != nil {
				b.Fatal(err)
			}
			if len(got) != linkstore.MaxPage && next != "" {
				b.Fatalf("a page of %d links before the last", len(got))
			}
			links += len(got)
			cursor = next
		}
		b.ReportMetric(float64(links)/float64(b.N), "links/op")
	}
	for _, index := range []string{tableschema.IndexByOwner, tableschema.IndexByOwnerAll} {
		b.Run("list/"+index, func(b *testing.B) {
			c := cfg
			c.OwnerIndex = index
			store := dynamo.NewLinkStore(db, c)
			pager(b, func(cursor string) ([]link.Link, string, error) {
				return store.List(ctx, "bench-owner", linkstore.MaxPage, cursor)
			})
		})
	}
	b.Run("tag", func(b *testing.B) {
		store := dynamo.NewLinkStore(db, cfg)
		pager(b, func(cursor string) ([]link.Link, string, error) {
			return store.ListTagged(ctx, "bench-owner", []string{"bench"}, linkstore.MaxPage, cursor)
		})
	})
}
