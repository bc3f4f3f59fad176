package main

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/shortlink-dev/shortener/functions/reclaim/reclaimfn"
	"github.com/shortlink-dev/shortener/functions/ttlstream/ttlstreamfn"
	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/internal/localreclaim"
	"github.com/shortlink-dev/shortener/internal/localstream"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/fnclients"
)

// lifecycle is what AWS runs beside the API for expiry: the links table's
// stream mapped to ttlstream, and the reclaim state machine on a schedule.
type lifecycle struct {
	reclaim *localreclaim.Runner
	wg      sync.WaitGroup
}

// startLifecycle starts the stream poller and the reclaim schedule; both
// stop when ctx ends, and wait returns once they have. alsoOnStream, when
// not nil, is the links stream's other consumer (webhookstream).
func startLifecycle(ctx context.Context, cfg config.Config, c fnclients.Clients, db *dynamodb.Client, endpoint string, every time.Duration,
	log *slog.Logger, alsoOnStream localstream.Handler) (*lifecycle, error) {
	ttl, err := ttlstreamfn.Build(cfg, c)
	if err != nil {
		return nil, err
	}
	reclaim, err := reclaimfn.Build(cfg, c)
	if err != nil {
		return nil, err
	}
	poller, err := localstream.New(db, emulator.NewStreamsClient(endpoint), localstream.Options{
		Table: cfg.LinksTable, Handler: bothStreamHandlers(ttl.Handle, alsoOnStream), Region: emulator.Region, Log: log.With("component", "stream-poller"),
	})
	if err != nil {
		return nil, err
	}
	l := &lifecycle{reclaim: localreclaim.New(reclaim.Handle, log)}
	l.wg.Add(2)
	go func() {
		defer l.wg.Done()
		if err := poller.Run(ctx); err != nil {
			log.Error("stream poller stopped", "error", err.Error())
		}
	}()
	go func() {
		defer l.wg.Done()
		l.reclaim.Every(ctx, every)
	}()
	return l, nil
}

func (l *lifecycle) wait() { l.wg.Wait() }

// lateReclaim serves POST /_local/reclaim once the lifecycle runs.
type lateReclaim struct {
	mu sync.Mutex
	l  *lifecycle
}

func (r *lateReclaim) set(l *lifecycle) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.l = l
}

func (r *lateReclaim) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	l := r.l
	r.mu.Unlock()
	if l == nil {
		http.Error(w, "not ready", http.StatusServiceUnavailable)
		return
	}
	l.reclaim.ServeHTTP(w, req)
}
