package reclaimflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testARN = "arn:aws:lambda:us-east-1:123456789012:function:ShortenerStack-Reclaim1A2B3C4D-5E6F7G8H9I0J"

func parsed(t *testing.T) map[string]any {
	t.Helper()
	def, err := Definition(testARN)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(def), &m))
	return m
}

func TestDefinitionLoop(t *testing.T) {
	m := parsed(t)
	states := m["States"].(map[string]any)
	get := func(name string) map[string]any {
		s, ok := states[name].(map[string]any)
		require.True(t, ok, "state %s", name)
		return s
	}

	start := get(m["StartAt"].(string))
	assert.Equal(t, "Pass", start["Type"])
	assert.Equal(t, map[string]any{"total": 0.0, "expired_total": 0.0, "iteration": 0.0}, start["Parameters"])

	task := get(start["Next"].(string))
	assert.Equal(t, "Task", task["Type"])
	assert.Equal(t, "arn:aws:states:::lambda:invoke", task["Resource"])
	assert.Equal(t, map[string]any{"FunctionName": testARN, "Payload": map[string]any{"total.$": "$.total", "expired_total.$": "$.expired_total"}}, task["Parameters"])
	retry := task["Retry"].([]any)
	require.NotEmpty(t, retry)
	lambdaErrors := retry[0].(map[string]any)
	assert.Contains(t, lambdaErrors["ErrorEquals"], "Lambda.ServiceException")
	assert.Contains(t, lambdaErrors["ErrorEquals"], "Lambda.TooManyRequestsException")
	assert.Greater(t, lambdaErrors["BackoffRate"], 1.0, "retries back off")
	assert.Greater(t, lambdaErrors["MaxAttempts"], 0.0)

	count := get(task["Next"].(string))
	assert.Equal(t, "Pass", count["Type"])
	assert.Equal(t, "States.MathAdd($.iteration, 1)", count["Parameters"].(map[string]any)["iteration.$"])

	choice := get(count["Next"].(string))
	require.Equal(t, "Choice", choice["Type"])
	choices := choice["Choices"].([]any)
	require.Len(t, choices, 1)
	loop := choices[0].(map[string]any)
	assert.Equal(t, stateReclaim, loop["Next"], "more loops back to the task")
	assert.Equal(t, []any{
		map[string]any{"Variable": "$.more", "BooleanEquals": true},
		map[string]any{"Variable": "$.iteration", "NumericLessThan": float64(MaxIterations)},
	}, loop["And"])

	output := get(choice["Default"].(string))
	assert.Equal(t, "Pass", output["Type"])
	assert.Equal(t, map[string]any{"reclaimed.$": "$.total", "expired.$": "$.expired_total", "more.$": "$.more"}, output["Parameters"])
	assert.Equal(t, "Succeed", get(output["Next"].(string))["Type"])

	assert.Len(t, states, 6, "no state outside the loop")
}

func TestDefinitionNeedsAnARN(t *testing.T) {
	_, err := Definition("")
	assert.Error(t, err)
}

