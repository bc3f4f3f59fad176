package reclaimfn_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/functions/reclaim/reclaimfn"
	"github.com/shortlink-dev/shortener/internal/localedge"
	"github.com/shortlink-dev/shortener/shared/cfkvs"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/edgeversion"
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

// TestVersionKeysAddTheSweep: with EDGE_VERSION_KEYS reclaim sweeps the
// version store the edge parameter names, learnt when first needed (so
// the parameter is required), on the redirect's edge life and the
// margin; a store given in Clients (the local run's) is swept as is;
// without either there is no sweep.
func TestVersionKeysAddTheSweep(t *testing.T) {
	const arn = "arn:aws:cloudfront::123456789012:key-value-store/a1b2c3d4-5678-90ab-cdef-EXAMPLE11111"
	h, err := reclaimfn.Build(fntest.Load(t), fntest.Lambda())
	require.NoError(t, err)
	assert.Nil(t, h.Versions, "off unless set")

	cfg := fntest.Load(t)
	cfg.EdgeVersionKeys = true
	src := fntest.Edge()
	c := fntest.Lambda()
	c.EdgeInfo = src
	h, err = reclaimfn.Build(cfg, c)
	require.NoError(t, err)
	require.NotNil(t, h.Versions)
	assert.Equal(t, 24*time.Hour, h.Versions.EdgeLife, "SHORTENER_EDGE_TTL")
	assert.Equal(t, edgeversion.DefaultSweepMargin, h.Versions.Margin)
	assert.IsType(t, &cfkvs.Client{}, h.Versions.API)
	assert.Zero(t, src.Reads, "nothing is read at start-up")
	_, err = h.Versions.StoreARN(context.Background())
	assert.ErrorContains(t, err, "names no version store")
	src.Edge.VersionStoreARN = arn
	got, err := h.Versions.StoreARN(context.Background())
	require.NoError(t, err)
	assert.Equal(t, arn, got)

	noParam := fntest.Load(t, "EDGE_PARAMETER")
	noParam.EdgeVersionKeys = true
	_, err = reclaimfn.Build(noParam, fntest.Lambda())
	assert.ErrorContains(t, err, "EDGE_PARAMETER is not set")

	local := fntest.Lambda()
	kvs := localedge.NewKeyValueStore(-1, nil)
	local.VersionStore, local.VersionStoreARN = kvs, "arn:local"
	h, err = reclaimfn.Build(fntest.Load(t, "EDGE_PARAMETER"), local)
	require.NoError(t, err)
	require.NotNil(t, h.Versions)
	assert.Same(t, kvs, h.Versions.API)
	assert.Equal(t, "arn:local", h.Versions.ARN)
}
