package reclaimflow

import (
	"encoding/json"
	"errors"
	"fmt"
)

// State names, shared with the tests that read the definition back.
const (
	stateStart   = "Start"
	stateReclaim = "Reclaim"
	stateCount   = "Count"
	stateMore    = "MoreDue"
	stateOutput  = "Output"
	stateDone    = "Done"
)

// The definition's JSON shape, as far as this state machine uses ASL
// (JSONPath query language).
type (
	machine struct {
		Comment string           `json:"Comment"`
		StartAt string           `json:"StartAt"`
		States  map[string]state `json:"States"`
	}
	state struct {
		Type           string         `json:"Type"`
		Comment        string         `json:"Comment,omitempty"`
		Resource       string         `json:"Resource,omitempty"`
		Parameters     map[string]any `json:"Parameters,omitempty"`
		ResultSelector map[string]any `json:"ResultSelector,omitempty"`
		ResultPath     string         `json:"ResultPath,omitempty"`
		Retry          []retrier      `json:"Retry,omitempty"`
		Choices        []choice       `json:"Choices,omitempty"`
		Default        string         `json:"Default,omitempty"`
		Next           string         `json:"Next,omitempty"`
	}
	choice struct {
		And  []condition `json:"And"`
		Next string      `json:"Next"`
	}
	condition struct {
		Variable        string `json:"Variable"`
		BooleanEquals   *bool  `json:"BooleanEquals,omitempty"`
		NumericLessThan *int   `json:"NumericLessThan,omitempty"`
	}
)

// Definition returns the reclaim state machine in Amazon States Language,
// for a Standard workflow whose task invokes reclaimFunctionARN. A CDK
// token (fn.FunctionArn()) is fine: CDK resolves tokens inside the string.
// No execution timeout is set: each invocation is bounded by the function's
// timeout and an execution by MaxIterations invocations.
//
// The loop, which Run follows step for step:
//
//	Start    Pass    {"total": 0, "expired_total": 0, "iteration": 0}
//	Reclaim  Task    invoke with {"total", "expired_total"}; keep reclaimed, total, expired_total, more; retry
//	Count    Pass    total, expired_total and more from the answer, iteration + 1
//	MoreDue  Choice  more and iteration < MaxIterations -> Reclaim, else Output
//	Output   Pass    {"reclaimed": total, "expired": expired_total, "more": more}
//	Done     Succeed
func Definition(reclaimFunctionARN string) (string, error) {
	if reclaimFunctionARN == "" {
		return "", errors.New("reclaim function ARN is empty")
	}
	yes, limit := true, MaxIterations
	m := machine{
		Comment: fmt.Sprintf("Releases tombstones past their grace: invokes the reclaim function with the running total "+
			"until it reports no more due, at most %d times per execution; the next scheduled execution continues.", MaxIterations),
		StartAt: stateStart,
		States: map[string]state{
			stateStart: {
				Type:       "Pass",
				Comment:    "The execution's input is ignored: every run starts from zero.",
				Parameters: map[string]any{"total": 0, "expired_total": 0, "iteration": 0},
				Next:       stateReclaim,
			},
			stateReclaim: {
				Type:     "Task",
				Resource: "arn:aws:states:::lambda:invoke",
				Parameters: map[string]any{
					"FunctionName": reclaimFunctionARN,
					"Payload":      map[string]any{"total.$": "$.total", "expired_total.$": "$.expired_total"},
				},
				ResultSelector: map[string]any{
					"reclaimed.$":     "$.Payload.reclaimed",
					"total.$":         "$.Payload.total",
					"expired_total.$": "$.Payload.expired_total",
					"more.$":          "$.Payload.more",
				},
				ResultPath: "$.last",
				Retry:      []retrier{lambdaErrorRetrier, functionErrorRetrier},
				Next:       stateCount,
			},
			stateCount: {
				Type: "Pass",
				Parameters: map[string]any{
					"total.$":         "$.last.total",
					"expired_total.$": "$.last.expired_total",
					"more.$":          "$.last.more",
					"iteration.$":     "States.MathAdd($.iteration, 1)",
				},
				Next: stateMore,
			},
			stateMore: {
				Type: "Choice",
				Choices: []choice{{
					And: []condition{
						{Variable: "$.more", BooleanEquals: &yes},
						{Variable: "$.iteration", NumericLessThan: &limit},
					},
					Next: stateReclaim,
				}},
				Default: stateOutput,
			},
			stateOutput: {
				Type:       "Pass",
				Parameters: map[string]any{"reclaimed.$": "$.total", "expired.$": "$.expired_total", "more.$": "$.more"},
				Next:       stateDone,
			},
			stateDone: {Type: "Succeed"},
		},
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", err
	}
	return string(b), nil
}
