package link_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/link"
)

// TestConditionsDescribeEveryRuleField: every mapping of a rule (the API's
// JSON, the stored item, the copy, the checks, the match) reads
// link.Conditions, so a condition field of Rule missing from it, or named
// there otherwise than in its json tag, or compared with another part of
// the Viewer, would be lost or misread somewhere.
func TestConditionsDescribeEveryRuleField(t *testing.T) {
	rt := reflect.TypeFor[link.Rule]()
	described := map[string]bool{}
	for _, c := range link.Conditions {
		require.NotNil(t, c.Values, c.Name)
		require.NotNil(t, c.Of, c.Name)
		f := rt.Field(fieldIndex(t, c))
		field := f.Name
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		assert.Equal(t, c.Name, tag, "condition %s is field %s, whose json name differs", c.Name, field)
		assert.False(t, described[field], "field %s is described twice", field)
		described[field] = true

		var v link.Viewer
		vf := reflect.ValueOf(&v).Elem().FieldByName(field)
		require.True(t, vf.IsValid(), "Viewer has no field %s for condition %s", field, c.Name)
		vf.SetString("x")
		assert.Equal(t, "x", c.Of(v), "condition %s compares Viewer.%s", c.Name, field)
	}
	for i := range rt.NumField() {
		f := rt.Field(i)
		if f.Name != "URL" {
			assert.True(t, described[f.Name], "Rule.%s is in no link.Conditions entry", f.Name)
			assert.Equal(t, reflect.TypeFor[[]string](), f.Type, "Rule.%s: a condition is a list of strings", f.Name)
		}
	}
	assert.Equal(t, reflect.TypeFor[link.Viewer]().NumField(), len(link.Conditions), "every Viewer field is a condition's")
}

// everyCondition is a rule with two values in each condition.
func everyCondition() link.Rule {
	r := link.Rule{URL: "https://every.example/"}
	for _, c := range link.Conditions {
		*c.Values(&r) = []string{c.Name + "-1", c.Name + "-2"}
	}
	return r
}

func TestRuleCloneAndEqualCoverEveryCondition(t *testing.T) {
	for _, c := range link.Conditions {
		t.Run(c.Name, func(t *testing.T) {
			r := everyCondition()
			f := link.Features{Rules: []link.Rule{r}, Targets: []link.Target{{URL: "https://a.example/", Weight: 100}}}
			clone := f.Clone()
			require.True(t, clone.Equal(f))
			(*c.Values(&clone.Rules[0]))[0] = "changed"
			clone.Targets[0].Weight = 1
			assert.Equal(t, c.Name+"-1", (*c.Values(&f.Rules[0]))[0], "the clone shares %s", c.Name)
			assert.Equal(t, 100, f.Targets[0].Weight, "the clone shares the targets")
			assert.False(t, clone.Rules[0].Equal(r), "Equal misses a change to %s", c.Name)
		})
	}
	assert.True(t, link.Rule{URL: "u", Country: []string{}}.Equal(link.Rule{URL: "u"}), "nil and empty are the same")
}

func TestRuleMatchesEachCondition(t *testing.T) {
	for _, c := range link.Conditions {
		t.Run(c.Name, func(t *testing.T) {
			r := link.Rule{URL: "u"}
			*c.Values(&r) = []string{"a", "b"}
			var v link.Viewer
			field := reflect.TypeFor[link.Rule]().Field(fieldIndex(t, c)).Name
			reflect.ValueOf(&v).Elem().FieldByName(field).SetString("b")
			assert.True(t, r.Matches(v), "any of the values matches")
			assert.False(t, r.Matches(link.Viewer{}), "an unknown viewer meets no condition")
			assert.True(t, link.Rule{URL: "u"}.Matches(link.Viewer{}), "no condition matches anyone")
		})
	}
}

// fieldIndex is the index in Rule of the field c keeps its values in.
func fieldIndex(t *testing.T, c link.Condition) int {
	var r link.Rule
	rv := reflect.ValueOf(&r).Elem()
	for i := range rv.NumField() {
		if rv.Field(i).Addr().Interface() == any(c.Values(&r)) {
			return i
		}
	}
	t.Fatalf("condition %s keeps its values in no field", c.Name)
	return -1
}
