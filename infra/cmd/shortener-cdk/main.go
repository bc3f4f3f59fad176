// Command shortener-cdk is the CDK app (cdk.json runs it): it reads the
// context, builds the stacks and synthesizes them.
package main

import (
	"log"
	"os"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/shortlink-dev/shortener/infra"
)

func main() {
	defer jsii.Close()
	app := awscdk.NewApp(nil)
	cfg, err := infra.ConfigFromContext(app.Node())
	if err != nil {
		log.Fatalf("configuration: %v", err)
	}
	if cfg.Account == "" {
		// The CLI sets this from the credentials it deploys with. The
		// stacks reference each other across regions, which needs a
		// concrete account: without credentials (an offline synth), pass
		// -c account=<12 digits>.
		cfg.Account = os.Getenv("CDK_DEFAULT_ACCOUNT")
	}
	if cfg.Account == "" {
		log.Fatalf("configuration: no account: run with AWS credentials or pass -c %s=<account id>", infra.CtxAccount)
	}
	if _, err := infra.Build(app, cfg); err != nil {
		log.Fatalf("stacks: %v", err)
	}
	app.Synth(nil)
}
