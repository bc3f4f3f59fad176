package redirectfn

import (
	"context"
	"errors"

	"github.com/shortlink-dev/shortener/shared/edgemarks"
	"github.com/shortlink-dev/shortener/shared/metrics"
)

// markRefused counts and logs a mark that was not written, after which
// the answer leaves with a short edge life. A fenced mark is no failure:
// the link changed after the data the answer was built from (this
// Region's replica lags behind the change, or the read just missed it),
// and the short life is what keeps that stale answer within the promise
// (docs/lifecycle.md, "A replica that lags"). It is counted apart, as
// EdgeMarkFenced, so that EdgeMarkFailures keeps alarming on a marks table
// that fails.
func (h *Handler) markRefused(ctx context.Context, code string, err error) {
	if errors.Is(err, edgemarks.ErrFenced) {
		h.Metrics.Add("EdgeMarkFenced", metrics.Count, 1)
		h.Log.InfoContext(ctx, "edge mark refused: the link changed after this read; the answer gets a short edge life", "code", code)
		return
	}
	h.Metrics.Add("EdgeMarkFailures", metrics.Count, 1)
	h.Log.WarnContext(ctx, "edge mark not written; the answer gets a short edge life", "code", code, "error", err.Error())
}
