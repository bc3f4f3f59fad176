package main

import (
	"bufio"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/linkapi"
)

// ruleKeys are the parts of a --rule, as the API names them: url and
// the conditions.
var ruleKeys = func() []string {
	keys := []string{"url"}
	for _, c := range link.Conditions {
		keys = append(keys, c.Name)
	}
	return keys
}()

// parseRule reads a --rule: parts separated by ";", each KEY=VALUES with
// the values of a condition separated by ",":
//
//	country=DE,AT;device=mobile;url=https://example.com/de
//
// The url's value is taken whole, commas included; a ";" inside it is
// kept when what follows it does not start a known KEY=. The API checks
// the values; this only splits them.
func parseRule(s string) (linkapi.Rule, error) {
	var r linkapi.Rule
	seen := map[string]bool{}
	last := ""
	for _, part := range strings.Split(s, ";") {
		key, val, ok := strings.Cut(part, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		if !ok || !contains(ruleKeys, key) {
			if strings.TrimSpace(part) == "" {
				continue // a trailing or doubled ";"
			}
			if last == "url" {
				r.URL += ";" + part // a ";" that belongs to the URL
				continue
			}
			return r, usagef("--rule %q: %q is not KEY=VALUES with KEY one of %s", s, part, strings.Join(ruleKeys, ", "))
		}
		if seen[key] {
			return r, usagef("--rule %q: %s is given twice", s, key)
		}
		seen[key], last = true, key
		if key == "url" {
			r.URL = strings.TrimSpace(val)
			continue
		}
		var values []string
		for _, v := range strings.Split(val, ",") {
			if v = strings.TrimSpace(v); v != "" {
				values = append(values, v)
			}
		}
		for _, c := range link.Conditions {
			if c.Name == key {
				*c.Values(&r) = values
			}
		}
	}
	if r.URL == "" {
		return r, usagef("--rule %q: give the rule's url=", s)
	}
	return r, nil
}

// formatRule writes r in --rule syntax, url last.
func formatRule(r linkapi.Rule) string {
	var parts []string
	for _, c := range link.Conditions {
		if values := *c.Values(&r); len(values) > 0 {
			parts = append(parts, c.Name+"="+strings.Join(values, ","))
		}
	}
	return strings.Join(append(parts, "url="+r.URL), ";")
}

// parseTarget reads a --target URL=WEIGHT; the weight follows the last
// "=", so a URL with a query keeps its own.
func parseTarget(s string) (linkapi.Target, error) {
	i := strings.LastIndex(s, "=")
	if i < 0 {
		return linkapi.Target{}, usagef("--target %q: give URL=WEIGHT, such as https://a.example=70", s)
	}
	w, err := strconv.Atoi(strings.TrimSpace(s[i+1:]))
	if err != nil {
		return linkapi.Target{}, usagef("--target %q: the weight after the last = must be a whole number", s)
	}
	u := strings.TrimSpace(s[:i])
	if u == "" {
		return linkapi.Target{}, usagef("--target %q: give the URL before =WEIGHT", s)
	}
	return linkapi.Target{URL: u, Weight: w}, nil
}

func formatTarget(t linkapi.Target) string { return t.URL + "=" + strconv.Itoa(t.Weight) }

// featureFlags are the redirect-rule flags shorten and edit share.
type featureFlags struct {
	password   string
	maxClicks  int64
	rules      []string
	targets    []string
	expiredURL string
	clear      []string // edit only
}

// clearable are the fields edit --clear removes.
var clearable = []string{"password", "max-clicks", "rules", "targets", "expired-url"}

func (ff *featureFlags) register(f *pflag.FlagSet, edit bool) {
	f.StringVar(&ff.password, "password", "", `visitors must give this password (8-128 characters); "-" reads it from the first line of stdin`)
	f.Int64Var(&ff.maxClicks, "max-clicks", 0, "answer 410 after this many human clicks")
	// StringArray, not StringSlice: a rule holds commas of its own.
	f.StringArrayVar(&ff.rules, "rule", nil, "a redirect rule, repeatable, tried in order: 'country=DE,AT;device=mobile;os=ios;language=de;url=https://...'")
	f.StringArrayVar(&ff.targets, "target", nil, "a weighted split target URL=WEIGHT, repeatable (2-10, weights summing to 100)")
	f.StringVar(&ff.expiredURL, "expired-url", "", "where visitors go once the link has expired, instead of the 410 page")
	if edit {
		f.StringSliceVar(&ff.clear, "clear", nil, "remove these: "+strings.Join(clearable, ", "))
	}
}

// readPassword returns the --password value, reading it from stdin for "-".
func readPassword(flag string, stdin io.Reader) (string, error) {
	if flag != "-" {
		return flag, nil
	}
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && (err != io.EOF || line == "") {
		return "", usagef("--password -: read the password from stdin: no line to read")
	}
	return strings.TrimRight(line, "\r\n"), nil
}

func parseAll[T any](flags []string, parse func(string) (T, error)) ([]T, error) {
	var out []T
	for _, s := range flags {
		v, err := parse(s)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// create applies the flags to a create request.
func (ff *featureFlags) create(f *pflag.FlagSet, stdin io.Reader, body *linkapi.CreateRequest) error {
	if f.Changed("password") {
		pw, err := readPassword(ff.password, stdin)
		if err != nil {
			return err
		}
		body.Password = &pw
	}
	if f.Changed("max-clicks") {
		n := ff.maxClicks
		body.MaxClicks = &n
	}
	var err error
	if body.Rules, err = parseAll(ff.rules, parseRule); err != nil {
		return err
	}
	if body.Targets, err = parseAll(ff.targets, parseTarget); err != nil {
		return err
	}
	body.ExpiredURL = ff.expiredURL
	return nil
}

// patch applies the flags to a patch: a flag given sets its field, a
// field named by --clear is sent as null.
func (ff *featureFlags) patch(f *pflag.FlagSet, stdin io.Reader, body *linkapi.PatchRequest) error {
	for _, c := range ff.clear {
		if !contains(clearable, c) {
			return usagef("--clear %q: give one or more of %s", c, strings.Join(clearable, ", "))
		}
		flag := c
		if c == "rules" || c == "targets" {
			flag = strings.TrimSuffix(c, "s")
		}
		if f.Changed(flag) {
			return usagef("--clear %s and --%s: give one or the other", c, flag)
		}
	}
	cleared := func(name string) bool { return contains(ff.clear, name) }
	switch {
	case cleared("password"):
		body.Password = linkapi.Null[string]()
	case f.Changed("password"):
		pw, err := readPassword(ff.password, stdin)
		if err != nil {
			return err
		}
		body.Password = linkapi.Of(pw)
	}
	switch {
	case cleared("max-clicks"):
		body.MaxClicks = linkapi.Null[int64]()
	case f.Changed("max-clicks"):
		body.MaxClicks = linkapi.Of(ff.maxClicks)
	}
	switch {
	case cleared("rules"):
		body.Rules = linkapi.Null[[]linkapi.Rule]()
	case f.Changed("rule"):
		rules, err := parseAll(ff.rules, parseRule)
		if err != nil {
			return err
		}
		body.Rules = linkapi.Of(rules)
	}
	switch {
	case cleared("targets"):
		body.Targets = linkapi.Null[[]linkapi.Target]()
	case f.Changed("target"):
		targets, err := parseAll(ff.targets, parseTarget)
		if err != nil {
			return err
		}
		body.Targets = linkapi.Of(targets)
	}
	switch {
	case cleared("expired-url"):
		body.ExpiredURL = linkapi.Null[string]()
	case f.Changed("expired-url"):
		body.ExpiredURL = linkapi.Of(ff.expiredURL)
	}
	return nil
}

// featureRows are the detail rows of a link's redirect-rule fields.
func featureRows(l linkapi.Features) [][2]string {
	var rows [][2]string
	if l.Protected {
		rows = append(rows, [2]string{"protected", "true (password)"})
	}
	if l.MaxClicks > 0 {
		rows = append(rows, [2]string{"max_clicks", strconv.FormatInt(l.MaxClicks, 10)})
	}
	for i, r := range l.Rules {
		rows = append(rows, [2]string{"rule " + strconv.Itoa(i+1), formatRule(r)})
	}
	for _, t := range l.Targets {
		rows = append(rows, [2]string{"target", formatTarget(t)})
	}
	if l.ExpiredURL != "" {
		rows = append(rows, [2]string{"expired_url", l.ExpiredURL})
	}
	return rows
}
