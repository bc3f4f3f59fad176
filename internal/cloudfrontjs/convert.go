package cloudfrontjs

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// eventToJS builds the event as plain JavaScript objects, so the function
// sees and changes ordinary objects, as on CloudFront. Names are set in
// sorted order: Go maps have none, and a function that lists headers
// must see the same order every time.
func eventToJS(vm *goja.Runtime, ev Event) *goja.Object {
	o := vm.NewObject()
	_ = o.Set("version", ev.Version)
	c := vm.NewObject()
	_ = c.Set("distributionDomainName", u8(ev.Context.DistributionDomainName))
	_ = c.Set("distributionId", u8(ev.Context.DistributionID))
	_ = c.Set("eventType", ev.Context.EventType)
	_ = c.Set("requestId", u8(ev.Context.RequestID))
	_ = o.Set("context", c)
	v := vm.NewObject()
	_ = v.Set("ip", u8(ev.Viewer.IP))
	_ = o.Set("viewer", v)

	r := vm.NewObject()
	_ = r.Set("method", u8(ev.Request.Method))
	_ = r.Set("uri", u8(ev.Request.URI))
	_ = r.Set("querystring", valuesToJS(vm, ev.Request.Querystring))
	_ = r.Set("headers", valuesToJS(vm, visibleHeaders(ev.Request.Headers)))
	_ = r.Set("cookies", valuesToJS(vm, ev.Request.Cookies))
	_ = o.Set("request", r)

	if ev.Response != nil {
		s := vm.NewObject()
		_ = s.Set("statusCode", ev.Response.StatusCode)
		_ = s.Set("statusDescription", u8(ev.Response.StatusDescription))
		_ = s.Set("headers", valuesToJS(vm, visibleHeaders(ev.Response.Headers)))
		_ = s.Set("cookies", cookiesToJS(vm, ev.Response.Cookies))
		_ = o.Set("response", s)
	}
	return o
}

// u8 is s as it reaches JavaScript: UTF-8, a byte that is not becoming
// U+FFFD. The engine's own conversion of such a byte depends on the rest
// of the string; this keeps it one rule.
func u8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// visibleHeaders leaves out the headers CloudFront never shows a function.
func visibleHeaders(h Values) Values {
	for name := range h {
		if DisallowedHeader(name) {
			out := make(Values, len(h))
			for n, v := range h {
				if !DisallowedHeader(n) {
					out[n] = v
				}
			}
			return out
		}
	}
	return h
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func valuesToJS(vm *goja.Runtime, vs Values) *goja.Object {
	o := vm.NewObject()
	for _, name := range sortedKeys(vs) {
		v := vs[name]
		e := vm.NewObject()
		_ = e.Set("value", u8(v.Value))
		if len(v.MultiValue) > 0 {
			items := make([]any, len(v.MultiValue))
			for i, m := range v.MultiValue {
				mo := vm.NewObject()
				_ = mo.Set("value", u8(m.Value))
				items[i] = mo
			}
			_ = e.Set("multiValue", vm.NewArray(items...))
		}
		_ = o.Set(u8(name), e)
	}
	return o
}

func cookiesToJS(vm *goja.Runtime, cs ResponseCookies) *goja.Object {
	o := vm.NewObject()
	one := func(c Cookie) *goja.Object {
		e := vm.NewObject()
		_ = e.Set("value", u8(c.Value))
		if c.Attributes != "" {
			_ = e.Set("attributes", u8(c.Attributes))
		}
		return e
	}
	for _, name := range sortedKeys(cs) {
		c := cs[name]
		e := one(c)
		if len(c.MultiValue) > 0 {
			items := make([]any, len(c.MultiValue))
			for i, m := range c.MultiValue {
				items[i] = one(m)
			}
			_ = e.Set("multiValue", vm.NewArray(items...))
		}
		_ = o.Set(u8(name), e)
	}
	return o
}
