package functions

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEachBootstrapLinksOnlyTheServicesItCalls: a package's init runs in
// every binary that links it, and the SDK's service packages build their
// endpoint and schema tables in theirs, so a bootstrap that linked every
// client paid for all of them at each cold start (docs/benchmarks.md,
// "Cold start"). Each function links the SDK service clients it calls and
// no others, and none links the SDK's config package (its SSO, STS and
// metadata providers do not apply in Lambda; shared/fnclients reads the
// environment Lambda sets instead).
func TestEachBootstrapLinksOnlyTheServicesItCalls(t *testing.T) {
	want := map[string][]string{
		"redirect": {"dynamodb"}, "stats": {"dynamodb"}, "ttlstream": {"dynamodb"}, "reclaim": {"dynamodb"},
		"webhooks": {"dynamodb"},
		// create and manage learn, without a custom domain, the short
		// links' host from the edge parameter in SSM when first needed
		// (fnclients.Clients.EdgeSource), and manage the distribution it invalidates. They
		// read it with ssmparam and manage invalidates with cfinvalidate,
		// not SSM's and CloudFront's clients, whose init was most of their
		// cold start; create invalidates nothing.
		"create": {"dynamodb"}, "manage": {"dynamodb"},
		// clicks and the webhook functions send to the webhook queues
		// with sqssend, not SQS's client: SendMessage is their only SQS
		// call, and the client's package init and size were a measurable
		// part of their cold start.
		"originauth": {"secretsmanager"}, "clicks": {"dynamodb"},
		// apiauth reads the keys table; it verifies tokens without an
		// SDK client.
		"apiauth":       {"dynamodb"},
		"webhookstream": {"dynamodb"}, "webhookdelivery": {"dynamodb"},
		// auditarchive reads its records from the event, not DynamoDB,
		// and puts one object per batch: S3 alone.
		"auditarchive": {"s3"},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for fn, services := range want {
		out, err := exec.CommandContext(ctx, "go", "list", "-deps", "-tags", "lambda.norpc", "./"+fn).Output()
		require.NoError(t, err, fn)
		var linked []string
		for _, pkg := range strings.Fields(string(out)) {
			if s, ok := strings.CutPrefix(pkg, "github.com/aws/aws-sdk-go-v2/service/"); ok && !strings.Contains(s, "/") {
				linked = append(linked, s)
			}
			assert.NotEqual(t, "github.com/aws/aws-sdk-go-v2/config", pkg, "%s links the SDK's config package", fn)
		}
		assert.ElementsMatch(t, services, linked, fn)
	}
}

// TestEachBootstrapLinksOnlyItsHandlers: a bootstrap links its own
// function's handler package and no other function's (each package's
// init, and the pages of code it touches, are part of every cold start
// of a binary that links it).
func TestEachBootstrapLinksOnlyItsHandlers(t *testing.T) {
	fns := []string{"create", "redirect", "originauth", "apiauth", "manage", "stats", "ttlstream", "reclaim", "clicks",
		"webhooks", "webhookdelivery", "webhookstream", "auditarchive"}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, fn := range fns {
		out, err := exec.CommandContext(ctx, "go", "list", "-deps", "-tags", "lambda.norpc", "./"+fn).Output()
		require.NoError(t, err, fn)
		var linked []string
		for _, pkg := range strings.Fields(string(out)) {
			if rest, ok := strings.CutPrefix(pkg, "github.com/shortlink-dev/shortener/functions/"); ok {
				if _, h, ok := strings.Cut(rest, "/"); ok && strings.HasSuffix(h, "fn") && !strings.Contains(h, "/") {
					linked = append(linked, h)
				}
			}
		}
		assert.Equal(t, []string{fn + "fn"}, linked, fn)
	}
}
