package infra_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests in this file hold every synthesized template, of both apps, to
// rules CloudFormation enforces only when it deploys (or that make a
// resource deploy but never work), so that a template it would refuse fails
// `make test` instead of `cdk deploy`. Each started as a finding of AWS's
// CloudFormation linter (cfn-lint) on `make synth`'s templates.

// Which intrinsic functions may stand where, from the "Supported functions"
// section of each function's page in the CloudFormation Template
// Reference. A nil list allows any function (or the page lists none to
// check); an empty one allows none: the value must be a literal.
var (
	// https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/intrinsic-function-reference-split.html
	// The source string: Fn::GetStackOutput is not among them.
	splitSource = []string{"Fn::Base64", "Fn::FindInMap", "Fn::GetAtt", "Fn::GetAZs", "Fn::If", "Fn::ImportValue",
		"Fn::Join", "Fn::Select", "Fn::Sub", "Ref"}
	// https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/intrinsic-function-reference-join.html
	// The list of values, as a whole (a function returning a list) and
	// item by item.
	joinList  = []string{"Fn::Cidr", "Fn::FindInMap", "Fn::GetAtt", "Fn::If", "Fn::Split", "Ref"}
	joinItems = []string{"Fn::Base64", "Fn::FindInMap", "Fn::GetAtt", "Fn::GetStackOutput", "Fn::If", "Fn::ImportValue",
		"Fn::Join", "Fn::Select", "Fn::Sub", "Fn::Transform", "Ref"}
	// https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/intrinsic-function-reference-select.html
	selectIndex = []string{"Ref", "Fn::FindInMap"}
	selectList  = []string{"Fn::FindInMap", "Fn::GetAtt", "Fn::GetAZs", "Fn::If", "Fn::Split", "Fn::Cidr", "Ref"}
	selectItems = []string{"Fn::FindInMap", "Fn::GetAtt", "Fn::GetStackOutput", "Fn::If", "Ref"}
	// https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/intrinsic-function-reference-sub.html
	// The variable map's values (the string itself takes none).
	subVariables = []string{"Fn::Base64", "Fn::FindInMap", "Fn::GetAtt", "Fn::GetAZs", "Fn::GetStackOutput", "Fn::If",
		"Fn::ImportValue", "Fn::Join", "Fn::Select", "Fn::Sub", "Fn::ToJsonString", "Fn::Transform", "Ref"}
	// https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/intrinsic-function-reference-getstackoutput.html
	// StackName, OutputName, Region, RoleArn: no Fn::GetStackOutput
	// inside another.
	getStackOutputArgs = []string{"Fn::Base64", "Fn::FindInMap", "Fn::GetAtt", "Fn::If", "Fn::ImportValue", "Fn::Join",
		"Fn::Select", "Fn::Sub", "Ref"}
	literal = []string{}
)

// intrinsic is the function a CloudFormation value calls, if it is one: an
// object with a single key, Ref or Fn::*.
func intrinsic(v any) (name string, arg any, ok bool) {
	m, isMap := v.(map[string]any)
	if !isMap || len(m) != 1 {
		return "", nil, false
	}
	for k, a := range m {
		if k == "Ref" || strings.HasPrefix(k, "Fn::") {
			return k, a, true
		}
	}
	return "", nil, false
}

// misplacedFunctions lists, by path, every function in v that stands where
// the function around it does not take it (the lists above).
func misplacedFunctions(v any, path string, allowed []string) []string {
	var out []string
	var walk func(v any, path string, allowed []string)
	// list is a function's list argument: a function returning a list
	// (allowedAsList) or a literal list of items (allowedItems).
	list := func(v any, path string, allowedAsList, allowedItems []string) {
		if _, _, ok := intrinsic(v); ok {
			walk(v, path, allowedAsList)
			return
		}
		for i, e := range asSlice(v) {
			walk(e, path+"/"+strconv.Itoa(i), allowedItems)
		}
	}
	walk = func(v any, path string, allowed []string) {
		name, arg, ok := intrinsic(v)
		if !ok {
			switch x := v.(type) {
			case []any:
				for i, e := range x {
					walk(e, path+"/"+strconv.Itoa(i), nil)
				}
			case map[string]any:
				for k, e := range x {
					walk(e, path+"/"+k, nil)
				}
			}
			return
		}
		if allowed != nil && !slices.Contains(allowed, name) {
			out = append(out, fmt.Sprintf("%s: %s, where only %v may stand", path, name, allowed))
		}
		path += "/" + name
		args := asSlice(arg)
		switch {
		case name == "Fn::Split" && len(args) == 2:
			walk(args[0], path+"/0", literal)
			walk(args[1], path+"/1", splitSource)
		case name == "Fn::Join" && len(args) == 2:
			walk(args[0], path+"/0", literal)
			list(args[1], path+"/1", joinList, joinItems)
		case name == "Fn::Select" && len(args) == 2:
			walk(args[0], path+"/0", selectIndex)
			list(args[1], path+"/1", selectList, selectItems)
		case name == "Fn::Sub" && len(args) == 2:
			walk(args[0], path+"/0", literal)
			vars, _ := args[1].(map[string]any)
			for k, e := range vars {
				walk(e, path+"/1/"+k, subVariables)
			}
		case name == "Fn::GetStackOutput":
			props, _ := arg.(map[string]any)
			for k, e := range props {
				walk(e, path+"/"+k, getStackOutputArgs)
			}
		default:
			walk(arg, path, nil)
		}
	}
	walk(v, path, allowed)
	sort.Strings(out)
	return out
}

