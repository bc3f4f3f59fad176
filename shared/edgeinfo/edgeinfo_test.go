package edgeinfo

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeSSM answers Get from value, or err, and counts the calls.
type fakeSSM struct {
	value string
	err   error
	names []string
}

func (f *fakeSSM) Get(_ context.Context, name string) (string, error) {
	f.names = append(f.names, name)
	if f.err != nil {
		return "", f.err
	}
	return f.value, nil
}

const published = `{"distributionId":"E2EXAMPLE12345","domainName":"d111111abcdef8.cloudfront.net"}`

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		value   string
		want    Info
		wantErr string
	}{
		{name: "published", value: published, want: Info{DistributionID: "E2EXAMPLE12345", DomainName: "d111111abcdef8.cloudfront.net"}},
		{name: "trailing dot", value: `{"distributionId":"E1","domainName":"d1.cloudfront.net."}`, want: Info{DistributionID: "E1", DomainName: "d1.cloudfront.net"}},
		{name: "no id", value: `{"domainName":"d1.cloudfront.net"}`, wantErr: "no distributionId"},
		{name: "no domain", value: `{"distributionId":"E1"}`, wantErr: "domainName"},
		{name: "a URL, not a host", value: `{"distributionId":"E1","domainName":"https://d1.cloudfront.net"}`, wantErr: "not a host name"},
		{name: "not JSON", value: `E1`, wantErr: "edge parameter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.value)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestInfoBaseURL(t *testing.T) {
	assert.Equal(t, "https://d1.cloudfront.net", Info{DomainName: "d1.cloudfront.net"}.BaseURL())
}

// clock is a settable clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestParameterReadsOnceAndKeepsItForRefresh(t *testing.T) {
	api := &fakeSSM{value: published}
	c := &clock{t: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	p := &Parameter{API: api, Name: "/Shortener/edge", Refresh: time.Minute, Now: c.now}
	assert.Empty(t, api.names, "nothing is read before it is asked for")

	for range 3 {
		got, err := p.Info(context.Background())
		require.NoError(t, err)
		assert.Equal(t, "E2EXAMPLE12345", got.DistributionID)
	}
	assert.Equal(t, []string{"/Shortener/edge"}, api.names, "one read serves every call within Refresh")

	c.t = c.t.Add(time.Minute)
	api.value = `{"distributionId":"E2NEWDIST","domainName":"d2.cloudfront.net"}`
	got, err := p.Info(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "E2NEWDIST", got.DistributionID, "a replaced distribution is learnt after Refresh")
	assert.Len(t, api.names, 2)
}

func TestParameterRetriesAFailedFirstRead(t *testing.T) {
	api := &fakeSSM{err: errors.New("ParameterNotFound")}
	p := &Parameter{API: api, Name: "/Shortener/edge"}
	_, err := p.Info(context.Background())
	require.ErrorContains(t, err, "/Shortener/edge")

	api.err = nil
	api.value = published
	got, err := p.Info(context.Background())
	require.NoError(t, err, "a failure is not kept: the edge stack may have deployed since")
	assert.Equal(t, "E2EXAMPLE12345", got.DistributionID)
}

func TestParameterRefusesAMalformedValue(t *testing.T) {
	p := &Parameter{API: &fakeSSM{value: `{"distributionId":""}`}, Name: "/Shortener/edge"}
	_, err := p.Info(context.Background())
	require.ErrorContains(t, err, "no distributionId")
}

func TestParameterKeepsItsValueWhenARefreshFails(t *testing.T) {
	api := &fakeSSM{value: published}
	c := &clock{t: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	p := &Parameter{API: api, Name: "/Shortener/edge", Refresh: time.Minute, Now: c.now}
	_, err := p.Info(context.Background())
	require.NoError(t, err)

	c.t = c.t.Add(2 * time.Minute)
	api.err = errors.New("throttled")
	got, err := p.Info(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "E2EXAMPLE12345", got.DistributionID)
	_, err = p.Info(context.Background())
	require.NoError(t, err)
	assert.Len(t, api.names, 2, "after a failed refresh the next read waits another period")
}

func TestStatic(t *testing.T) {
	want := Info{DistributionID: "LOCAL", DomainName: "127.0.0.1"}
	got, err := Static(want).Info(context.Background())
	require.NoError(t, err)
	assert.Equal(t, want, got)
}
