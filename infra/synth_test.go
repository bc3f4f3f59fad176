package infra_test

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/infra"
)

// Synthesis goes through jsii (a Node process) and takes tens of seconds,
// so the package synthesizes two apps once and every test reads them:
//
//   - defaults: cdk.json's context as shipped (us-east-1 primary, us-west-2
//     failover, no custom domain, no hosted zone, WAF off: the miss budget
//     and the canonical-path function instead);
//   - custom: three regions of one MRSC Region set with eu-west-1 as
//     primary (a reservation table over three replicas, the /v1 API in
//     each; the edge's us-east-1 is none of them), a custom domain and
//     certificate, a hosted zone (so /v1 fails over by DNS), WAF on, the
//     alarm e-mail, the origin secret pinned to a version (every optional
//     feature on, sign-in federating a SAML and an OIDC provider too); its recorded deployment
//     (docs/deploy.md) has one region fewer and predates the reservation
//     table (a new table is no loss).
var (
	defaults = &synthesized{name: "defaults", overrides: map[string]any{}}
	custom   = &synthesized{name: "custom", deployments: infra.Deployments{Installs: []infra.Install{{
		// Recorded with two of its three regions: adding one is safe.
		Account: testAccount, AppName: "Shortener", PrimaryRegion: "eu-west-1", Regions: []string{"eu-west-1", "eu-central-1"},
	}}}, overrides: map[string]any{
		infra.CtxRegions:        []any{"eu-west-1", "eu-central-1", "eu-west-2"},
		infra.CtxPrimaryRegion:  "eu-west-1",
		infra.CtxDomainName:     "sho.rt",
		infra.CtxCertificateARN: "arn:aws:acm:us-east-1:123456789012:certificate/0b5c2a8e-1111-2222-3333-444455556666",
		infra.CtxHostedZoneID:   "Z0123456789EXAMPLE",
		infra.CtxHostedZoneName: "sho.rt",
		infra.CtxWAF:            true,
		infra.CtxAlarmEmail:     "ops@example.com",
		infra.CtxCodeLength:     9,
		// Audit entries kept 400 days, then deleted by TTL.
		infra.CtxAuditRetentionDays: 400,
		// Recorded before the by-owner projection was a setting: its
		// index projects ALL, and keeps doing so.
		infra.CtxOwnerIndexProjection: "ALL",
		// The second step of an origin secret rotation (docs/deploy.md).
		infra.CtxOriginSecretVersion: "a1b2c3d4-5678-90ab-cdef-EXAMPLE11111",
		// Sign-in, federating a SAML and an OIDC provider (docs/identity.md).
		infra.CtxAuth:                     true,
		infra.CtxAuthSAMLName:             "Entra",
		infra.CtxAuthSAMLMetadataURL:      "https://login.microsoftonline.com/00000000-0000-0000-0000-000000000000/federationmetadata/2007-06/federationmetadata.xml",
		infra.CtxAuthOIDCName:             "Google",
		infra.CtxAuthOIDCIssuer:           "https://accounts.google.com",
		infra.CtxAuthOIDCClientID:         "1234-example.apps.googleusercontent.com",
		infra.CtxAuthOIDCClientSecretName: "shortener/google-oidc",
	}}
)

const testAccount = "123456789012"

var (
	repoRoot  string
	assetDir  string
	outRoot   string
	setupOnce sync.Once
	setupErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if outRoot != "" {
		os.RemoveAll(outRoot)
	}
	if assetDir != "" {
		os.RemoveAll(assetDir)
	}
	jsii.Close()
	os.Exit(code)
}