// TestMisplacedFunctionsAreFound: the check above can fail, on the shape
// the origin secret's replica ARN once had (cfn-lint E1022).
func TestMisplacedFunctionsAreFound(t *testing.T) {
	getStackOutput := map[string]any{"Fn::GetStackOutput": map[string]any{"StackName": "Shortener-Data", "OutputName": "X"}}
	splitOfOutput := map[string]any{"Fn::Select": []any{1, map[string]any{"Fn::Split": []any{":", getStackOutput}}}}
	tests := []struct {
		name  string
		value any
		want  []string
	}{
		{"an output as a plain value", getStackOutput, nil},
		{"an output joined", map[string]any{"Fn::Join": []any{"", []any{"arn:", getStackOutput}}}, nil},
		{"an output in a Sub variable", map[string]any{"Fn::Sub": []any{"${X}", map[string]any{"X": getStackOutput}}}, nil},
		{"a Ref split", map[string]any{"Fn::Split": []any{":", map[string]any{"Ref": "Secret"}}}, nil},
		{"an output split", map[string]any{"Fn::Join": []any{"", []any{"arn:", splitOfOutput}}},
			[]string{"/Fn::Join/1/1/Fn::Select/1/Fn::Split/1: Fn::GetStackOutput, where only " + fmt.Sprint(splitSource) + " may stand"}},
		{"a function as a delimiter", map[string]any{"Fn::Join": []any{map[string]any{"Ref": "D"}, []any{"a"}}},
			[]string{"/Fn::Join/0: Ref, where only [] may stand"}},
		{"an output in an output", map[string]any{"Fn::GetStackOutput": map[string]any{"StackName": getStackOutput, "OutputName": "X"}},
			[]string{"/Fn::GetStackOutput/StackName: Fn::GetStackOutput, where only " + fmt.Sprint(getStackOutputArgs) + " may stand"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, misplacedFunctions(tt.value, "", nil))
		})
	}
}

// TestNoFunctionWhereCloudFormationRefusesIt: no template nests a function
// where the function around it does not take it, Fn::GetStackOutput (a
// weak cross-stack reference) inside Fn::Split first of all. CloudFormation
// refuses such a template when it deploys it.
func TestNoFunctionWhereCloudFormationRefusesIt(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		for _, name := range sortedTemplateNames(s) {
			t.Run(s.name+"/"+name, func(t *testing.T) {
				assert.Empty(t, misplacedFunctions(s.templates[name], "", nil))
			})
		}
	}
}

