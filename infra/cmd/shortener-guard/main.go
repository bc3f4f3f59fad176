// Command shortener-guard checks synthesized templates with AWS
// CloudFormation Guard and the Control Tower rules (see package cfnguard):
// it prints every finding no resource suppresses and exits 1 if there is
// one. scripts/guard.sh runs it from `make synth`.
//
//	shortener-guard -cfn-guard <binary> -rules <dir> build/cdk.out/*.template.json
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/shortlink-dev/shortener/infra/cfnguard"
)

func main() {
	bin := flag.String("cfn-guard", "", "the cfn-guard binary")
	rules := flag.String("rules", "", "directory of Guard rules")
	flag.Parse()
	if *bin == "" || *rules == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: shortener-guard -cfn-guard <binary> -rules <dir> <template.json>...")
		os.Exit(2)
	}
	findings, err := cfnguard.Check(context.Background(), *bin, *rules, flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "guard:", err)
		os.Exit(2)
	}
	for _, f := range findings {
		fmt.Println(f)
	}
	if len(findings) > 0 {
		fmt.Fprintf(os.Stderr, "guard: %d unsuppressed finding(s). Fix the resource, or suppress the rule on it "+
			"with its reason in infra/guard.go (GuardSuppressions).\n", len(findings))
		os.Exit(1)
	}
	fmt.Printf("guard: %d template(s), no unsuppressed finding\n", flag.NArg())
}
