package dynamo

import (
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// marshalFeatures adds f's attributes to a link item, only those the link
// uses: an item without them is a link without the features. Lists keep
// their order (L, not SS: a string set is unordered and may not be empty),
// since rules are tried in order. A rule's conditions are written as
// link.Conditions describes them, each under its Name, so a new condition
// needs no change here.
func marshalFeatures(item map[string]types.AttributeValue, f link.Features) {
	if f.PasswordHash != "" {
		item[tableschema.AttrPasswordHash] = str(f.PasswordHash)
	}
	if f.MaxClicks > 0 {
		item[tableschema.AttrMaxClicks] = num(f.MaxClicks)
	}
	if f.ExpiredURL != "" {
		item[tableschema.AttrExpiredURL] = str(f.ExpiredURL)
	}
	if f.KeepQueryOut {
		item[tableschema.AttrForwardQuery] = &types.AttributeValueMemberBOOL{Value: false}
	}
	if f.QueryPrecedence != "" {
		item[tableschema.AttrQueryPrecedence] = str(string(f.QueryPrecedence))
	}
	if len(f.Rules) > 0 {
		rules := make([]types.AttributeValue, len(f.Rules))
		for i, r := range f.Rules {
			m := map[string]types.AttributeValue{tableschema.AttrURL: str(r.URL)}
			for _, c := range link.Conditions {
				putStrings(m, c.Name, *c.Values(&r))
			}
			rules[i] = &types.AttributeValueMemberM{Value: m}
		}
		item[tableschema.AttrRules] = &types.AttributeValueMemberL{Value: rules}
	}
	if len(f.Targets) > 0 {
		targets := make([]types.AttributeValue, len(f.Targets))
		for i, t := range f.Targets {
			targets[i] = &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
				tableschema.AttrURL:    str(t.URL),
				tableschema.AttrWeight: num(int64(t.Weight)),
			}}
		}
		item[tableschema.AttrTargets] = &types.AttributeValueMemberL{Value: targets}
	}
}

func putStrings(m map[string]types.AttributeValue, name string, vs []string) {
	if len(vs) == 0 {
		return
	}
	l := make([]types.AttributeValue, len(vs))
	for i, v := range vs {
		l[i] = str(v)
	}
	m[name] = &types.AttributeValueMemberL{Value: l}
}

// unmarshalFeatures reads the features of a link item; absent attributes
// are features the link does not use. An attribute of the wrong shape is
// an error: a link decided from half its rules would send visitors where
// its owner did not ask.
func unmarshalFeatures(item map[string]types.AttributeValue) (link.Features, error) {
	var f link.Features
	var err error
	if _, ok := item[tableschema.AttrPasswordHash]; ok {
		f.PasswordHash, err = getS(item, tableschema.AttrPasswordHash, err)
	}
	if _, ok := item[tableschema.AttrMaxClicks]; ok {
		f.MaxClicks, err = getN(item, tableschema.AttrMaxClicks, err)
	}
	if _, ok := item[tableschema.AttrExpiredURL]; ok {
		f.ExpiredURL, err = getS(item, tableschema.AttrExpiredURL, err)
	}
	if v, ok := item[tableschema.AttrForwardQuery]; ok {
		b, isBool := v.(*types.AttributeValueMemberBOOL)
		if !isBool && err == nil {
			err = fmt.Errorf("attribute %s: not a BOOL", tableschema.AttrForwardQuery)
		}
		f.KeepQueryOut = isBool && !b.Value
	}
	if _, ok := item[tableschema.AttrQueryPrecedence]; ok {
		var p string
		p, err = getS(item, tableschema.AttrQueryPrecedence, err)
		f.QueryPrecedence = link.QueryPrecedence(p)
	}
	if err != nil {
		return link.Features{}, err
	}
	if f.Rules, err = getList(item, tableschema.AttrRules, unmarshalRule); err != nil {
		return link.Features{}, err
	}
	if f.Targets, err = getList(item, tableschema.AttrTargets, unmarshalTarget); err != nil {
		return link.Features{}, err
	}
	return f, nil
}

// unmarshalRule reads a rule's map: its URL, and each condition from the
// attribute named as the condition is (link.Condition.Name).
func unmarshalRule(m map[string]types.AttributeValue) (link.Rule, error) {
	var r link.Rule
	var err error
	r.URL, err = getS(m, tableschema.AttrURL, nil)
	for _, c := range link.Conditions {
		*c.Values(&r), err = getStrings(m, c.Name, err)
	}
	return r, err
}

func unmarshalTarget(m map[string]types.AttributeValue) (link.Target, error) {
	u, err := getS(m, tableschema.AttrURL, nil)
	w, err := getN(m, tableschema.AttrWeight, err)
	return link.Target{URL: u, Weight: int(w)}, err
}

// getList decodes the list of maps named name with each; absent is nil.
func getList[T any](item map[string]types.AttributeValue, name string, each func(map[string]types.AttributeValue) (T, error)) ([]T, error) {
	return getListOf(item, name, func(v types.AttributeValue) (T, error) {
		m, ok := v.(*types.AttributeValueMemberM)
		if !ok {
			var zero T
			return zero, errors.New("not a map")
		}
		return each(m.Value)
	})
}

// getStrings reads an optional list of strings; absent is nil.
func getStrings(m map[string]types.AttributeValue, name string, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	return getListOf(m, name, func(v types.AttributeValue) (string, error) {
		s, ok := v.(*types.AttributeValueMemberS)
		if !ok {
			return "", errors.New("not a string")
		}
		return s.Value, nil
	})
}

// getListOf decodes the list named name, each element with each; absent
// is nil. An element's error names its place in the list.
func getListOf[T any](item map[string]types.AttributeValue, name string, each func(types.AttributeValue) (T, error)) ([]T, error) {
	av, ok := item[name]
	if !ok {
		return nil, nil
	}
	l, ok := av.(*types.AttributeValueMemberL)
	if !ok {
		return nil, fmt.Errorf("attribute %s: not a list", name)
	}
	out := make([]T, len(l.Value))
	for i, v := range l.Value {
		var err error
		if out[i], err = each(v); err != nil {
			return nil, fmt.Errorf("attribute %s[%d]: %w", name, i, err)
		}
	}
	return out, nil
}
