package cloudfrontjs

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"
)

// removedGlobals are the engine's globals that cloudfront-js-2.0 does not
// list among its built-in objects
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/functions-javascript-runtime-20.html):
// a function that uses one gets the ReferenceError it would get there.
var removedGlobals = []string{
	"Map", "Set", "WeakMap", "WeakSet", "WeakRef", "FinalizationRegistry",
	"Proxy", "Reflect", "Symbol", "BigInt", "BigInt64Array", "BigUint64Array",
}

// prelude runs before the function's code in every engine. It makes eval
// and the Function constructors (through Function, and through any
// function's constructor property) refuse, as the runtime has no dynamic
// code evaluation, makes Buffer refuse (the runtime has it; this package
// does not model it), and drops removedGlobals. It is a function of the
// global object, the refuse callback and the names to drop.
var prelude = sync.OnceValue(func() *goja.Program {
	return goja.MustCompile("cloudfrontjs-prelude", `(function (g, refuse, removed) {
  'use strict';
  function noEval() { return refuse('dynamic code evaluation (eval, new Function)'); }
  var ctors = [g.Function, Object.getPrototypeOf(async function () {}).constructor,
    Object.getPrototypeOf(function* () {}).constructor];
  for (var i = 0; i < ctors.length; i++) {
    Object.defineProperty(ctors[i].prototype, 'constructor', { value: noEval, writable: false, configurable: false });
  }
  noEval.prototype = g.Function.prototype;
  Object.defineProperty(g, 'Function', { value: noEval, writable: false, configurable: false, enumerable: false });
  Object.defineProperty(g, 'eval', { value: noEval, writable: false, configurable: false, enumerable: false });
  var buffer = new g.Proxy(function () {}, {
    get: function () { return refuse('Buffer'); },
    apply: function () { return refuse('Buffer'); },
    construct: function () { return refuse('Buffer'); }
  });
  Object.defineProperty(g, 'Buffer', { value: buffer, writable: false, configurable: false, enumerable: false });
  for (var j = 0; j < removed.length; j++) { delete g[removed[j]]; }
})`, true)
})

// setup prepares a new engine; e.cur is the invocation it runs.
func (f *Function) setup(e *engine) {
	vm := e.vm
	// Date reads the time the invocation started, as on CloudFront, where
	// the clock does not move while a function runs.
	vm.SetTimeSource(func() time.Time { return e.cur.start })
	vm.SetMaxCallStackSize(maxCallStack)

	refuse := func(what string) {
		e.cur.refused = fmt.Errorf("%w: %s", ErrUnsupported, what)
		panic(vm.NewGoError(e.cur.refused))
	}
	console := vm.NewObject()
	_ = console.Set("log", func(call goja.FunctionCall) goja.Value {
		f.consoleLog(e.cur, call.Arguments)
		return goja.Undefined()
	})
	g := vm.GlobalObject()
	_ = g.Set("console", console)
	_ = g.Set("require", func(name string) goja.Value {
		m, err := module(vm, name, refuse, f.kvs)
		if err != nil {
			refuse(err.Error())
		}
		return m
	})
	pre, err := vm.RunProgram(prelude())
	if err == nil {
		fn, _ := goja.AssertFunction(pre)
		_, err = fn(goja.Undefined(), g, vm.ToValue(func(what string) goja.Value {
			refuse(what)
			return nil
		}), vm.ToValue(removedGlobals))
	}
	if err != nil {
		panic("cloudfrontjs: prelude: " + err.Error()) // a bug here, not in the function
	}
}

// consoleLog hands a console.log line to the log, truncating an
// invocation's lines at MaxLogBytes as CloudFront does.
func (f *Function) consoleLog(inv *invocation, args []goja.Value) {
	if f.log == nil || inv.logged >= MaxLogBytes {
		return
	}
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.String()
	}
	line := strings.Join(parts, " ")
	if rest := MaxLogBytes - inv.logged; len(line) > rest {
		line = line[:rest]
	}
	inv.logged += len(line)
	f.log(f.name, line)
}

// module returns the built-in module name.
func module(vm *goja.Runtime, name string, refuse func(what string), kvs KeyValueStore) (goja.Value, error) {
	switch name {
	case "crypto":
		return cryptoModule(vm, refuse), nil
	case "querystring":
		return querystringModule(vm), nil
	case "cloudfront":
		if kvs == nil {
			return nil, fmt.Errorf("module %q without an associated key value store (origin helpers are not modelled locally)", name)
		}
		return cloudfrontModule(vm, kvs, refuse), nil
	case "buffer":
		return nil, fmt.Errorf("module %q (Buffer is not modelled locally)", name)
	default:
		return nil, fmt.Errorf("module %q (cloudfront-js-2.0 has crypto, querystring, buffer and cloudfront)", name)
	}
}
