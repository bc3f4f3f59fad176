package edgecache

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// manualTimer holds every batch window open until the test fires it, so
// "calls made within the window" is exact rather than a race with a clock.
type manualTimer struct {
	mu  sync.Mutex
	fns []func()
}

func (m *manualTimer) after(_ time.Duration, f func()) func() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.fns = append(m.fns, f)
	return func() bool { return true }
}

// fire ends the i-th window opened.
func (m *manualTimer) fire(t *testing.T, i int) {
	t.Helper()
	m.mu.Lock()
	require.Greater(t, len(m.fns), i, "window %d was never opened", i)
	f := m.fns[i]
	m.mu.Unlock()
	f()
}

func (m *manualTimer) opened() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.fns)
}

func newTestCloudFront(t *testing.T, api *fakeAPI, maxPaths int) (*CloudFront, *manualTimer) {
	t.Helper()
	c, err := NewCloudFront(api, CloudFrontConfig{DistributionID: "E2EXAMPLE0ABCD", MaxPaths: maxPaths})
	require.NoError(t, err)
	timer := &manualTimer{}
	c.after = timer.after
	return c, timer
}

// waitForWaiters blocks until n callers have joined the open batch.
func waitForWaiters(t *testing.T, c *CloudFront, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.open != nil && c.open.waiters == n
	}, 5*time.Second, time.Millisecond, "callers never joined the batch")
}

// invalidateAll starts one Invalidate per path list and returns their errors
// once all have returned.
func invalidateAll(ctx context.Context, c *CloudFront, calls [][]string) func() []error {
	errs := make([]error, len(calls))
	var wg sync.WaitGroup
	for i, paths := range calls {
		wg.Go(func() { errs[i] = c.Invalidate(ctx, paths...) })
	}
	return func() []error { wg.Wait(); return errs }
}

func TestCloudFrontMergesConcurrentCallsIntoOneInvalidation(t *testing.T) {
	api := &fakeAPI{}
	c, timer := newTestCloudFront(t, api, 0)
	const n = 20
	calls := make([][]string, n)
	for i := range calls {
		// "code3" and "/code3" are the same path once cleaned.
		calls[i] = []string{"/shared", fmt.Sprintf("/code%d", i%5), fmt.Sprintf("code%d", i%5)}
	}

	wait := invalidateAll(context.Background(), c, calls)
	waitForWaiters(t, c, n)
	assert.Empty(t, api.recorded(), "nothing is sent while the window is open")
	timer.fire(t, 0)

	for i, err := range wait() {
		assert.NoError(t, err, "caller %d", i)
	}
	got := api.recorded()
	require.Len(t, got, 1, "one CreateInvalidation for the whole batch")
	assert.Equal(t, []string{"/code0", "/code1", "/code2", "/code3", "/code4", "/shared"}, got[0].paths)
	assert.Equal(t, int32(6), got[0].quantity)
	assert.Equal(t, "E2EXAMPLE0ABCD", got[0].distribution)
	assert.True(t, got[0].hasDeadline, "the call is bounded by the batch's own timeout")
	assert.Equal(t, 1, timer.opened(), "every caller joined the first window")
}

func TestCloudFrontErrorReachesEveryCallerOfTheBatch(t *testing.T) {
	boom := errors.New("TooManyInvalidationsInProgress")
	api := &fakeAPI{err: boom}
	c, timer := newTestCloudFront(t, api, 0)
	calls := [][]string{{"/a"}, {"/b"}, {"/a", "/c"}, {"/d"}, {"/e"}}

	wait := invalidateAll(context.Background(), c, calls)
	waitForWaiters(t, c, len(calls))
	timer.fire(t, 0)

	for i, err := range wait() {
		require.Error(t, err, "caller %d", i)
		assert.ErrorIs(t, err, boom, "caller %d", i)
		assert.Contains(t, err.Error(), "E2EXAMPLE0ABCD")
	}
	assert.Len(t, api.recorded(), 1)
}

