package cloudfrontjs

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
)

// Limits that Compile and the calls enforce
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/cloudfront-limits.html#limits-functions).
const (
	// MaxSourceBytes is the largest function: 10 KB of code.
	MaxSourceBytes = 10 * 1024
	// MaxGeneratedResponseBytes bounds a response a function generates,
	// headers and body: 40 KB. AWS states it for the responses Lambda@Edge
	// viewer functions generate (#limits-lambda-at-edge); for CloudFront
	// Functions, whose generated responses travel the same viewer path,
	// this package applies the same bound rather than none.
	MaxGeneratedResponseBytes = 40 * 1024
	// MaxLogBytes is where CloudFront truncates an invocation's logs
	// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/cloudfront-function-restrictions.html).
	MaxLogBytes = 10 * 1024
)

// DefaultBudget is how long an invocation may run before it is stopped.
// CloudFront stops a function at 100% compute utilization, a share of a
// maximum time it does not publish, in the order of a millisecond
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/cloudfront-function-restrictions.html).
// Here the bound is wall-clock time, which a busy machine stretches (an
// edge test with 8 concurrent viewers on a loaded laptop saw 200 ms run
// out), so it is generous: it is there to turn a runaway loop into the
// 503 CloudFront answers, not to measure. WithBudget sets another.
const DefaultBudget = time.Second

// maxCallStack bounds recursion, which would otherwise grow until the
// budget stops it.
const maxCallStack = 512

// The load-time errors of Compile.
var (
	// ErrTooLarge: the source is over MaxSourceBytes.
	ErrTooLarge = errors.New("function is larger than 10 KB")
	// ErrSyntax: the source does not parse.
	ErrSyntax = errors.New("function does not parse")
	// ErrUnsupported: the function uses a language feature, global or
	// module cloudfront-js-2.0 does not have, or one this package does not
	// model. At run time it comes wrapped in ErrExecution.
	ErrUnsupported = errors.New("not supported by cloudfront-js-2.0 here")
	// ErrNoHandler: the code defines no function named handler.
	ErrNoHandler = errors.New("function defines no handler")
)

// The run-time errors of ViewerRequest and ViewerResponse.
var (
	// ErrExecution: the function threw, its promise was rejected or never
	// settled, or it ran out of its budget. CloudFront answers 503
	// (FunctionExecutionError).
	ErrExecution = errors.New("function execution error")
	// ErrComputeBudget comes with ErrExecution when the budget ran out.
	ErrComputeBudget = errors.New("function ran past its compute budget")
	// ErrInvalidResult: what the function returned is not a valid request
	// or response for its event. CloudFront answers 502
	// (FunctionValidationError).
	ErrInvalidResult = errors.New("function result failed validation")
)

// StatusFor is the status CloudFront answers the viewer when a function
// fails with err: 502 for a result that fails validation, 503 otherwise
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/http-502-bad-gateway.html,
// https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/http-503-service-unavailable.html).
func StatusFor(err error) int {
	if errors.Is(err, ErrInvalidResult) {
		return 502
	}
	return 503
}

// Function is a compiled CloudFront Function. It is safe for concurrent
// use: each invocation runs in an engine of its own.
type Function struct {
	name   string
	prg    *goja.Program
	budget time.Duration
	now    func() time.Time
	log    func(name, line string)
	kvs    KeyValueStore

	engines sync.Pool // of *engine
}

// Option configures a Function.
type Option func(*Function)

// WithBudget sets how long an invocation may run (DefaultBudget).
func WithBudget(d time.Duration) Option { return func(f *Function) { f.budget = d } }

// WithClock sets the clock an invocation's Date reads once, when it
// starts (time.Now).
func WithClock(now func() time.Time) Option { return func(f *Function) { f.now = now } }

// WithLog receives the function's console.log lines; they are dropped
// without it.
func WithLog(log func(name, line string)) Option { return func(f *Function) { f.log = log } }

// KeyValueStore is what a function's key value store answers: the value
// of key as the edge would read it now, or found false when the store holds
// none. The edge reads it through the cloudfront module's kvs() handle
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/functions-custom-methods.html).
type KeyValueStore interface {
	Get(key string) (value string, found bool, err error)
}

// WithKeyValueStore associates store with the function, as a key value
// store association does on CloudFront: require('cloudfront').kvs() reads
// it. Without one the cloudfront module is refused.
func WithKeyValueStore(store KeyValueStore) Option { return func(f *Function) { f.kvs = store } }