// setup makes placeholder function zips, so the tests do not need `make
// build`. The jsii kernel (Node) starts while the CDK packages initialise,
// before any test code runs, so its environment (HOME for its package
// cache, JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION) comes from the
// caller: see `make test-infra`.
func setup() error {
	setupOnce.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		repoRoot = filepath.Dir(filepath.Dir(file))
		if assetDir, setupErr = os.MkdirTemp("", "shortener-assets-"); setupErr != nil {
			return
		}
		if outRoot, setupErr = os.MkdirTemp("", "shortener-cdk-out-"); setupErr != nil {
			return
		}
		// The console's build, as console/build.mjs leaves it.
		if setupErr = os.MkdirAll(filepath.Join(assetDir, "console", "assets"), 0o755); setupErr != nil {
			return
		}
		for name, body := range map[string]string{"index.html": "<!doctype html>", "assets/app-TEST1234.js": "", "assets/app-TEST1234.css": ""} {
			if setupErr = os.WriteFile(filepath.Join(assetDir, "console", name), []byte(body), 0o644); setupErr != nil {
				return
			}
		}
		for _, fn := range []string{"create", "redirect", "originauth", "apiauth", "manage", "stats", "ttlstream", "reclaim", "clicks",
			"webhooks", "webhookdelivery", "webhookstream", "auditarchive"} {
			if setupErr = placeholderZip(filepath.Join(assetDir, fn+".zip"), fn); setupErr != nil {
				return
			}
		}
	})
	return setupErr
}

