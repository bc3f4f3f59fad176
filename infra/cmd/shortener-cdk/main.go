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
	// What was deployed before (docs/deploy.md, "Recorded deployment"):
	// Build refuses a change that would replace or orphan its data.
	if cfg.Deployments, err = infra.ReadDeployments(infra.DeploymentFile); err != nil {
		log.Fatalf("configuration: %v", err)
	}
	if _, err := infra.Build(app, cfg); err != nil {
		log.Fatalf("stacks: %v", err)
	}
	app.Synth(nil)
	if cfg.Record {
		rec, err := cfg.Deployments.Record(cfg)
		if err == nil {
			err = rec.Write(infra.DeploymentFile)
		}
		if err != nil {
			log.Fatalf("record: %v", err)
		}
		log.Printf("recorded %s in account %s (primary %s, regions %v) in %s: commit it",
			cfg.AppName, cfg.Account, cfg.PrimaryRegion, cfg.Regions, infra.DeploymentFile)
	}
}
