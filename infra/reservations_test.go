package infra

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReservationRegions: the reservation table's three Regions come from
// one MRSC set, or the configuration is refused with a message that says
// which sets exist and how to keep writes in one Region instead.
func TestReservationRegions(t *testing.T) {
	tests := []struct {
		name string
		ctx  map[string]any
		want Reservation
		err  []string
	}{
		{name: "defaults: two US Regions and the third as witness", ctx: nil,
			want: Reservation{Replicas: []string{"us-east-1", "us-west-2"}, Witness: "us-east-2"}},
		{name: "three Regions of one set", ctx: map[string]any{CtxRegions: "eu-west-1,eu-central-1,eu-west-2"},
			want: Reservation{Replicas: []string{"eu-west-1", "eu-central-1", "eu-west-2"}}},
		{name: "a chosen witness", ctx: map[string]any{CtxRegions: "eu-west-1,eu-central-1", CtxWitnessRegion: "eu-west-3"},
			want: Reservation{Replicas: []string{"eu-west-1", "eu-central-1"}, Witness: "eu-west-3"}},
		{name: "one Region: none", ctx: map[string]any{CtxRegions: "eu-west-1"}, want: Reservation{}},
		{name: "switched off", ctx: map[string]any{CtxRegions: "eu-west-1,us-east-1", CtxReservations: false}, want: Reservation{}},
		{name: "two sets", ctx: map[string]any{CtxRegions: "eu-west-1,us-east-1"},
			err: []string{"not all from one MRSC Region set", "us-east-1, us-east-2, us-west-2", "-c reservations=false"}},
		{name: "four Regions", ctx: map[string]any{CtxRegions: "eu-west-1,eu-west-2,eu-west-3,eu-central-1"},
			err: []string{"exactly three Regions of one set"}},
		{name: "witness from another set", ctx: map[string]any{CtxWitnessRegion: "eu-west-1"},
			err: []string{`witnessRegion: "eu-west-1" must be a Region of the regions' MRSC set`}},
		{name: "witness is a replica", ctx: map[string]any{CtxWitnessRegion: "us-west-2"}, err: []string{"witnessRegion"}},
		{name: "witness with three Regions", ctx: map[string]any{CtxRegions: "us-east-1,us-east-2,us-west-2", CtxWitnessRegion: "us-east-2"},
			err: []string{"three replicas, or two and a witness"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := readConfig(tt.ctx)
			if len(tt.err) > 0 {
				require.Error(t, err)
				for _, w := range tt.err {
					assert.Contains(t, err.Error(), w)
				}
				return
			}
			require.NoError(t, err)
			got, err := c.Reservation()
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
