package linkapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkapi"
)

func ptr[T any](v T) *T { return &v }

func TestCreateRequestDomain(t *testing.T) {
	tests := []struct {
		name      string
		expiresAt *string
		want      *time.Time
		wantErr   bool
	}{
		{name: "no expiry", expiresAt: nil, want: nil},
		{name: "UTC", expiresAt: ptr("2030-01-02T15:04:05Z"), want: ptr(time.Date(2030, 1, 2, 15, 4, 5, 0, time.UTC))},
		{name: "offset", expiresAt: ptr("2030-01-02T17:04:05+02:00"), want: ptr(time.Date(2030, 1, 2, 15, 4, 5, 0, time.UTC))},
		{name: "fractional seconds", expiresAt: ptr("2030-01-02T15:04:05.25Z"), want: ptr(time.Date(2030, 1, 2, 15, 4, 5, 250_000_000, time.UTC))},
		{name: "empty", expiresAt: ptr(""), wantErr: true},
		{name: "date only", expiresAt: ptr("2030-01-02"), wantErr: true},
		{name: "no zone", expiresAt: ptr("2030-01-02T15:04:05"), wantErr: true},
		{name: "space separator", expiresAt: ptr("2030-01-02 15:04:05Z"), wantErr: true},
		{name: "unix seconds", expiresAt: ptr("1893456000"), wantErr: true},
		{name: "RFC 1123", expiresAt: ptr("Wed, 02 Jan 2030 15:04:05 GMT"), wantErr: true},
		{name: "month out of range", expiresAt: ptr("2030-13-02T15:04:05Z"), wantErr: true},
		{name: "words", expiresAt: ptr("tomorrow"), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := linkapi.CreateRequest{
				URL: "https://example.com/", Alias: "Sale", ExpiresAt: tt.expiresAt,
				TTLSeconds: ptr[int64](60), RedirectStatus: ptr(308),
			}

			got, err := req.Domain()

			if tt.wantErr {
				require.Error(t, err)
				var fe *link.FieldError
				require.True(t, errors.As(err, &fe), "want *link.FieldError, got %T", err)
				assert.Equal(t, "expires_at", fe.Field)
				assert.ErrorIs(t, err, link.ErrInvalid)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "https://example.com/", got.URL)
			assert.Equal(t, "Sale", got.Alias)
			assert.Equal(t, ptr[int64](60), got.TTLSeconds)
			assert.Equal(t, ptr(308), got.RedirectStatus)
			if tt.want == nil {
				assert.Nil(t, got.ExpiresAt)
				return
			}
			require.NotNil(t, got.ExpiresAt)
			assert.True(t, tt.want.Equal(*got.ExpiresAt), "want %s, got %s", tt.want, got.ExpiresAt)
		})
	}
}

func TestPresenterLink(t *testing.T) {
	paris := time.FixedZone("CET", 3600)
	created := time.Date(2025, 3, 1, 13, 0, 0, 123_456_789, paris)  // 12:00:00.123456789Z
	expires := time.Date(2030, 3, 1, 1, 30, 15, 999_000_000, paris) // 00:30:15.999Z
	tests := []struct {
		name      string
		presenter linkapi.Presenter
		link      link.Link
		want      linkapi.Link
	}{
		{
			name:      "generated code",
			presenter: linkapi.Presenter{BaseURL: "https://sho.rt"},
			link:      link.Link{Code: "aB3dE5f", URL: "https://example.com/x", CreatedAt: created, ExpiresAt: expires, RedirectStatus: 302},
			want: linkapi.Link{
				Code: "aB3dE5f", ShortURL: "https://sho.rt/aB3dE5f", URL: "https://example.com/x",
				CreatedAt: "2025-03-01T12:00:00.123456789Z", ExpiresAt: "2030-03-01T00:30:15Z", RedirectStatus: 302,
			},
		},
		{
			name:      "base URL with trailing slash",
			presenter: linkapi.Presenter{BaseURL: "https://sho.rt/"},
			link:      link.Link{Code: "aB3dE5f", CreatedAt: created, ExpiresAt: expires, RedirectStatus: 301},
			want: linkapi.Link{
				Code: "aB3dE5f", ShortURL: "https://sho.rt/aB3dE5f",
				CreatedAt: "2025-03-01T12:00:00.123456789Z", ExpiresAt: "2030-03-01T00:30:15Z", RedirectStatus: 301,
			},
		},
		{
			name:      "alias in display form",
			presenter: linkapi.Presenter{BaseURL: "http://localhost:3000"},
			link:      link.Link{Code: "spring-sale", Alias: "Spring-Sale", CreatedAt: created.Truncate(time.Second), ExpiresAt: expires},
			want: linkapi.Link{
				Code: "spring-sale", Alias: "Spring-Sale", ShortURL: "http://localhost:3000/Spring-Sale",
				CreatedAt: "2025-03-01T12:00:00Z", ExpiresAt: "2030-03-01T00:30:15Z",
			},
		},
		{
			name:      "alias spelt like a code shows its key",
			presenter: linkapi.Presenter{BaseURL: "https://sho.rt"},
			link:      link.Link{Code: "promo25", Alias: "Promo25", CreatedAt: created, ExpiresAt: expires},
			want: linkapi.Link{
				Code: "promo25", Alias: "Promo25", ShortURL: "https://sho.rt/promo25",
				CreatedAt: "2025-03-01T12:00:00.123456789Z", ExpiresAt: "2030-03-01T00:30:15Z",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.presenter.Link(tt.link)

			assert.Equal(t, tt.want, got)
			for _, ts := range []string{got.CreatedAt, got.ExpiresAt} {
				parsed, err := time.Parse(time.RFC3339, ts)
				require.NoError(t, err, "not RFC 3339: %s", ts)
				assert.Equal(t, time.UTC, parsed.Location(), "not UTC: %s", ts)
			}
		})
	}
}