// importLine is the one form of ES module import CloudFront's examples use
// (import cf from 'cloudfront'; import crypto from 'crypto'). The engine
// runs scripts, not modules, so Compile turns it into a require on the
// same line, keeping line numbers.
var importLine = regexp.MustCompile(`(?m)^[ \t]*import[ \t]+([A-Za-z_$][A-Za-z0-9_$]*)[ \t]+from[ \t]+(?:'([^'\n]*)'|"([^"\n]*)")[ \t]*;?[ \t]*$`)

// Compile loads source as the function name, checking what CloudFront
// checks when a function is created: its size, that it parses and uses
// only cloudfront-js-2.0's features, and that it defines handler. The
// top-level code runs once here, within the budget.
func Compile(name, source string, opts ...Option) (*Function, error) {
	f := &Function{name: name, budget: DefaultBudget, now: time.Now}
	for _, o := range opts {
		o(f)
	}
	if len(source) > MaxSourceBytes {
		return nil, fmt.Errorf("%s: %w (%d bytes)", name, ErrTooLarge, len(source))
	}
	src := importLine.ReplaceAllString(source, "const $1 = require('$2$3');")
	ast, err := goja.Parse(name, src, parser.WithDisableSourceMaps)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", name, ErrSyntax, err)
	}
	if err := checkSyntax(ast); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	// The code runs inside a function, so each invocation starts from its
	// top level (see engine); it parsed on its own above, so it cannot
	// reach out of the wrapper. Strict: CloudFront runs every function in
	// strict mode.
	wrapped := "(function () {" + src + "\n;return typeof handler === 'function' ? handler : undefined;\n})"
	if f.prg, err = goja.Compile(name, wrapped, true); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", name, ErrSyntax, err)
	}
	_, err = f.invoke(context.Background(), func(*goja.Runtime, goja.Callable) (goja.Value, error) {
		return goja.Undefined(), nil
	})
	if err != nil {
		if errors.Is(err, ErrNoHandler) || errors.Is(err, ErrUnsupported) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: top-level code: %w", name, err)
	}
	return f, nil
}

// Name is the name the function was compiled with.
func (f *Function) Name() string { return f.name }

// ViewerRequest runs the function on a viewer-request event and returns
// the request to go on with or the response it generated.
func (f *Function) ViewerRequest(ctx context.Context, ev Event) (RequestResult, error) {
	ev.Version, ev.Context.EventType, ev.Response = EventVersion, EventViewerRequest, nil
	// The function sees only the headers it may; what it returns is
	// checked against those.
	ev.Request.Headers = visibleHeaders(ev.Request.Headers)
	out, err := f.invoke(ctx, func(vm *goja.Runtime, handler goja.Callable) (goja.Value, error) {
		return handler(goja.Undefined(), eventToJS(vm, ev))
	})
	if err != nil {
		return RequestResult{}, err
	}
	res, err := parseRequestResult(out, &ev.Request)
	if err != nil {
		return RequestResult{}, fmt.Errorf("%s: %w", f.name, err)
	}
	return res, nil
}

// ViewerResponse runs the function on a viewer-response event, whose
// Response is the answer the viewer would get, and returns the response to
// send. CloudFront does not run it for origin answers of 400 and above
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/edge-function-restrictions-all.html#function-restrictions-status-codes);
// the caller does not call it then.
func (f *Function) ViewerResponse(ctx context.Context, ev Event) (Response, error) {
	if ev.Response == nil {
		return Response{}, errors.New("cloudfrontjs: a viewer-response event needs a Response")
	}
	ev.Version, ev.Context.EventType = EventVersion, EventViewerResponse
	out, err := f.invoke(ctx, func(vm *goja.Runtime, handler goja.Callable) (goja.Value, error) {
		return handler(goja.Undefined(), eventToJS(vm, ev))
	})
	if err != nil {
		return Response{}, err
	}
	res, err := parseResponse(out, EventViewerResponse, ev.Response)
	if err != nil {
		return Response{}, fmt.Errorf("%s: %w", f.name, err)
	}
	return *res, nil
}

// invocation is one run's state.
type invocation struct {
	start time.Time
	// refused is set when the code reached something this runtime refuses
	// (eval, an unknown module): the thrown error is then ErrUnsupported.
	refused error
	logged  int
}

