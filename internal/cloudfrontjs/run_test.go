package cloudfrontjs

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testBudget keeps the runaway cases short; it is a bound, never measured.
const testBudget = 50 * time.Millisecond

func testEvent() Event {
	return Event{
		Context: Context{DistributionDomainName: "d111111abcdef8.cloudfront.net", DistributionID: "EDFDVBD6EXAMPLE", RequestID: "req-1"},
		Viewer:  Viewer{IP: "198.51.100.7"},
		Request: Request{
			Method:      "GET",
			URI:         "/abc1234",
			Querystring: Values{"utm_source": {Value: "mail"}},
			Headers: Values{
				"host":              {Value: "sho.rt"},
				"user-agent":        {Value: "curl/8"},
				"x-forwarded-proto": {Value: "https"}, // disallowed: never shown
			},
			Cookies: Values{"session": {Value: "s1"}},
		},
	}
}

// header wraps a function body that computes a string s from event into a
// handler that returns it in the x-out request header.
func header(body string) string {
	return "function handler(event) {\n" + body + "\nevent.request.headers['x-out'] = { value: String(s) };\nreturn event.request;\n}\n"
}

func run(t *testing.T, src string, opts ...Option) (RequestResult, error) {
	t.Helper()
	f, err := Compile("test", src, append([]Option{WithBudget(testBudget)}, opts...)...)
	require.NoError(t, err)
	return f.ViewerRequest(context.Background(), testEvent())
}

func out(t *testing.T, res RequestResult) string {
	t.Helper()
	require.NotNil(t, res.Request)
	return res.Request.Headers["x-out"].Value
}

// TestEventShape: the function sees CloudFront's event structure.
func TestEventShape(t *testing.T) {
	tests := []struct{ expr, want string }{
		{"event.version", "1.0"},
		{"event.context.eventType", "viewer-request"},
		{"event.context.distributionDomainName", "d111111abcdef8.cloudfront.net"},
		{"event.context.distributionId", "EDFDVBD6EXAMPLE"},
		{"event.context.requestId", "req-1"},
		{"event.viewer.ip", "198.51.100.7"},
		{"event.request.method", "GET"},
		{"event.request.uri", "/abc1234"},
		{"event.request.querystring.utm_source.value", "mail"},
		{"event.request.headers.host.value", "sho.rt"},
		{"event.request.cookies.session.value", "s1"},
		{"Object.keys(event.request.headers).join(',')", "host,user-agent"},
		{"'response' in event", "false"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			res, err := run(t, header("const s = "+tt.expr+";"))
			require.NoError(t, err)
			assert.Equal(t, tt.want, out(t, res))
		})
	}
}

// TestRuntimeRestrictions: cloudfront-js-2.0's restricted features
// (functions-javascript-runtime-20.html, "Restricted features") and the
// globals it does not list.
func TestRuntimeRestrictions(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    string // x-out when there is no error
		wantErr []error
	}{
		{"eval", "const s = eval('1');", "", []error{ErrExecution, ErrUnsupported}},
		{"Function constructor", "const s = new Function('return 1')();", "", []error{ErrExecution, ErrUnsupported}},
		{"constructor of a function", "const s = (function () {}).constructor('return 1')();", "", []error{ErrExecution, ErrUnsupported}},
		{"constructor of an async function", "async function af() {}\nconst s = Object.getPrototypeOf(af).constructor('return 1');", "", []error{ErrExecution, ErrUnsupported}},
		{"Buffer", "const s = Buffer.from('a');", "", []error{ErrExecution, ErrUnsupported}},
		{"require in the handler", "const s = require('net');", "", []error{ErrExecution, ErrUnsupported}},
		{"no setTimeout", "const s = typeof setTimeout + typeof setInterval + typeof setImmediate + typeof clearTimeout;", "undefinedundefinedundefinedundefined", nil},
		{"no fetch or XMLHttpRequest", "const s = typeof fetch + typeof XMLHttpRequest;", "undefinedundefined", nil},
		{"no process", "const s = typeof process;", "undefined", nil},
		{"no Map, Set, WeakMap", "const s = typeof Map + typeof Set + typeof WeakMap;", "undefinedundefinedundefined", nil},
		{"no Symbol, Proxy, Reflect", "const s = typeof Symbol + typeof Proxy + typeof Reflect;", "undefinedundefinedundefined", nil},
		{"Promise, JSON, Math, typed arrays are there", "const s = typeof Promise + typeof JSON + typeof Math + typeof Uint8Array;", "functionobjectobjectfunction", nil},
		{"strict mode", "const s = (function () { return this === undefined; })();", "true", nil},
		{"runaway loop", "while (true) {}\nconst s = 1;", "", []error{ErrExecution, ErrComputeBudget}},
		{"runaway recursion", "function f(n) { return f(n + 1) + 1; }\nconst s = f(0);", "", []error{ErrExecution}},
		{"thrown error", "throw new TypeError('no');\nconst s = 1;", "", []error{ErrExecution}},
		{"unknown global", "const s = nope;", "", []error{ErrExecution}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := run(t, header(tt.body))
			if tt.wantErr == nil {
				require.NoError(t, err)
				assert.Equal(t, tt.want, out(t, res))
				return
			}
			for _, want := range tt.wantErr {
				assert.ErrorIs(t, err, want)
			}
			assert.NotErrorIs(t, err, ErrInvalidResult)
			assert.Equal(t, 503, StatusFor(err), "CloudFront answers a function execution error with a 503")
		})
	}
}

