package faults

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/shortlink-dev/shortener/internal/pace"
)

// Rule says which calls fail and how. A call matches when Op, Table and
// Match all agree; the first Skip matching calls pass, the next Times
// (all, when zero) are faulted. When two faults are due for one call, the
// one added first acts; both count the call.
type Rule struct {
	// Op is the operation name, such as "GetItem"; empty matches any.
	Op string
	// Table, when set, matches only calls that name this table (any item
	// of a transaction or a batch counts).
	Table string
	// Match, when set, must also return true for the operation's input
	// (*dynamodb.GetItemInput and so on).
	Match func(input any) bool
	// Skip lets that many matching calls through before the rule acts.
	Skip int
	// Times bounds how many calls the rule faults; zero is no bound.
	Times int

	// Hold makes a faulted call wait until the channel is closed (or its
	// context ends, which is then its error): a stalled dependency that
	// the test releases when it chooses.
	Hold <-chan struct{}
	// Delay makes a faulted call wait this long first (before the call,
	// or after it with After), or until its context ends, which is then
	// its error: a slow dependency past the caller's deadline.
	Delay time.Duration
	// Err is what a faulted call returns. With neither Err nor a context
	// that ends, a delayed call then proceeds normally.
	Err error
	// Reply, in place of Err, is DynamoDB's error answer on the wire for
	// the faulted call: the SDK deserializes it into its typed error and
	// retries it if it deems it retryable. Without Attempt every HTTP
	// attempt of the faulted operation gets it, as from a table that
	// stays throttled; with Attempt, only the faulted attempt.
	Reply *Reply
	// After makes the call first and then waits and fails as above: the
	// request took effect, the answer was lost.
	After bool
	// Attempt applies the rule to each HTTP attempt, inside the SDK's
	// retries, instead of once to the whole operation.
	Attempt bool
}

// Fault is a Rule added to an Injector.
type Fault struct {
	inj  *Injector
	rule Rule
	seen int // matching calls
	hit  int // calls faulted
}

// Fired returns how many calls the fault has acted on.
func (f *Fault) Fired() int {
	f.inj.mu.Lock()
	defer f.inj.mu.Unlock()
	return f.hit
}

// Remove takes the fault out; calls in progress finish as they started.
func (f *Fault) Remove() {
	f.inj.mu.Lock()
	defer f.inj.mu.Unlock()
	for i, g := range f.inj.faults {
		if g == f {
			f.inj.faults = append(f.inj.faults[:i], f.inj.faults[i+1:]...)
			return
		}
	}
}

// Injector holds the faults of one or more clients. It is safe for
// concurrent use; faults can be added and removed while calls run.
type Injector struct {
	mu      sync.Mutex
	faults  []*Fault
	calls   map[string]int
	replies int
}

// New returns an injector with no faults.
func New() *Injector { return &Injector{calls: map[string]int{}} }

// Add installs r and returns it as a Fault.
func (i *Injector) Add(r Rule) *Fault {
	f := &Fault{inj: i, rule: r}
	i.mu.Lock()
	defer i.mu.Unlock()
	i.faults = append(i.faults, f)
	return f
}

// Clear removes every fault.
func (i *Injector) Clear() {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.faults = nil
}

// Calls returns how many operations named op went through the injector,
// faulted or not.
func (i *Injector) Calls(op string) int {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.calls[op]
}

// DynamoDB installs the injector in a DynamoDB client's options:
// dynamodb.NewFromConfig(cfg, inj.DynamoDB).
func (i *Injector) DynamoDB(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, i.Install)
}

// Install adds the injector's middleware to an SDK operation's stack; put
// it in any client's APIOptions.
func (i *Injector) Install(stack *middleware.Stack) error {
	if err := stack.Initialize.Add(middleware.InitializeMiddlewareFunc("faults.Operation",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			op := middleware.GetOperationName(ctx)
			i.count(op)
			ctx = context.WithValue(ctx, paramsKey{}, in.Parameters)
			return applyTo(ctx, i.pick(op, in.Parameters, false), func(ctx context.Context) (middleware.InitializeOutput, middleware.Metadata, error) {
				return next.HandleInitialize(ctx, in)
			})
		}), middleware.Before); err != nil {
		return err
	}
	if err := stack.Finalize.Insert(middleware.FinalizeMiddlewareFunc("faults.Attempt",
		func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
			f := i.pick(middleware.GetOperationName(ctx), ctx.Value(paramsKey{}), true)
			return applyTo(ctx, f, func(ctx context.Context) (middleware.FinalizeOutput, middleware.Metadata, error) {
				return next.HandleFinalize(ctx, in)
			})
		}), "Retry", middleware.After); err != nil {
		return err
	}
	return stack.Deserialize.Add(i.wireMiddleware(), middleware.After)
}

type paramsKey struct{}