// engine is a prepared JavaScript engine for the function: main runs the
// function's code, top level and all, in a scope of its own and returns
// its handler. Engines are pooled, because a new one costs far more than
// an invocation; running main afresh each time means no top-level
// declaration outlives an invocation. What does carry over is what a
// function writes onto globalThis or a built-in prototype.
type engine struct {
	vm   *goja.Runtime
	main goja.Callable
	cur  *invocation

	// mu orders interrupts (budget, context) against the end of an
	// invocation, so none reaches the next one.
	mu   sync.Mutex
	live bool
}

func (e *engine) interrupt(v any) {
	e.mu.Lock()
	if e.live {
		e.vm.Interrupt(v)
	}
	e.mu.Unlock()
}

func (e *engine) end() {
	e.mu.Lock()
	e.live = false
	e.mu.Unlock()
	e.vm.ClearInterrupt()
}

var promiseType = reflect.TypeFor[*goja.Promise]()

// budgetExceeded is the value an interrupt for the budget carries.
type budgetExceeded struct{}

func (f *Function) newEngine() *engine {
	e := &engine{vm: goja.New(), cur: &invocation{}}
	f.setup(e)
	v, err := e.vm.RunProgram(f.prg) // evaluates to the wrapper; runs none of the code
	if err != nil {
		panic("cloudfrontjs: wrapper: " + err.Error()) // compiled at Compile, so a bug here
	}
	e.main, _ = goja.AssertFunction(v)
	return e
}

// invoke runs the function's code and then call with its handler, and
// returns what call returned, exported to Go values (a settled promise's
// result for an async handler).
func (f *Function) invoke(ctx context.Context, call func(vm *goja.Runtime, handler goja.Callable) (goja.Value, error)) (out any, err error) {
	e, _ := f.engines.Get().(*engine)
	if e == nil {
		e = f.newEngine()
	}
	inv := &invocation{start: f.now()}
	e.cur, e.live = inv, true
	// The engine checks for an interrupt between instructions, so a loop
	// with no call in it stops too.
	timer := time.AfterFunc(f.budget, func() { e.interrupt(budgetExceeded{}) })
	stop := context.AfterFunc(ctx, func() { e.interrupt(ctx.Err()) })
	clean := false
	defer func() {
		timer.Stop()
		stop()
		e.end()
		// The engine turns what a native function panics with into a JS
		// exception; anything that still escapes is this package's bug or
		// the engine's, and must not take the edge down.
		if p := recover(); p != nil {
			out, err, clean = nil, fmt.Errorf("%s: %w: engine panic: %v", f.name, ErrExecution, p), false
		}
		if clean {
			f.engines.Put(e) // only after a clean run: an error may leave it half way
		}
	}()

	hv, err := e.main(e.vm.GlobalObject()) // this at the top level is globalThis, as in a script
	if err != nil {
		return nil, f.runError(inv, err)
	}
	h, ok := goja.AssertFunction(hv)
	if !ok {
		return nil, fmt.Errorf("%s: %w", f.name, ErrNoHandler)
	}
	v, err := call(e.vm, h)
	if err != nil {
		return nil, f.runError(inv, err)
	}
	// ExportType, not Export: exporting a plain object builds all of it,
	// which the caller does once below.
	if o, ok := v.(*goja.Object); ok && o.ExportType() == promiseType {
		p := o.Export().(*goja.Promise)
		switch p.State() {
		case goja.PromiseStateFulfilled:
			v = p.Result()
		case goja.PromiseStateRejected:
			return nil, f.runError(inv, fmt.Errorf("promise rejected: %v", p.Result()))
		default:
			// Nothing outside the engine can settle it: there are no
			// timers and no I/O.
			return nil, fmt.Errorf("%s: %w: the handler's promise never settled", f.name, ErrExecution)
		}
	}
	out, clean = v.Export(), true
	return out, nil
}

// runError classifies an error the engine returned.
func (f *Function) runError(inv *invocation, err error) error {
	var interrupted *goja.InterruptedError
	if errors.As(err, &interrupted) {
		if _, ok := interrupted.Value().(budgetExceeded); ok {
			return fmt.Errorf("%s: %w: %w (%s)", f.name, ErrExecution, ErrComputeBudget, f.budget)
		}
		if cerr, ok := interrupted.Value().(error); ok {
			return fmt.Errorf("%s: %w: %w", f.name, ErrExecution, cerr)
		}
	}
	if inv.refused != nil {
		return fmt.Errorf("%s: %w: %w", f.name, ErrExecution, inv.refused)
	}
	return fmt.Errorf("%s: %w: %s", f.name, ErrExecution, oneLine(err.Error()))
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
