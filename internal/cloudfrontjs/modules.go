package cloudfrontjs

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// hashes are the algorithms the crypto module offers
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/functions-javascript-runtime-20.html#writing-functions-javascript-features-builtin-modules-crypto-20).
// MD5 and SHA-1 are there because CloudFront has them; a function uses
// them for cache keys or legacy signatures, never for secrets.
var hashes = map[string]func() hash.Hash{
	"md5":    md5.New,
	"sha1":   sha1.New,
	"sha256": sha256.New,
}

// cryptoModule is require('crypto'): createHash(algorithm) and
// createHmac(algorithm, key), each with update(data) and digest(encoding)
// for the encodings hex, base64 and base64url. digest() with no encoding
// returns a Buffer in cloudfront-js-2.0, which is not modelled here, so it
// throws ErrUnsupported.
func cryptoModule(vm *goja.Runtime, refuse func(what string)) *goja.Object {
	m := vm.NewObject()
	newHash := func(alg string, key *string) goja.Value {
		mk, ok := hashes[alg]
		if !ok {
			panic(vm.NewTypeError(fmt.Sprintf("unsupported hash algorithm %q (md5, sha1, sha256)", alg)))
		}
		var h hash.Hash
		if key != nil {
			h = hmac.New(mk, []byte(*key))
		} else {
			h = mk()
		}
		o := vm.NewObject()
		done := false
		_ = o.Set("update", func(data string) goja.Value {
			if done {
				panic(vm.NewTypeError("digest already called"))
			}
			h.Write([]byte(data))
			return o
		})
		_ = o.Set("digest", func(call goja.FunctionCall) goja.Value {
			if done {
				panic(vm.NewTypeError("digest already called"))
			}
			done = true
			sum := h.Sum(nil)
			if goja.IsUndefined(call.Argument(0)) {
				refuse("digest() without an encoding (it returns a Buffer)")
			}
			switch enc := call.Argument(0).String(); enc {
			case "hex":
				return vm.ToValue(hex.EncodeToString(sum))
			case "base64":
				return vm.ToValue(base64.StdEncoding.EncodeToString(sum))
			case "base64url":
				return vm.ToValue(base64.RawURLEncoding.EncodeToString(sum))
			default:
				panic(vm.NewTypeError(fmt.Sprintf("unsupported digest encoding %q (hex, base64, base64url)", enc)))
			}
		})
		return o
	}
	_ = m.Set("createHash", func(alg string) goja.Value { return newHash(alg, nil) })
	_ = m.Set("createHmac", func(alg, key string) goja.Value { return newHash(alg, &key) })
	return m
}

// querystringModule is require('querystring'), with Node.js's semantics,
// which the runtime's module follows
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/functions-javascript-runtime-20.html#writing-functions-javascript-features-builtin-modules-query-string-20):
// parse (decode), stringify (encode), escape and unescape.
func querystringModule(vm *goja.Runtime) *goja.Object {
	m := vm.NewObject()
	sepEq := func(call goja.FunctionCall, i int) (string, string) {
		sep, eq := "&", "="
		if a := call.Argument(i); !goja.IsUndefined(a) && !goja.IsNull(a) && a.String() != "" {
			sep = a.String()
		}
		if a := call.Argument(i + 1); !goja.IsUndefined(a) && !goja.IsNull(a) && a.String() != "" {
			eq = a.String()
		}
		return sep, eq
	}
	parse := func(call goja.FunctionCall) goja.Value {
		sep, eq := sepEq(call, 1)
		maxKeys := 1000
		if o, ok := call.Argument(3).(*goja.Object); ok {
			if v := o.Get("maxKeys"); v != nil && !goja.IsUndefined(v) {
				maxKeys = int(v.ToInteger())
			}
		}
		out := vm.NewObject()
		s := ""
		if a := call.Argument(0); !goja.IsUndefined(a) && !goja.IsNull(a) {
			s = a.String()
		}
		if s == "" {
			return out
		}
		var order []string
		vals := map[string][]string{}
		for i, pair := range strings.Split(s, sep) {
			if maxKeys > 0 && i >= maxKeys {
				break
			}
			if pair == "" {
				continue
			}
			k, v, _ := strings.Cut(pair, eq)
			k, v = qsUnescape(strings.ReplaceAll(k, "+", " ")), qsUnescape(strings.ReplaceAll(v, "+", " "))
			if _, seen := vals[k]; !seen {
				order = append(order, k)
			}
			vals[k] = append(vals[k], v)
		}
		for _, k := range order {
			if vs := vals[k]; len(vs) == 1 {
				_ = out.Set(k, vs[0])
			} else {
				_ = out.Set(k, vm.NewArray(anySlice(vs)...))
			}
		}
		return out
	}
	stringify := func(call goja.FunctionCall) goja.Value {
		sep, eq := sepEq(call, 1)
		o, ok := call.Argument(0).(*goja.Object)
		if !ok {
			return vm.ToValue("")
		}
		var parts []string
		for _, k := range o.Keys() {
			ek := qsEscape(k)
			v := o.Get(k)
			if arr, ok := v.(*goja.Object); ok && arr.ClassName() == "Array" {
				n := int(arr.Get("length").ToInteger())
				for i := range n {
					parts = append(parts, ek+eq+qsEscape(qsPrimitive(arr.Get(strconv.Itoa(i)))))
				}
				continue
			}
			parts = append(parts, ek+eq+qsEscape(qsPrimitive(v)))
		}
		return vm.ToValue(strings.Join(parts, sep))
	}
	_ = m.Set("parse", parse)
	_ = m.Set("decode", parse)
	_ = m.Set("stringify", stringify)
	_ = m.Set("encode", stringify)
	_ = m.Set("escape", func(s string) string { return qsEscape(s) })
	_ = m.Set("unescape", func(s string) string { return qsUnescape(s) })
	return m
}

func anySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// qsPrimitive is how Node's stringify spells a value: strings as they
// are, finite numbers and booleans as text, anything else empty.
func qsPrimitive(v goja.Value) string {
	switch e := v.Export().(type) {
	case string:
		return e
	case bool:
		return strconv.FormatBool(e)
	case int64:
		return strconv.FormatInt(e, 10)
	case float64:
		if math.IsInf(e, 0) || math.IsNaN(e) {
			return ""
		}
		return v.String()
	default:
		return ""
	}
}

// qsEscape percent-encodes s as encodeURIComponent does: everything but
// A-Z a-z 0-9 - _ . ! ~ * ' ( ).
func qsEscape(s string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexDigits[c>>4])
		b.WriteByte(hexDigits[c&15])
	}
	return b.String()
}

// qsUnescape decodes the %XX sequences of s and leaves malformed ones as
// they are, as Node's querystring.unescape falls back to doing; bytes
// that are not UTF-8 become U+FFFD.
func qsUnescape(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if h, err := hex.DecodeString(s[i+1 : i+3]); err == nil {
				b = append(b, h[0])
				i += 2
				continue
			}
		}
		b = append(b, s[i])
	}
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// cloudfrontModule is require('cloudfront') of a function with a key value
// store: kvs() returns the handle of the store (with or without its ID,
// as a function has one store at most), whose get(key, options) and
// exists(key) return promises, settled before the function goes on, as
// the store is read at the edge
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/functions-custom-methods.html).
// get rejects for a key the store does not hold; its formats are string
// (the default) and json; bytes returns a Buffer, not modelled here.
func cloudfrontModule(vm *goja.Runtime, kvs KeyValueStore, refuse func(what string)) *goja.Object {
	m := vm.NewObject()
	settled := func(v goja.Value, err error) goja.Value {
		p, resolve, reject := vm.NewPromise()
		if err != nil {
			_ = reject(vm.NewGoError(err))
		} else {
			_ = resolve(v)
		}
		return vm.ToValue(p)
	}
	_ = m.Set("kvs", func(goja.FunctionCall) goja.Value {
		h := vm.NewObject()
		_ = h.Set("get", func(call goja.FunctionCall) goja.Value {
			key := call.Argument(0).String()
			format := "string"
			if o, ok := call.Argument(1).(*goja.Object); ok {
				if f := o.Get("format"); f != nil && !goja.IsUndefined(f) {
					format = f.String()
				}
			}
			v, found, err := kvs.Get(key)
			switch {
			case err != nil:
				return settled(nil, fmt.Errorf("key value store get %q: %w", key, err))
			case !found:
				return settled(nil, fmt.Errorf("key %q not found in the key value store", key))
			}
			switch format {
			case "string":
				return settled(vm.ToValue(v), nil)
			case "json":
				parse, _ := goja.AssertFunction(vm.Get("JSON").ToObject(vm).Get("parse"))
				out, err := parse(goja.Undefined(), vm.ToValue(v))
				return settled(out, err)
			case "bytes":
				refuse("get() in the bytes format (it returns a Buffer)")
			}
			panic(vm.NewTypeError(fmt.Sprintf("unsupported format %q (string, json, bytes)", format)))
		})
		_ = h.Set("exists", func(call goja.FunctionCall) goja.Value {
			_, found, err := kvs.Get(call.Argument(0).String())
			return settled(vm.ToValue(found), err)
		})
		_ = h.Set("meta", func(goja.FunctionCall) goja.Value {
			refuse("the key value store's meta()")
			return nil
		})
		return h
	})
	return m
}