// TestDateIsFrozen: Date reads the time the invocation started, however
// long it runs.
func TestDateIsFrozen(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	src := header("const a = Date.now(); for (var i = 0; i < 1000; i++) {} const s = a === Date.now() && a === new Date().getTime() ? new Date().toISOString() : 'moved';")
	res, err := run(t, src, WithClock(func() time.Time { return at }))
	require.NoError(t, err)
	assert.Equal(t, "2026-03-04T05:06:07.000Z", out(t, res))
}

// TestNoStateBetweenInvocations: every call starts from the function's
// code, not from what an earlier call left in its globals.
func TestNoStateBetweenInvocations(t *testing.T) {
	f, err := Compile("counter", "var n = 0;\nconst k = 1;\nlet m = [];\n"+header("n++; m.push(k); const s = n + m.length;"))
	require.NoError(t, err)
	for range 3 {
		res, err := f.ViewerRequest(context.Background(), testEvent())
		require.NoError(t, err)
		assert.Equal(t, "2", out(t, res))
	}
}

// TestAsyncHandler: an async handler's promise is awaited; a rejected or
// never settled one is an execution error.
func TestAsyncHandler(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		wantErr bool
	}{
		{"resolves", "async function handler(event) { const u = await Promise.resolve('/x'); event.request.uri = u; return event.request; }", false},
		{"rejects", "async function handler(event) { throw new Error('no'); }", true},
		{"never settles", "function handler(event) { return new Promise(function () {}); }", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Compile(tt.name, tt.src)
			require.NoError(t, err)
			res, err := f.ViewerRequest(context.Background(), testEvent())
			if tt.wantErr {
				assert.ErrorIs(t, err, ErrExecution)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "/x", res.Request.URI)
		})
	}
}

// TestContextStopsTheFunction: a cancelled context interrupts it like the
// budget does.
func TestContextStopsTheFunction(t *testing.T) {
	f, err := Compile("loop", "function handler(event) { while (true) {} }", WithBudget(time.Hour))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = f.ViewerRequest(ctx, testEvent())
	assert.ErrorIs(t, err, ErrExecution)
	assert.ErrorIs(t, err, context.Canceled)
}

// TestConsoleLog: lines reach the log, an invocation's truncated at 10 KB.
func TestConsoleLog(t *testing.T) {
	var lines []string
	logTo := WithLog(func(name, line string) { lines = append(lines, name+": "+line) })
	_, err := run(t, header("console.log('uri', event.request.uri, 1); const s = 1;"), logTo)
	require.NoError(t, err)
	assert.Equal(t, []string{"test: uri /abc1234 1"}, lines)

	lines = nil
	_, err = run(t, header("for (var i = 0; i < 30; i++) { console.log('x'.repeat(1000)); } const s = 1;"), logTo)
	require.NoError(t, err)
	n := 0
	for _, l := range lines {
		n += len(l) - len("test: ")
	}
	assert.Equal(t, MaxLogBytes, n)
}
