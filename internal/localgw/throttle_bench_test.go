package localgw

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/shortlink-dev/shortener/shared/edgespec"
)

// BenchmarkKeyedRequest is one keyed /v1 request through the gateway,
// with and without the usage plan and the stage's throttle (limits too
// high to refuse): what playing them costs per request.
func BenchmarkKeyedRequest(b *testing.B) {
	roomy := edgespec.UsagePlan{Throttle: edgespec.Throttle{RateLimit: 1e12, BurstLimit: 1 << 40}, Quota: 1 << 40, QuotaPeriod: edgespec.QuotaPerDay}
	for _, bb := range []struct {
		name      string
		throttled bool
	}{{"no throttles", false}, {"usage plan and stage", true}} {
		b.Run(bb.name, func(b *testing.B) {
			api := edgespec.Management(roomy)
			api.Throttle = &edgespec.Throttle{RateLimit: 1e12, BurstLimit: 1 << 40}
			if !bb.throttled {
				api.UsagePlan, api.Throttle = nil, nil
			}
			h, _ := allHandlers()
			o, err := Configure([]edgespec.API{api}, h)
			if err != nil {
				b.Fatal(err)
			}
			o.APIKeys = StaticKeys("dev-key")
			o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
			gw, err := New(o)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest(http.MethodGet, "/v1/links", nil)
				r.Header.Set("X-Api-Key", "dev-key")
				w := httptest.NewRecorder()
				gw.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatalf("status %d", w.Code)
				}
			}
		})
	}
}
