package infra_test

import (
	"path/filepath"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/infra"
)

// recordedDefaults is what `-c record=true` records for cdk.json's
// defaults in the test account.
var recordedDefaults = infra.Deployments{Installs: []infra.Install{{
	Account: testAccount, AppName: "Shortener", PrimaryRegion: "us-east-1", Regions: []string{"us-east-1", "us-west-2"},
	OwnerIndexProjection: "INCLUDE",
}}}

// An installation recorded before the by-owner index's projection was a
// setting has an index projecting ALL: the INCLUDE default would fail its
// update, so synthesis refuses it and names the context that keeps it.
func TestRecordedDeploymentKeepsTheOwnerIndexProjection(t *testing.T) {
	old := infra.Deployments{Installs: []infra.Install{recordedDefaults.Installs[0]}}
	old.Installs[0].OwnerIndexProjection = ""
	err := buildWith(t, old, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `ownerIndexProjection "INCLUDE": Shortener's by-owner index was recorded with projection ALL`)
	assert.Contains(t, err.Error(), "-c ownerIndexProjection=ALL")
	assert.NoError(t, buildWith(t, old, map[string]any{infra.CtxOwnerIndexProjection: "ALL"}))
}

// buildWith builds (without synthesizing) cdk.json's app with overrides,
// against recorded.
func buildWith(t *testing.T, recorded infra.Deployments, overrides map[string]any) error {
	t.Helper()
	require.NoError(t, setup())
	ctx, err := cdkJSONContext()
	require.NoError(t, err)
	ctx[infra.CtxAccount] = testAccount
	ctx[infra.CtxAssetDir] = assetDir
	for k, v := range overrides {
		ctx[k] = v
	}
	app := awscdk.NewApp(&awscdk.AppProps{Context: &ctx, Outdir: jsii.String(t.TempDir())})
	cfg, err := infra.ConfigFromContext(app.Node())
	require.NoError(t, err)
	cfg.Deployments = recorded
	_, err = infra.Build(app, cfg)
	return err
}

// A context change that would replace or orphan a stateful resource fails
// the synthesis, saying what would be lost and how to do it safely.
func TestRecordedDeploymentRefusesDestructiveChanges(t *testing.T) {
	tests := []struct {
		name      string
		overrides map[string]any
		want      []string
	}{
		{name: "primaryRegion moved", overrides: map[string]any{infra.CtxPrimaryRegion: "us-west-2"},
			want: []string{`primaryRegion "us-west-2": Shortener-Data was recorded in us-east-1`,
				"new, empty links, keys, idempotency and analytics tables", "click stream",
				"tables in us-east-1 are orphaned", "To move the primary safely", "Recorded deployment"}},
		{name: "appName changed", overrides: map[string]any{infra.CtxAppName: "Shorty"},
			want: []string{`appName "Shorty": account 123456789012 has "Shortener" recorded in deployment.json`,
				"create a second, empty one", "new links, keys, idempotency and analytics tables",
				"To keep the data, deploy with -c appName=Shortener", "-c appName=Shorty -c record=true"}},
		{name: "region removed", overrides: map[string]any{infra.CtxRegions: []any{"us-east-1", "eu-west-1"}, infra.CtxReservations: false},
			want: []string{"regions: us-west-2 is recorded for Shortener (deployment.json) but no longer listed",
				"lose their replica in us-west-2", "Shortener-Regional-us-west-2", "To remove a region safely"}},
		{name: "region removed even when recording", overrides: map[string]any{infra.CtxRegions: []any{"us-east-1"}, infra.CtxRecord: true},
			want: []string{"regions: us-west-2 is recorded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := buildWith(t, recordedDefaults, tt.overrides)
			require.Error(t, err)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestRecordedDeploymentAllowsSafeChanges(t *testing.T) {
	// Adding a region: the custom app has three regions, two recorded.
	c := custom.get(t)
	assert.Len(t, c.stacks.Regional, 3)
	// A setting that decides no stateful resource.
	assert.NoError(t, buildWith(t, recordedDefaults, map[string]any{infra.CtxEdgeTTLSeconds: 3600}))
}

func TestDeploymentsCheckAndRecord(t *testing.T) {
	cfg := infra.DefaultConfig()
	cfg.Account = testAccount
	other := cfg
	other.Account = "999999999999"
	tests := []struct {
		name    string
		cfg     infra.Config
		adding  bool
		wantErr string
	}{
		{name: "nothing recorded for the account (first deploy, CI's placeholder)", cfg: other},
		{name: "as recorded", cfg: cfg},
		{name: "a region added", cfg: func() infra.Config { c := cfg; c.Regions = []string{"us-east-1", "us-west-2", "eu-west-1"}; return c }()},
		{name: "failover changed", cfg: func() infra.Config { c := cfg; c.FailoverRegion = ""; return c }()},
		{name: "a second installation, recorded on purpose", cfg: func() infra.Config { c := cfg; c.AppName = "Staging"; return c }(), adding: true},
		{name: "a second installation, not recorded", cfg: func() infra.Config { c := cfg; c.AppName = "Staging"; return c }(),
			wantErr: `appName "Staging"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := recordedDefaults.Check(tt.cfg, tt.adding)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			assert.NoError(t, err)
		})
	}

	// Recording a region added updates the installation; a second appName
	// is added beside it; the file round-trips.
	grown := cfg
	grown.Regions = []string{"us-east-1", "us-west-2", "eu-west-1"}
	rec, err := recordedDefaults.Record(grown)
	require.NoError(t, err)
	staging := cfg
	staging.AppName = "Staging"
	rec, err = rec.Record(staging)
	require.NoError(t, err)
	assert.Equal(t, []infra.Install{
		{Account: testAccount, AppName: "Shortener", PrimaryRegion: "us-east-1", Regions: []string{"us-east-1", "us-west-2", "eu-west-1"},
			OwnerIndexProjection: "INCLUDE"},
		// The defaults' reservation table: two replicas and a witness.
		{Account: testAccount, AppName: "Staging", PrimaryRegion: "us-east-1", Regions: []string{"us-east-1", "us-west-2"},
			ReservationRegions: []string{"us-east-1", "us-west-2", "witness:us-east-2"}, OwnerIndexProjection: "INCLUDE"},
	}, rec.Installs, "the projection is recorded with the installation")
	path := filepath.Join(t.TempDir(), infra.DeploymentFile)
	require.NoError(t, rec.Write(path))
	back, err := infra.ReadDeployments(path)
	require.NoError(t, err)
	assert.Equal(t, rec, back)
	none, err := infra.ReadDeployments(filepath.Join(t.TempDir(), "missing.json"))
	require.NoError(t, err)
	assert.Empty(t, none.Installs)

	moved := cfg
	moved.PrimaryRegion = "us-west-2"
	_, err = recordedDefaults.Record(moved)
	assert.ErrorContains(t, err, "primaryRegion", "recording never accepts a destructive change")
}
