package cfnguard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Finding is one rule a resource of a template does not satisfy.
type Finding struct {
	Template string // file name of the template
	Rule     string // the Guard rule's name, the one SuppressedRules lists
	Control  string // the Control Tower control, e.g. CT.LAMBDA.PR.3
	Resource string // logical ID; "" when the rule names no resource
	Message  string // the rule's message: what it requires and how to fix it
}

func (f Finding) String() string {
	where := f.Resource
	if where == "" {
		where = "(template)"
	}
	return fmt.Sprintf("%s %s: %s [%s] %s", f.Template, where, f.Rule, f.Control, f.Message)
}

// exitNonCompliant is cfn-guard's exit status when a rule fails (0 is all
// compliant; anything else is cfn-guard's own error).
const exitNonCompliant = 19

// Check runs cfn-guard bin with the rules under rulesDir over templates and
// returns the findings no resource suppresses, sorted.
func Check(ctx context.Context, bin, rulesDir string, templates []string) ([]Finding, error) {
	if len(templates) == 0 {
		return nil, errors.New("no templates to check")
	}
	args := []string{"validate", "--rules", rulesDir, "--structured", "--show-summary", "none", "--output-format", "json"}
	for _, t := range templates {
		// cfn-guard reports each file by its absolute path, which
		// Unsuppressed opens again.
		abs, err := filepath.Abs(t)
		if err != nil {
			return nil, err
		}
		args = append(args, "--data", abs)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != exitNonCompliant {
			return nil, fmt.Errorf("cfn-guard: %w: %s", err, strings.TrimSpace(stderr.String()))
		}
	}
	return Unsuppressed(stdout.Bytes())
}

// report is the part of cfn-guard's structured JSON output (one entry per
// data file) that Check reads.
type report struct {
	Name         string           `json:"name"`
	NotCompliant []map[string]any `json:"not_compliant"`
}

var (
	// A failed check names the properties it traversed:
	// "/Resources/<logical ID>/Properties/...".
	resourcePath = regexp.MustCompile(`"/Resources/([A-Za-z0-9]+)`)
	// The rule's message, in the JSON text: "[CT.<service>.PR.<n>]: what\n[FIX]: ...".
	controlID = regexp.MustCompile(`\[(CT\.[A-Z0-9]+\.PR\.[0-9]+)\]:\s*([^"\\]*)`)
)

// Unsuppressed reads cfn-guard's structured JSON output, opens the
// templates it names, and returns the findings whose resource does not
// list the rule in Metadata.guard.SuppressedRules.
func Unsuppressed(output []byte) ([]Finding, error) {
	var reports []report
	if err := json.Unmarshal(output, &reports); err != nil {
		return nil, fmt.Errorf("cfn-guard output: %w", err)
	}
	var out []Finding
	for _, r := range reports {
		if len(r.NotCompliant) == 0 {
			continue
		}
		suppressed, err := Suppressions(r.Name)
		if err != nil {
			return nil, err
		}
		for _, nc := range r.NotCompliant {
			rule, _ := nc["Rule"].(map[string]any)
			name, _ := rule["name"].(string)
			raw, err := json.Marshal(nc)
			if err != nil {
				return nil, err
			}
			var control, message string
			if m := controlID.FindSubmatch(raw); m != nil {
				control, message = string(m[1]), strings.TrimSpace(string(m[2]))
			}
			ids := map[string]bool{}
			for _, m := range resourcePath.FindAllSubmatch(raw, -1) {
				ids[string(m[1])] = true
			}
			if len(ids) == 0 {
				ids[""] = true
			}
			for id := range ids {
				if id != "" && slices.Contains(suppressed[id], name) {
					continue
				}
				out = append(out, Finding{Template: filepath.Base(r.Name), Rule: name, Control: control, Resource: id, Message: message})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out, nil
}

// Suppressions reads a template's suppressions: the rules each resource
// lists in Metadata.guard.SuppressedRules, by logical ID.
func Suppressions(template string) (map[string][]string, error) {
	raw, err := os.ReadFile(template)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Resources map[string]struct {
			Metadata struct {
				Guard struct {
					SuppressedRules []string `json:"SuppressedRules"`
				} `json:"guard"`
			} `json:"Metadata"`
		} `json:"Resources"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("template %s: %w", template, err)
	}
	out := map[string][]string{}
	for id, r := range doc.Resources {
		if rules := r.Metadata.Guard.SuppressedRules; len(rules) > 0 {
			out[id] = rules
		}
	}
	return out, nil
}