// TestDefinitionAndRunAgree executes the definition with a small ASL
// interpreter and Run with the same scripted function: same invocations,
// same waits between retries, same result.
func TestDefinitionAndRunAgree(t *testing.T) {
	errBoom := errors.New("dynamodb unavailable")
	tests := []struct {
		name    string
		script  func(call int, in Input) (Output, error)
		want    Result
		calls   int
		wantErr bool
	}{
		{
			name: "drains in three invocations",
			script: func(call int, in Input) (Output, error) {
				k := []int64{200, 200, 17}[call]
				return Output{Reclaimed: k, Total: in.Total + k, More: call < 2}, nil
			},
			want: Result{Reclaimed: 417}, calls: 3,
		},
		{
			name: "expiries and releases are counted apart",
			script: func(call int, in Input) (Output, error) {
				e, k := []int64{200, 30}[call], []int64{0, 9}[call]
				return Output{Expired: e, ExpiredTotal: in.ExpiredTotal + e, Reclaimed: k, Total: in.Total + k, More: call < 1}, nil
			},
			want: Result{Reclaimed: 9, Expired: 230}, calls: 2,
		},
		{
			name: "nothing due",
			script: func(int, Input) (Output, error) {
				return Output{}, nil
			},
			want: Result{}, calls: 1,
		},
		{
			name: "stops at the iteration bound and says more",
			script: func(_ int, in Input) (Output, error) {
				return Output{Reclaimed: 1, Total: in.Total + 1, More: true}, nil
			},
			want: Result{Reclaimed: MaxIterations, More: true}, calls: MaxIterations,
		},
		{
			name: "a failed invocation is retried",
			script: func(call int, in Input) (Output, error) {
				switch call {
				case 0:
					return Output{Reclaimed: 5, Total: 5, More: true}, nil
				case 1, 2:
					return Output{}, errBoom
				}
				return Output{Reclaimed: 2, Total: in.Total + 2}, nil
			},
			want: Result{Reclaimed: 7}, calls: 4,
		},
		{
			name: "an invocation failing past its retries fails the run",
			script: func(call int, _ Input) (Output, error) {
				if call == 0 {
					return Output{Reclaimed: 5, Total: 5, More: true}, nil
				}
				return Output{}, errBoom
			},
			want: Result{Reclaimed: 5}, calls: 1 + 1 + functionErrorRetrier.MaxAttempts, wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asl := &recorder{script: tt.script}
			ip := interpreter{def: parsed(t), invoke: asl.invoke}
			out, aslErr := ip.execute(map[string]any{"ignored": "input"})

			local := &recorder{script: tt.script}
			got, runErr := run(context.Background(), local.invoke, local.sleep)

			assert.Equal(t, tt.calls, len(local.inputs), "Run's invocations")
			assert.Equal(t, asl.inputs, local.inputs, "same invocations")
			assert.Equal(t, ip.sleeps, local.sleeps, "same waits")
			if tt.wantErr {
				require.Error(t, aslErr)
				require.Error(t, runErr)
				assert.ErrorIs(t, runErr, errBoom)
				assert.Equal(t, tt.want, got, "what was reclaimed before the failure")
				return
			}
			require.NoError(t, aslErr)
			require.NoError(t, runErr)
			assert.Equal(t, tt.want, got)
			var fromASL Result
			b, err := json.Marshal(out)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, &fromASL))
			assert.Equal(t, got, fromASL)
			assert.JSONEq(t, mustJSON(t, got), string(b), "the execution's output is Run's Result")
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// recorder plays the reclaim function from a script and records what it
// was given, and the waits of whoever drives it.
type recorder struct {
	script func(call int, in Input) (Output, error)
	inputs []Input
	sleeps []time.Duration
}

func (r *recorder) invoke(_ context.Context, in Input) (Output, error) {
	r.inputs = append(r.inputs, in)
	return r.script(len(r.inputs)-1, in)
}

func (r *recorder) sleep(_ context.Context, d time.Duration) error {
	r.sleeps = append(r.sleeps, d)
	return nil
}

// interpreter executes the subset of ASL (JSONPath) the definition uses:
// Pass with Parameters, Task lambda:invoke with Parameters, ResultSelector,
// ResultPath and Retry (an invocation error is States.TaskFailed), Choice
// with And/BooleanEquals/NumericLessThan, Succeed. It refuses anything
// else, so a definition that grows past it fails this test.
type interpreter struct {
	def    map[string]any
	invoke Invoke
	sleeps []time.Duration
}

func (ip *interpreter) execute(input any) (any, error) {
	states := ip.def["States"].(map[string]any)
	name := ip.def["StartAt"].(string)
	data := input
	for steps := 0; steps < 100*MaxIterations; steps++ {
		s, ok := states[name].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("no state %q", name)
		}
		switch s["Type"] {
		case "Pass":
			if p, ok := s["Parameters"]; ok {
				data = build(p, data)
			}
		case "Task":
			if s["Resource"] != "arn:aws:states:::lambda:invoke" {
				return nil, fmt.Errorf("resource %v", s["Resource"])
			}
			params := build(s["Parameters"], data).(map[string]any)
			var in Input
			if err := roundTrip(params["Payload"], &in); err != nil {
				return nil, err
			}
			out, err := ip.invokeRetrying(in, s["Retry"])
			if err != nil {
				return nil, err
			}
			var payload any
			if err := roundTrip(out, &payload); err != nil {
				return nil, err
			}
			var result any = map[string]any{"Payload": payload, "StatusCode": 200.0}
			if rs, ok := s["ResultSelector"]; ok {
				result = build(rs, result)
			}
			data = setPath(data, s["ResultPath"].(string), result)
		case "Choice":
			next := s["Default"].(string)
			for _, c := range s["Choices"].([]any) {
				if evalChoice(c.(map[string]any), data) {
					next = c.(map[string]any)["Next"].(string)
					break
				}
			}
			name = next
			continue
		case "Succeed":
			return data, nil
		default:
			return nil, fmt.Errorf("state type %v", s["Type"])
		}
		name = s["Next"].(string)
	}
	return nil, errors.New("no end")
}