func TestCloudFrontCallerThatGivesUpDoesNotCancelTheBatch(t *testing.T) {
	api := &fakeAPI{release: make(chan struct{}), started: make(chan struct{}, 1)}
	c, timer := newTestCloudFront(t, api, 0)
	impatient, cancel := context.WithCancel(context.Background())
	defer cancel()

	impatientErr := make(chan error, 1)
	go func() { impatientErr <- c.Invalidate(impatient, "/a") }()
	patient := invalidateAll(context.Background(), c, [][]string{{"/b"}})
	waitForWaiters(t, c, 2)
	timer.fire(t, 0)
	<-api.started

	cancel()
	select {
	case err := <-impatientErr:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("Invalidate did not return when its context was canceled")
	}
	close(api.release)
	assert.NoError(t, patient()[0], "the other caller still gets its batch's answer")
	got := api.recorded()
	require.Len(t, got, 1)
	assert.Equal(t, []string{"/a", "/b"}, got[0].paths, "the impatient caller's path was still sent")
}

func TestCloudFrontEndedContextSendsNothing(t *testing.T) {
	api := &fakeAPI{}
	c, timer := newTestCloudFront(t, api, 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	err := c.Invalidate(ctx, "/a")

	assert.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, timer.opened(), "no batch was opened")
	assert.Empty(t, api.recorded())
}

func TestCloudFrontDeadlineBoundsTheWait(t *testing.T) {
	api := &fakeAPI{release: make(chan struct{})}
	defer close(api.release)
	c, _ := newTestCloudFront(t, api, 0) // the window is never fired
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()

	start := time.Now()
	err := c.Invalidate(ctx, "/a")

	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 5*time.Second)
}

func TestCloudFrontSendsAFullBatchAtOnceAndSplitsLargeCalls(t *testing.T) {
	api := &fakeAPI{}
	c, timer := newTestCloudFront(t, api, 3)
	paths := []string{"/p1", "/p2", "/p3", "/p4", "/p5", "/p6", "/p7", "/p1"}

	wait := invalidateAll(context.Background(), c, [][]string{paths})
	require.Eventually(t, func() bool { return len(api.recorded()) == 2 }, 5*time.Second, time.Millisecond,
		"the two full batches go without waiting for their windows")
	waitForWaiters(t, c, 1)
	timer.fire(t, 2) // the third batch, holding /p7, waits for its window

	assert.NoError(t, wait()[0])
	got := api.recorded()
	require.Len(t, got, 3)
	var all []string
	for _, call := range got {
		assert.LessOrEqual(t, len(call.paths), 3)
		assert.Equal(t, int32(len(call.paths)), call.quantity)
		all = append(all, call.paths...)
	}
	slices.Sort(all)
	assert.Equal(t, []string{"/p1", "/p2", "/p3", "/p4", "/p5", "/p6", "/p7"}, all, "each path once")
}

func TestCloudFrontWindowWithARealTimer(t *testing.T) {
	api := &fakeAPI{}
	c, err := NewCloudFront(api, CloudFrontConfig{DistributionID: "E2EXAMPLE0ABCD", Window: 5 * time.Millisecond})
	require.NoError(t, err)

	require.NoError(t, c.Invalidate(context.Background(), "/first"))
	require.NoError(t, c.Invalidate(context.Background(), "/second"))

	got := api.recorded()
	require.Len(t, got, 2, "a call after a batch was sent opens the next one")
	assert.Equal(t, []string{"/first"}, got[0].paths)
	assert.Equal(t, []string{"/second"}, got[1].paths)
	assert.NotEqual(t, got[0].reference, got[1].reference, "CallerReference is unique per invalidation")
	assert.Regexp(t, `^shortener-\d+-[A-Z2-7]+$`, got[0].reference)
}

func TestCloudFrontRefusesBadInput(t *testing.T) {
	_, err := NewCloudFront(&fakeAPI{}, CloudFrontConfig{})
	assert.Error(t, err, "a distribution id is required")

	api := &fakeAPI{}
	c, timer := newTestCloudFront(t, api, 0)
	assert.Error(t, c.Invalidate(context.Background(), "/a*b"))
	assert.NoError(t, c.Invalidate(context.Background()), "no paths, nothing to do")
	assert.Zero(t, timer.opened())
	assert.Empty(t, api.recorded())
}
