package edgecache

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDeferredLearnsTheDistributionAtTheFirstInvalidation(t *testing.T) {
	api := &fakeAPI{}
	asked := 0
	id := "E2FIRST"
	d := &Deferred{API: api, ID: func(context.Context) (string, error) { asked++; return id, nil }}
	assert.Zero(t, asked, "nothing is looked up before an invalidation")

	require.NoError(t, d.Invalidate(context.Background(), "/abc"))
	require.NoError(t, d.Invalidate(context.Background(), "/def"))
	id = "E2REPLACED"
	require.NoError(t, d.Invalidate(context.Background(), "/ghi"))

	calls := api.recorded()
	require.Len(t, calls, 3)
	assert.Equal(t, []string{"E2FIRST", "E2FIRST", "E2REPLACED"},
		[]string{calls[0].distribution, calls[1].distribution, calls[2].distribution})
	assert.Equal(t, []string{"/ghi"}, calls[2].paths)
}

func TestDeferredFailsWithoutADistribution(t *testing.T) {
	api := &fakeAPI{}
	d := &Deferred{API: api, ID: func(context.Context) (string, error) { return "", errors.New("ParameterNotFound") }}
	err := d.Invalidate(context.Background(), "/abc")
	require.ErrorContains(t, err, "ParameterNotFound")
	assert.Empty(t, api.recorded())
}