func (ip *interpreter) invokeRetrying(in Input, retry any) (Output, error) {
	var r map[string]any
	for _, x := range retry.([]any) {
		if m := x.(map[string]any); slices.Contains(m["ErrorEquals"].([]any), "States.TaskFailed") || slices.Contains(m["ErrorEquals"].([]any), "States.ALL") {
			r = m
			break
		}
	}
	for attempt := 0; ; attempt++ {
		out, err := ip.invoke(context.Background(), in)
		if err == nil || r == nil || attempt >= int(r["MaxAttempts"].(float64)) {
			return out, err
		}
		d := r["IntervalSeconds"].(float64)
		for range attempt {
			d *= r["BackoffRate"].(float64)
		}
		if m, ok := r["MaxDelaySeconds"].(float64); ok && d > m {
			d = m
		}
		ip.sleeps = append(ip.sleeps, time.Duration(d*float64(time.Second)))
	}
}

func roundTrip(from, to any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, to)
}

// build evaluates a Parameters or ResultSelector template against data.
func build(tmpl, data any) any {
	m, ok := tmpl.(map[string]any)
	if !ok {
		return tmpl
	}
	out := map[string]any{}
	for k, v := range m {
		if key, ok := strings.CutSuffix(k, ".$"); ok {
			out[key] = evalExpr(v.(string), data)
			continue
		}
		out[k] = build(v, data)
	}
	return out
}

func evalExpr(expr string, data any) any {
	if args, ok := strings.CutPrefix(expr, "States.MathAdd("); ok {
		parts := strings.Split(strings.TrimSuffix(args, ")"), ",")
		a := evalExpr(strings.TrimSpace(parts[0]), data).(float64)
		b, err := strconv.ParseFloat(strings.TrimSpace(parts[1]), 64)
		if err != nil {
			panic(err)
		}
		return a + b
	}
	return getPath(expr, data)
}

func getPath(path string, data any) any {
	if path == "$" {
		return data
	}
	cur := data
	for _, part := range strings.Split(strings.TrimPrefix(path, "$."), ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			panic(fmt.Sprintf("path %s: not an object", path))
		}
		if cur, ok = m[part]; !ok {
			panic(fmt.Sprintf("path %s: no field %s", path, part))
		}
	}
	return cur
}

func setPath(data any, path string, v any) any {
	field, ok := strings.CutPrefix(path, "$.")
	if !ok || strings.Contains(field, ".") {
		panic("unsupported ResultPath " + path)
	}
	m := map[string]any{}
	for k, x := range data.(map[string]any) {
		m[k] = x
	}
	m[field] = v
	return m
}

func evalChoice(c map[string]any, data any) bool {
	if and, ok := c["And"].([]any); ok {
		for _, x := range and {
			if !evalChoice(x.(map[string]any), data) {
				return false
			}
		}
		return true
	}
	v := getPath(c["Variable"].(string), data)
	if b, ok := c["BooleanEquals"]; ok {
		return v == b
	}
	if n, ok := c["NumericLessThan"]; ok {
		return v.(float64) < n.(float64)
	}
	panic(fmt.Sprintf("unsupported choice rule %v", c))
}

// TestDefinitionPassesASLValidator runs the asl-validator npm package pinned
// in package.json over the definition. It fails, never skips, without Node.js.
func TestDefinitionPassesASLValidator(t *testing.T) {
	validator := aslValidator(t)
	def, err := Definition(testARN)
	require.NoError(t, err)

	tests := []struct {
		name  string
		def   string
		valid bool
	}{
		{name: "the definition", def: def, valid: true},
		// The validator must be able to say no, or the check above proves nothing.
		{name: "a loop to a missing state", def: strings.Replace(def, `"Next": "`+stateReclaim+`"`, `"Next": "Nowhere"`, 1), valid: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "reclaim.asl.json")
			require.NoError(t, os.WriteFile(path, []byte(tt.def), 0o600))
			out, err := exec.Command(validator, "--json-path", path).CombinedOutput()
			if tt.valid {
				assert.NoError(t, err, "asl-validator: %s", out)
				assert.Contains(t, string(out), "is valid")
				return
			}
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "asl-validator ran and refused: %s", out)
			assert.Contains(t, string(out), "MISSING_TRANSITION_TARGET")
		})
	}
}

func aslValidator(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is required to validate the state machine with asl-validator: install Node.js 18+ and run `npm ci` in the repository root: %v", err)
	}
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		bin := filepath.Join(dir, "node_modules", ".bin", "asl-validator")
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if _, err := os.Stat(bin); err != nil {
				t.Fatalf("asl-validator is not installed at %s: run `npm ci` in the repository root", bin)
			}
			return bin
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}
