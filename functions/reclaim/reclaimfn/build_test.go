package reclaimfn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/reclaim/reclaimfn"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/fnclients/fntest"
	"github.com/shortlink-dev/shortener/shared/linkstore"
)

func TestBuildNamesEachMissingSetting(t *testing.T) {
	fntest.Requires(t, reclaimfn.Build, "LINKS_TABLE")
}

// TestReservationTableGoesInFront: with RESERVATION_TABLE, reclaim's
// releases give the code back in the reservation table first; without it,
// the links store alone answers, as in a deployment with one write Region.
func TestReservationTableGoesInFront(t *testing.T) {
	with := fntest.Load(t)
	with.ReservationTable = "reservations"
	h, err := reclaimfn.Build(with, fntest.Lambda())
	require.NoError(t, err)
	assert.IsType(t, &linkstore.Reserved{}, h.Store)

	h, err = reclaimfn.Build(fntest.Load(t), fntest.Lambda())
	require.NoError(t, err)
	assert.IsType(t, &dynamo.LinkStore{}, h.Store)
}
