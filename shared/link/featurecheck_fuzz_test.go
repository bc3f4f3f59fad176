package link_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/shortlink-dev/shortener/shared/link"
)

// fieldPath is every field name ValidateFeatures may give.
var fieldPath = regexp.MustCompile(`^(password|max_clicks|expired_url|rules|rules\[\d+\](\.url|\.(` +
	conditionNames("|") + `)(\[\d+\])?)?|targets|targets\[\d+\]\.(url|weight))$`)

func conditionNames(sep string) string {
	var names []string
	for _, c := range link.Conditions {
		names = append(names, c.Name)
	}
	return strings.Join(names, sep)
}

// featuresJSON is the fuzzer's input shape: the API's JSON for the fields.
type featuresJSON struct {
	Password   *string       `json:"password"`
	MaxClicks  *int64        `json:"max_clicks"`
	ExpiredURL string        `json:"expired_url"`
	Rules      []link.Rule   `json:"rules"`
	Targets    []link.Target `json:"targets"`
}

func (j featuresJSON) request() link.FeaturesRequest {
	return link.FeaturesRequest{Password: j.Password, MaxClicks: j.MaxClicks, ExpiredURL: j.ExpiredURL, Rules: j.Rules,
		Targets: j.Targets}
}

// FuzzValidateFeatures checks that any input is either refused with a
// *FieldError naming a real field, or accepted in a form that obeys every
// limit and validates again to itself. testdata/fuzz/FuzzValidateFeatures
// holds more seeds.
func FuzzValidateFeatures(f *testing.F) {
	for _, s := range []string{
		`{}`,
		`{"password":"hunter22","max_clicks":5}`,
		`{"rules":[{"url":"https://de.example","country":["de","AT"],"device":["mobile"]}]}`,
		`{"rules":[{"url":"https://x.example","os":["iOS"],"language":["deu","fr"]}],"targets":[{"url":"https://a.example","weight":70},{"url":"https://b.example","weight":30}]}`,
		`{"rules":[{"url":"https://x.example"}]}`,
		`{"targets":[{"url":"https://a.example","weight":100}]}`,
		`{"expired_url":"https://sho.rt/loop"}`,
	} {
		f.Add([]byte(s))
	}
	rules := link.Rules{ShortDomains: []string{"sho.rt"}}
	f.Fuzz(func(t *testing.T, data []byte) {
		var in featuresJSON
		if json.Unmarshal(data, &in) != nil {
			return
		}
		req := in.request()
		got, err := rules.ValidateFeatures(req)
		if err != nil {
			fe, ok := err.(*link.FieldError)
			if !ok || !fieldPath.MatchString(fe.Field) || fe.Reason == "" {
				t.Fatalf("ValidateFeatures(%s): error %T %v does not name a field", data, err, err)
			}
			return
		}
		if len(got.Rules) > link.MaxRules {
			t.Fatalf("%d rules accepted", len(got.Rules))
		}
		for i, r := range got.Rules {
			if r.Equal(link.Rule{URL: r.URL}) {
				t.Fatalf("rule %d has no condition", i)
			}
			for _, c := range r.Country {
				if len(c) != 2 || c != strings.ToUpper(c) {
					t.Fatalf("country %q accepted", c)
				}
			}
			for _, d := range r.Device {
				if !slices.Contains(link.Devices, d) {
					t.Fatalf("device %q accepted", d)
				}
			}
			for _, o := range r.OS {
				if !slices.Contains(link.OSes, o) {
					t.Fatalf("os %q accepted", o)
				}
			}
			for _, l := range r.Language {
				if l != strings.ToLower(l) || len(l) < 2 || len(l) > 3 {
					t.Fatalf("language %q accepted", l)
				}
			}
		}
		if n := len(got.Targets); n != 0 {
			sum := 0
			for _, tg := range got.Targets {
				sum += tg.Weight
			}
			if n < link.MinTargets || n > link.MaxTargets || sum != 100 {
				t.Fatalf("%d targets summing to %d accepted", n, sum)
			}
		}
		// The stored form validates again to itself: a link read back
		// never fails the checks it was written under.
		again := link.FeaturesRequest{Rules: got.Rules, Targets: got.Targets, ExpiredURL: got.ExpiredURL}
		if req.Password != nil {
			again.Password = &got.Password
		}
		if req.MaxClicks != nil {
			again.MaxClicks = &got.MaxClicks
		}
		got2, err := rules.ValidateFeatures(again)
		if err != nil {
			t.Fatalf("accepted form %+v refused: %v", got, err)
		}
		if !featuresEqual(got, got2) {
			t.Fatalf("not idempotent: %+v then %+v", got, got2)
		}
	})
}

func featuresEqual(a, b link.ValidatedFeatures) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}