func sortedTemplateNames(s *synthesized) []string {
	names := make([]string, 0, len(s.templates))
	for n := range s.templates {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// cloudFrontNamespace is where CloudFront publishes a distribution's
// metrics, with two dimensions, DistributionId and Region=Global
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/programming-cloudwatch-metrics.html):
// a metric naming only DistributionId has no data, so an alarm on it
// never fires and a graph of it stays empty.
const cloudFrontNamespace = "AWS/CloudFront"

// cloudFrontMetric is one metric on cloudFrontNamespace somewhere in a
// template: where, and its dimensions (values rendered as JSON).
type cloudFrontMetric struct {
	where      string
	dimensions map[string]string
}

// alarmCloudFrontMetrics are the CloudFront metrics of tp's alarms, on a
// metric or inside a metric math expression.
func alarmCloudFrontMetrics(tp tpl) []cloudFrontMetric {
	var out []cloudFrontMetric
	add := func(where string, m any) {
		if get(m, "Namespace") != cloudFrontNamespace {
			return
		}
		dims := map[string]string{}
		for _, d := range asSlice(get(m, "Dimensions")) {
			dims[fmt.Sprint(get(d, "Name"))] = toJSON(get(d, "Value"))
		}
		out = append(out, cloudFrontMetric{where: where, dimensions: dims})
	}
	for _, a := range tp.resources("AWS::CloudWatch::Alarm") {
		add("alarm "+a.ID, a.Props)
		for _, m := range asSlice(a.Props["Metrics"]) {
			add(fmt.Sprintf("alarm %s, metric %v", a.ID, get(m, "Id")), get(m, "MetricStat", "Metric"))
		}
	}
	return out
}

// dashboardCloudFrontMetrics are the CloudFront metrics of tp's dashboard
// widgets. A dashboard body is JSON in a Fn::Join whose tokens stand
// inside its strings: each is read as the string "TOKEN".
func dashboardCloudFrontMetrics(t *testing.T, tp tpl) []cloudFrontMetric {
	var out []cloudFrontMetric
	for _, d := range tp.resources("AWS::CloudWatch::Dashboard") {
		var body strings.Builder
		if s, ok := d.Props["DashboardBody"].(string); ok {
			body.WriteString(s)
		} else {
			for _, part := range asSlice(get(d.Props, "DashboardBody", "Fn::Join", 1)) {
				if s, ok := part.(string); ok {
					body.WriteString(s)
				} else {
					body.WriteString("TOKEN")
				}
			}
		}
		var doc struct {
			Widgets []struct {
				Properties struct {
					Title   string  `json:"title"`
					Metrics [][]any `json:"metrics"`
				} `json:"properties"`
			} `json:"widgets"`
		}
		require.NoError(t, json.Unmarshal([]byte(body.String()), &doc), "dashboard %s", d.ID)
		for _, w := range doc.Widgets {
			for _, m := range w.Properties.Metrics {
				// [namespace, name, dimension, value, ..., {options}]
				if len(m) < 2 || m[0] != cloudFrontNamespace {
					continue
				}
				dims := map[string]string{}
				for i := 2; i+1 < len(m); i += 2 {
					dims[fmt.Sprint(m[i])] = toJSON(m[i+1])
				}
				out = append(out, cloudFrontMetric{where: fmt.Sprintf("dashboard %s, widget %q, %v", d.ID, w.Properties.Title, m[1]), dimensions: dims})
			}
		}
	}
	return out
}

// TestCloudFrontMetricsNameRegionGlobal: every CloudFront metric of every
// template, in alarms and dashboards, names its distribution and
// Region=Global, the dimensions CloudFront publishes it with. (CDK's
// Distribution metric helpers name DistributionId only: aws/aws-cdk#19245.)
func TestCloudFrontMetricsNameRegionGlobal(t *testing.T) {
	for _, s := range []*synthesized{defaults.get(t), custom.get(t)} {
		t.Run(s.name, func(t *testing.T) {
			var metrics []cloudFrontMetric
			for _, name := range sortedTemplateNames(s) {
				tp := tpl(s.templates[name])
				metrics = append(metrics, alarmCloudFrontMetrics(tp)...)
				metrics = append(metrics, dashboardCloudFrontMetrics(t, tp)...)
			}
			// The edge's 5xx alarm and its dashboard's requests, 5xx and 4xx.
			require.GreaterOrEqual(t, len(metrics), 4, "the edge stack watches its distribution")
			for _, m := range metrics {
				assert.Equal(t, `"Global"`, m.dimensions["Region"], "%s: Region=Global", m.where)
				assert.NotEmpty(t, m.dimensions["DistributionId"], "%s: DistributionId", m.where)
				assert.Len(t, m.dimensions, 2, "%s: no other dimension: %v", m.where, m.dimensions)
			}
		})
	}
}

// withOutputs is v with each Fn::GetStackOutput of one of s's stacks
// replaced by that output's value in its stack's template: what
// CloudFormation resolves, for tests that look at it (a region in an
// ARN). A reference it cannot follow stays as it is.
func (s *synthesized) withOutputs(v any) any {
	if name, arg, ok := intrinsic(v); ok && name == "Fn::GetStackOutput" {
		stack, _ := get(arg, "StackName").(string)
		output, _ := get(arg, "OutputName").(string)
		if value := get(s.templates[stack], "Outputs", output, "Value"); value != nil {
			return s.withOutputs(value)
		}
		return v
	}
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = s.withOutputs(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = s.withOutputs(e)
		}
		return out
	}
	return v
}

// resolvedResources is a statement's resources, as JSON, with the stack
// outputs they read resolved (withOutputs).
func (s *synthesized) resolvedResources(st statement) string {
	var v any
	if err := json.Unmarshal([]byte(st.Resources), &v); err != nil {
		return st.Resources
	}
	return toJSON(s.withOutputs(v))
}