func (i *Injector) count(op string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.calls[op]++
}

// pick counts the call against every fault it matches and returns the
// first of them that is due to act, or nil. Each fault counts its own
// matching calls for Skip and Times, whether or not another one acted.
func (i *Injector) pick(op string, params any, attempt bool) *Fault {
	i.mu.Lock()
	defer i.mu.Unlock()
	var chosen *Fault
	for _, f := range i.faults {
		r := &f.rule
		if r.Attempt != attempt || r.Op != "" && r.Op != op ||
			r.Table != "" && !names(params, r.Table) || r.Match != nil && !r.Match(params) {
			continue
		}
		f.seen++
		if chosen != nil || f.seen <= r.Skip || r.Times > 0 && f.hit >= r.Times {
			continue
		}
		f.hit++
		chosen = f
	}
	return chosen
}

// applyTo runs a middleware step's next handler under the fault f (nil:
// no fault), keeping what it answered.
func applyTo[O any](ctx context.Context, f *Fault, next func(context.Context) (O, middleware.Metadata, error)) (O, middleware.Metadata, error) {
	var out O
	var md middleware.Metadata
	err := f.apply(ctx, func(ctx context.Context) error {
		var err error
		out, md, err = next(ctx)
		return err
	})
	return out, md, err
}

// apply runs call under the fault f (nil: no fault).
func (f *Fault) apply(ctx context.Context, call func(context.Context) error) error {
	if f == nil {
		return call(ctx)
	}
	r := f.rule
	if r.Reply != nil {
		if err := wait(ctx, r.Hold, r.Delay); err != nil {
			return err
		}
		return call(withReply(ctx, r.Reply, r.After))
	}
	if r.After {
		if err := call(ctx); err != nil {
			return err // it failed anyway: nothing to lose
		}
	}
	if err := wait(ctx, r.Hold, r.Delay); err != nil {
		return err
	}
	if r.Err != nil {
		return r.Err
	}
	if r.After {
		return nil
	}
	return call(ctx)
}

func wait(ctx context.Context, hold <-chan struct{}, delay time.Duration) error {
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if delay > 0 && !pace.Sleep(ctx, delay) {
		return ctx.Err()
	}
	return nil
}

// names reports whether a DynamoDB input names table.
func names(params any, table string) bool {
	is := func(p *string) bool { return p != nil && *p == table }
	switch in := params.(type) {
	case *dynamodb.GetItemInput:
		return is(in.TableName)
	case *dynamodb.PutItemInput:
		return is(in.TableName)
	case *dynamodb.UpdateItemInput:
		return is(in.TableName)
	case *dynamodb.DeleteItemInput:
		return is(in.TableName)
	case *dynamodb.QueryInput:
		return is(in.TableName)
	case *dynamodb.ScanInput:
		return is(in.TableName)
	case *dynamodb.DescribeTableInput:
		return is(in.TableName)
	case *dynamodb.TransactWriteItemsInput:
		for _, it := range in.TransactItems {
			switch {
			case it.Put != nil && is(it.Put.TableName),
				it.Update != nil && is(it.Update.TableName),
				it.Delete != nil && is(it.Delete.TableName),
				it.ConditionCheck != nil && is(it.ConditionCheck.TableName):
				return true
			}
		}
	case *dynamodb.TransactGetItemsInput:
		for _, it := range in.TransactItems {
			if it.Get != nil && is(it.Get.TableName) {
				return true
			}
		}
	case *dynamodb.BatchWriteItemInput:
		_, ok := in.RequestItems[table]
		return ok
	case *dynamodb.BatchGetItemInput:
		_, ok := in.RequestItems[table]
		return ok
	}
	return false
}

// Throttled is DynamoDB's answer to a request over the table's capacity,
// as the SDK decodes it. The SDK retries it; the store maps it to
// unavailability (503).
func Throttled() error {
	return &types.ProvisionedThroughputExceededException{Message: strPtr("injected: throughput exceeded")}
}

// ServerError is DynamoDB's 500, as the SDK decodes it.
func ServerError() error {
	return &types.InternalServerError{Message: strPtr("injected: internal server error")}
}

// ConnectionLost is a request whose connection broke before an answer
// came back: no API error at all. The SDK treats it as retryable.
func ConnectionLost() error { return &connectionError{} }

// ErrInjected is matched by errors.Is on ConnectionLost's error.
var ErrInjected = errors.New("injected fault")

type connectionError struct{}

func (*connectionError) Error() string {
	return fmt.Sprintf("read tcp: connection reset by peer (%v)", ErrInjected)
}
func (*connectionError) Unwrap() error        { return ErrInjected }
func (*connectionError) RetryableError() bool { return true }
func (*connectionError) Temporary() bool      { return true }
func (*connectionError) Timeout() bool        { return false }

func strPtr(s string) *string { return &s }