func TestLinkJSONShape(t *testing.T) {
	tests := []struct {
		name     string
		link     linkapi.Link
		wantJSON string
	}{
		{
			name:     "generated code omits alias",
			link:     linkapi.Link{Code: "aB3dE5f", ShortURL: "https://sho.rt/aB3dE5f", URL: "https://example.com/", CreatedAt: "2025-03-01T12:00:00Z", ExpiresAt: "2030-03-01T12:00:00Z", RedirectStatus: 302},
			wantJSON: `{"code":"aB3dE5f","short_url":"https://sho.rt/aB3dE5f","url":"https://example.com/","created_at":"2025-03-01T12:00:00Z","expires_at":"2030-03-01T12:00:00Z","redirect_status":302}`,
		},
		{
			name:     "alias shown",
			link:     linkapi.Link{Code: "sale", Alias: "Sale", ShortURL: "https://sho.rt/Sale", URL: "https://example.com/", CreatedAt: "c", ExpiresAt: "e", RedirectStatus: 301},
			wantJSON: `{"code":"sale","alias":"Sale","short_url":"https://sho.rt/Sale","url":"https://example.com/","created_at":"c","expires_at":"e","redirect_status":301}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.link)
			require.NoError(t, err)
			assert.JSONEq(t, tt.wantJSON, string(b))
		})
	}
}

// TestServing: a request's presenter and rules are under the base URL and
// refuse the edge's hosts; a base URL or hosts that cannot be learnt are
// link.ErrUnavailable, and nil functions change nothing.
func TestServing(t *testing.T) {
	ctx := context.Background()
	base := linkapi.BaseURLFunc(func(context.Context) (string, error) { return "https://sho.rt", nil })
	hosts := linkapi.HostsFunc(func(context.Context) ([]string, error) { return []string{"d111.cloudfront.net", ""}, nil })
	p, r, err := linkapi.Serving(ctx, base, hosts, linkapi.Presenter{}, link.Rules{ShortDomains: []string{"own.example"}})
	require.NoError(t, err)
	assert.Equal(t, "https://sho.rt", p.BaseURL)
	assert.Equal(t, []string{"own.example", "sho.rt", "d111.cloudfront.net"}, r.ShortDomains)

	p, r, err = linkapi.Serving(ctx, nil, nil, linkapi.Presenter{BaseURL: "https://x.example"}, link.Rules{})
	require.NoError(t, err)
	assert.Equal(t, "https://x.example", p.BaseURL)
	assert.Empty(t, r.ShortDomains)

	down := errors.New("parameter store down")
	_, _, err = linkapi.Serving(ctx, func(context.Context) (string, error) { return "", down }, hosts, linkapi.Presenter{}, link.Rules{})
	assert.ErrorIs(t, err, link.ErrUnavailable)
	assert.ErrorIs(t, err, down)
	_, _, err = linkapi.Serving(ctx, base, func(context.Context) ([]string, error) { return nil, down }, linkapi.Presenter{}, link.Rules{})
	assert.ErrorIs(t, err, link.ErrUnavailable)
}