func placeholderZip(path, name string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	z := zip.NewWriter(f)
	w, err := z.Create("bootstrap")
	if err == nil {
		_, err = w.Write([]byte("placeholder for " + name))
	}
	if cerr := z.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// synthesized is one app, built and synthesized on first use.
type synthesized struct {
	name        string
	overrides   map[string]any
	deployments infra.Deployments // what deployment.json would record

	once      sync.Once
	err       error
	cfg       infra.Config
	stacks    *infra.Stacks
	outDir    string                    // the cloud assembly: <stack>.template.json files
	templates map[string]map[string]any // by stack name
	messages  map[string][]message
}

// message is a synthesis message (an annotation), as JSON gives it.
type message struct {
	Level string `json:"level"` // INFO, WARNING, ERROR
	ID    string `json:"id"`    // the construct path
	Entry struct {
		Data any `json:"data"`
	} `json:"entry"`
}

func (s *synthesized) get(t *testing.T) *synthesized {
	t.Helper()
	s.once.Do(func() {
		if s.err = setup(); s.err != nil {
			return
		}
		ctx, err := cdkJSONContext()
		if err != nil {
			s.err = err
			return
		}
		ctx[infra.CtxAccount] = testAccount
		ctx[infra.CtxAssetDir] = assetDir
		for k, v := range s.overrides {
			ctx[k] = v
		}
		out, err := os.MkdirTemp(outRoot, "app-")
		if err != nil {
			s.err = err
			return
		}
		s.outDir = out
		// A failed validation (an unsuppressed cdk-nag error) panics through
		// jsii; report it with the validation report CDK wrote.
		defer func() {
			if r := recover(); r != nil {
				report, _ := os.ReadFile(filepath.Join(out, "validation-report.json"))
				s.err = fmt.Errorf("synthesis failed: %v\n%s", r, report)
			}
		}()
		app := awscdk.NewApp(&awscdk.AppProps{Context: &ctx, Outdir: jsii.String(out)})
		if s.cfg, s.err = infra.ConfigFromContext(app.Node()); s.err != nil {
			return
		}
		s.cfg.Deployments = s.deployments
		if s.stacks, s.err = infra.Build(app, s.cfg); s.err != nil {
			return
		}
		// One synthesis: assertions.Template_FromStack and
		// Annotations_FromStack would each synthesize the app again.
		asm := app.Synth(nil)
		s.templates = map[string]map[string]any{}
		s.messages = map[string][]message{}
		for _, st := range s.stacks.All() {
			art := asm.GetStackArtifact(st.ArtifactId())
			raw, err := json.Marshal(art.Template())
			if err == nil {
				var tpl map[string]any
				err = json.Unmarshal(raw, &tpl)
				s.templates[*st.StackName()] = tpl
			}
			if err != nil {
				s.err = fmt.Errorf("template of %s: %w", *st.StackName(), err)
				return
			}
			var msgs []message
			if raw, err := json.Marshal(art.Messages()); err != nil || json.Unmarshal(raw, &msgs) != nil {
				s.err = fmt.Errorf("messages of %s: %v", *st.StackName(), err)
				return
			}
			s.messages[*st.StackName()] = msgs
		}
	})
	require.NoError(t, s.err)
	return s
}

// cdkJSONContext is the context cdk.json ships: the defaults the CLI runs with.
func cdkJSONContext() (map[string]any, error) {
	raw, err := os.ReadFile(filepath.Join(repoRoot, "cdk.json"))
	if err != nil {
		return nil, err
	}
	var doc struct {
		Context map[string]any `json:"context"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("cdk.json: %w", err)
	}
	return doc.Context, nil
}

func (s *synthesized) regional(region string) tpl {
	return tpl(s.templates[s.cfg.AppName+"-Regional-"+region])
}
func (s *synthesized) data() tpl { return tpl(s.templates[s.cfg.AppName+"-Data"]) }
func (s *synthesized) edge() tpl { return tpl(s.templates[s.cfg.AppName+"-Edge"]) }

// tpl is a synthesized CloudFormation template.
type tpl map[string]any

type resource struct {
	ID    string
	Type  string
	Props map[string]any
}

func (t tpl) resources(typ string) []resource {
	var out []resource
	for id, r := range t["Resources"].(map[string]any) {
		r := r.(map[string]any)
		if r["Type"] == typ {
			props, _ := r["Properties"].(map[string]any)
			out = append(out, resource{ID: id, Type: typ, Props: props})
		}
	}
	return out
}

// resourcesNamed are the resources of type typ whose logical ID starts
// with prefix (the construct path CDK builds it from).
func (t tpl) resourcesNamed(typ, prefix string) []resource {
	var out []resource
	for _, r := range t.resources(typ) {
		if strings.HasPrefix(r.ID, prefix) {
			out = append(out, r)
		}
	}
	return out
}

func (t tpl) resource(id string) resource {
	r, ok := t["Resources"].(map[string]any)[id].(map[string]any)
	if !ok {
		return resource{}
	}
	props, _ := r["Properties"].(map[string]any)
	return resource{ID: id, Type: r["Type"].(string), Props: props}
}

// function finds a function by its construct name (golambda under
// "<Name>Function").
func (t tpl) function(name string) (resource, bool) {
	prefix := strings.ToUpper(name[:1]) + name[1:] + "Function"
	for _, r := range t.resources("AWS::Lambda::Function") {
		if strings.HasPrefix(r.ID, prefix) && !strings.Contains(r.ID[len(prefix):], "Role") {
			return r, true
		}
	}
	return resource{}, false
}

// statement is one IAM policy statement, its resources rendered as JSON
// so intrinsic functions can be matched as text.
type statement struct {
	Effect    string
	Actions   []string
	Resources string
	Condition map[string]any
}

// roleStatements gathers every statement a function's role grants: the
// policies attached to it and its inline policies. Managed policies are
// returned separately (there should be none).
func (t tpl) roleStatements(fn resource) (stmts []statement, managed []string) {
	roleID := fn.Props["Role"].(map[string]any)["Fn::GetAtt"].([]any)[0].(string)
	role := t.resource(roleID)
	for _, m := range asSlice(role.Props["ManagedPolicyArns"]) {
		managed = append(managed, toJSON(m))
	}
	var docs []any
	for _, p := range asSlice(role.Props["Policies"]) {
		docs = append(docs, p.(map[string]any)["PolicyDocument"])
	}
	for _, p := range t.resources("AWS::IAM::Policy") {
		for _, r := range asSlice(p.Props["Roles"]) {
			if ref, ok := r.(map[string]any)["Ref"]; ok && ref == roleID {
				docs = append(docs, p.Props["PolicyDocument"])
			}
		}
	}
	for _, d := range docs {
		for _, s := range asSlice(d.(map[string]any)["Statement"]) {
			s := s.(map[string]any)
			var actions []string
			for _, a := range asSlice(s["Action"]) {
				actions = append(actions, a.(string))
			}
			cond, _ := s["Condition"].(map[string]any)
			stmts = append(stmts, statement{Effect: s["Effect"].(string), Actions: actions, Resources: toJSON(s["Resource"]), Condition: cond})
		}
	}
	return stmts, managed
}

func asSlice(v any) []any {
	switch v := v.(type) {
	case nil:
		return nil
	case []any:
		return v
	default:
		return []any{v}
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// get walks a path of map keys and slice indexes.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			s, ok := v.([]any)
			if !ok || k >= len(s) {
				return nil
			}
			v = s[k]
		}
	}
	return v
}

// assertCDK runs an assertions call, which reports a mismatch by panicking
// through jsii, as a test failure.
func assertCDK(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: %v", what, r)
		}
	}()
	f()
}
