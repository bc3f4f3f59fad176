package cloudfrontjs

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/edgespec"
)

const identity = "function handler(event) { return event.request; }\n"

// padTo pads src with a comment to exactly n bytes.
func padTo(t *testing.T, src string, n int) string {
	t.Helper()
	pad := n - len(src) - len("//\n")
	require.GreaterOrEqual(t, pad, 0)
	return src + "//" + strings.Repeat("x", pad) + "\n"
}

// TestCompileLoadTimeLimits: what CloudFront refuses when a function is
// created (size, syntax, no handler), refused here at Compile.
func TestCompileLoadTimeLimits(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		wantErr error
	}{
		{"exactly 10 KB", padTo(t, identity, MaxSourceBytes), nil},
		{"one byte over 10 KB", padTo(t, identity, MaxSourceBytes+1), ErrTooLarge},
		{"no handler", "function other(event) { return event.request; }", ErrNoHandler},
		{"handler not a function", "var handler = 1;", ErrNoHandler},
		{"does not parse", "function handler(event) { return event.request;", ErrSyntax},
		{"top-level throws", "throw new Error('boom');\n" + identity, ErrExecution},
		{"top-level runaway loop", "while (true) {}\n" + identity, ErrComputeBudget},
		{"strict mode: undeclared assignment at top level", "x = 1;\n" + identity, ErrExecution},
		{"the canonical-path function", edgespec.MustFunctionSource(edgespec.CanonicalPathFunction), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Compile(tt.name, tt.src, WithBudget(testBudget))
			if tt.wantErr == nil {
				require.NoError(t, err)
				assert.Equal(t, tt.name, f.Name())
				return
			}
			assert.ErrorIs(t, err, tt.wantErr)
			assert.Nil(t, f)
		})
	}
}

// TestCompileLanguageFeatures: the syntax cloudfront-js-2.0 lists is
// accepted; what the engine parses beyond that list is refused at load
// time, with its line.
func TestCompileLanguageFeatures(t *testing.T) {
	allowed := []struct{ name, code string }{
		{"const and let", "const a = 1; let b = 2;"},
		{"arrow function", "const f = (x) => x + 1; f(1);"},
		{"rest parameters", "function f(a, ...rest) { return rest.length; } f(1, 2);"},
		{"template literal", "const s = `a ${1 + 1} ${`nested`}`;"},
		{"exponentiation", "const p = 2 ** 10;"},
		{"getter in an object literal", "const o = { get x() { return 1; } };"},
		{"labelled statement", "outer: for (var i = 0; i < 2; i++) { for (;;) { break outer; } }"},
		{"async function declaration with await", "async function g() { return await Promise.resolve(1); }"},
		{"for-in", "for (var k in { a: 1 }) {}"},
		{"regular expression", "const m = /a(?<n>b)/.exec('ab');"},
	}
	for _, tt := range allowed {
		t.Run("allowed/"+tt.name, func(t *testing.T) {
			_, err := Compile(tt.name, tt.code+"\n"+identity)
			assert.NoError(t, err)
		})
	}
	refused := []struct{ name, code, what string }{
		{"class", "class A {}", "a class"},
		{"class expression", "const A = class {};", "a class"},
		{"generator", "function* g() { yield 1; }", "a generator function"},
		{"object destructuring", "const { a } = { a: 1 };", "destructuring"},
		{"array destructuring", "const [a] = [1];", "destructuring"},
		{"destructuring parameter", "function f({ a }) { return a; }", "destructuring"},
		{"spread call", "Math.max(...[1, 2]);", "spread syntax"},
		{"spread array", "const a = [...[1]];", "spread syntax"},
		{"spread object", "const o = { ...{} };", "spread syntax"},
		{"for-of", "for (const x of [1]) {}", "for-of"},
		{"optional chaining", "const o = {}; o?.a;", "optional chaining"},
		{"nullish coalescing", "const a = null ?? 1;", "the ?? operator"},
		{"logical assignment", "let a = 0; a ||= 1;", "a logical assignment"},
		{"default parameter", "function f(a = 1) { return a; }", "a default parameter value"},
		{"default parameter in an arrow", "const f = (a = 1) => a;", "a default parameter value"},
		{"tagged template", "String.raw`x`;", "a tagged template"},
		{"async arrow", "const f = async () => 1;", "an async arrow function"},
		{"async function expression", "const f = async function () { return 1; };", "an async function expression"},
		{"shorthand property", "const a = 1; const o = { a };", "a shorthand property"},
		{"method definition", "const o = { m() { return 1; } };", "a method definition"},
		{"computed property name", "const k = 'a'; const o = { [k]: 1 };", "a computed property name"},
		{"BigInt literal", "const n = 10n;", "a BigInt literal"},
		{"numeric separator", "const n = 1_000;", "a numeric separator"},
		{"new.target", "function F() { return new.target; }", "new.target"},
	}
	for _, tt := range refused {
		t.Run("refused/"+tt.name, func(t *testing.T) {
			_, err := Compile(tt.name, "// line 1\n"+tt.code+"\n"+identity)
			require.ErrorIs(t, err, ErrUnsupported)
			assert.Contains(t, err.Error(), tt.what+" (line 2)")
		})
	}
}

// TestCompileModules: require and CloudFront's import form reach the
// modules the runtime has; the ones not modelled here are refused by
// name.
func TestCompileModules(t *testing.T) {
	tests := []struct {
		name    string
		code    string
		wantErr string
	}{
		{"require crypto", "const crypto = require('crypto');", ""},
		{"import crypto", "import crypto from 'crypto';", ""},
		{"import querystring", `import qs from "querystring"`, ""},
		{"import cloudfront without a store", "import cf from 'cloudfront';", `module "cloudfront" without an associated key value store`},
		{"require buffer", "const b = require('buffer');", `module "buffer"`},
		{"require fs: no file system", "const fs = require('fs');", `module "fs"`},
		{"require http: no network", "const http = require('http');", `module "http"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(tt.name, tt.code+"\n"+identity)
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrUnsupported)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}
