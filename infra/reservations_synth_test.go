package infra_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/infra"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// mrscSets are AWS's MRSC Region sets, written out here rather than read
// from infra, so the test checks the rule rather than repeat the code.
var mrscSets = [][]string{
	{"us-east-1", "us-east-2", "us-west-2"},
	{"eu-west-1", "eu-west-2", "eu-west-3", "eu-central-1"},
	{"ap-northeast-1", "ap-northeast-2", "ap-northeast-3"},
}

// TestReservationTableIsMRSC: the default deployment's reservation table is
// one MRSC global table over three Regions of one set (two replicas and a
// witness), with none of what MRSC refuses (TTL, local secondary indexes)
// and the schema the local run creates.
func TestReservationTableIsMRSC(t *testing.T) {
	s := defaults.get(t)
	found := s.data().resourcesNamed("AWS::DynamoDB::GlobalTable", "TablesReservations")
	require.Len(t, found, 1)
	p := found[0].Props
	assert.Equal(t, "STRONG", p["MultiRegionConsistency"])

	var regions []string
	for _, r := range asSlice(p["Replicas"]) {
		regions = append(regions, get(r, "Region").(string))
	}
	var witnesses []string
	for _, w := range asSlice(p["GlobalTableWitnesses"]) {
		witnesses = append(witnesses, get(w, "Region").(string))
	}
	assert.ElementsMatch(t, []string{"us-east-1", "us-west-2"}, regions)
	assert.Equal(t, []string{"us-east-2"}, witnesses)
	all := append(slices.Clone(regions), witnesses...)
	require.Len(t, all, 3, "an MRSC table has exactly three Regions")
	inOneSet := false
	for _, set := range mrscSets {
		ok := true
		for _, r := range all {
			ok = ok && slices.Contains(set, r)
		}
		inOneSet = inOneSet || ok
	}
	assert.True(t, inOneSet, "%v are not of one MRSC set", all)

	assert.Nil(t, p["TimeToLiveSpecification"], "MRSC has no TTL")
	assert.Nil(t, p["LocalSecondaryIndexes"], "MRSC has no LSI")
	for _, r := range asSlice(p["Replicas"]) {
		assert.Equal(t, true, get(r, "DeletionProtectionEnabled"), "every replica is protected")
	}
	want := localSchema(localtable.Input("t", tableschema.Reservations()), "")
	got := deployedSchema(p)
	got.StreamView = "" // replication's business, not read by us
	assert.Equal(t, want, got)

	// custom: three Regions of one set, three replicas and no witness.
	three := custom.get(t).data().resourcesNamed("AWS::DynamoDB::GlobalTable", "TablesReservations")
	require.Len(t, three, 1)
	assert.Equal(t, "STRONG", three[0].Props["MultiRegionConsistency"])
	var replicas []string
	for _, r := range asSlice(three[0].Props["Replicas"]) {
		replicas = append(replicas, get(r, "Region").(string))
	}
	assert.ElementsMatch(t, custom.get(t).cfg.Regions, replicas)
	assert.Nil(t, three[0].Props["GlobalTableWitnesses"], "three replicas: no witness")
	assert.True(t, slices.ContainsFunc(mrscSets, func(set []string) bool {
		return !slices.ContainsFunc(replicas, func(r string) bool { return !slices.Contains(set, r) })
	}), "%v are not of one MRSC set", replicas)
}

// TestReservationTablePITR: pitrReservations places point-in-time recovery
// on the reservation table's replicas: by default on the primary Region's
// replica alone (its backups restore the whole table), with "all" on every
// replica.
func TestReservationTablePITR(t *testing.T) {
	pitr := func(s *synthesized) map[string]bool {
		out := map[string]bool{}
		for _, r := range s.data().resources("AWS::DynamoDB::GlobalTable") {
			if !strings.HasPrefix(r.ID, "TablesReservations") {
				continue
			}
			for _, rep := range asSlice(r.Props["Replicas"]) {
				out[get(rep, "Region").(string)], _ = get(rep, "PointInTimeRecoverySpecification", "PointInTimeRecoveryEnabled").(bool)
			}
		}
		return out
	}
	assert.Equal(t, map[string]bool{"us-east-1": true, "us-west-2": false}, pitr(defaults.get(t)), "primary only by default")
	assert.Equal(t, map[string]bool{"us-east-1": true, "us-west-2": true}, pitr(levers.get(t)), "pitrReservations=all")
}

// TestReservationGrants: create, manage and reclaim get the reservation
// table's name and only the calls each makes, on their Region's replica;
// no other function touches it.
func TestReservationGrants(t *testing.T) {
	s := defaults.get(t)
	reg := s.regional("us-east-1")
	want := map[string][]string{
		"create":  {"dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"},
		"manage":  {"dynamodb:PutItem", "dynamodb:UpdateItem"},
		"reclaim": {"dynamodb:DeleteItem"},
	}
	for _, fn := range reg.resources("AWS::Lambda::Function") {
		name := ""
		for n := range want {
			if strings.HasPrefix(fn.ID, strings.ToUpper(n[:1])+n[1:]+"Function") {
				name = n
			}
		}
		env := toJSON(get(fn.Props, "Environment", "Variables"))
		stmts, _ := reg.roleStatements(fn)
		var actions []string
		for _, st := range stmts {
			if strings.Contains(st.Resources, "Reservations") {
				actions = append(actions, st.Actions...)
				assert.Contains(t, st.Resources, ":us-east-1:", "%s: this Region's replica only", fn.ID)
				assert.NotContains(t, st.Resources, "*", "%s: no wildcard", fn.ID)
			}
		}
		slices.Sort(actions)
		if name == "" {
			assert.Empty(t, actions, "%s has no business with the reservation table", fn.ID)
			assert.NotContains(t, env, "RESERVATION_TABLE", fn.ID)
			continue
		}
		assert.Equal(t, want[name], actions, name)
		assert.Contains(t, env, "RESERVATION_TABLE", name)
	}
}

// TestRecordedReservationRegions: the reservation table's Regions are
// fixed when it is created, so a change of them against the recorded
// deployment fails with what would be lost.
func TestRecordedReservationRegions(t *testing.T) {
	recorded := infra.Deployments{Installs: []infra.Install{{
		Account: testAccount, AppName: "Shortener", PrimaryRegion: "us-east-1", Regions: []string{"us-east-1", "us-west-2"},
		ReservationRegions: []string{"us-east-1", "us-west-2", "witness:us-east-2"},
		// Recorded with the defaults' projection, so only the Regions differ.
		OwnerIndexProjection: "INCLUDE",
	}}}
	require.NoError(t, buildWith(t, recorded, map[string]any{}), "unchanged")
	tests := []struct {
		name      string
		overrides map[string]any
	}{
		{name: "the witness becomes a replica", overrides: map[string]any{infra.CtxRegions: []any{"us-east-1", "us-west-2", "us-east-2"}}},
		{name: "switched off", overrides: map[string]any{infra.CtxReservations: false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := buildWith(t, recorded, tt.overrides)
			require.Error(t, err)
			for _, w := range []string{"the reservation table of Shortener was recorded in", "replace it with an empty one",
				"creates would reissue codes still in use", "Recorded deployment"} {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}
