package infra

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// DeploymentFile is where the installations this checkout deploys are
// recorded, at the repository root (the CDK app's working directory).
// Synthesis compares the configuration with it, so that a context change
// that would replace or orphan a stateful resource fails instead of
// deploying (docs/deploy.md, "Recorded deployment").
const DeploymentFile = "deployment.json"

// Deployments are the recorded installations.
type Deployments struct {
	Installs []Install `json:"installs"`
}

// Install is what decides where an installation's stateful resources are:
// the stack names (appName), the data stack's region (primaryRegion: the
// links, keys, idempotency and analytics tables; the click stream is in
// that region's stack) and the regions with a replica of the links and
// keys tables.
type Install struct {
	Account       string   `json:"account"`
	AppName       string   `json:"appName"`
	PrimaryRegion string   `json:"primaryRegion"`
	Regions       []string `json:"regions"`
	// ReservationRegions are the reservation table's three MRSC Regions
	// (replicas, then the witness); none without one.
	ReservationRegions []string `json:"reservationRegions,omitempty"`
	// OwnerIndexProjection is the by-owner index's projection; "" is an
	// installation recorded before it was one, whose index projects ALL.
	// DynamoDB cannot change an index's projection in place, so a change
	// would make CloudFormation refuse the update (or, with the index
	// renamed, rebuild it while listings come back incomplete).
	OwnerIndexProjection string `json:"ownerIndexProjection,omitempty"`
}

// ReadDeployments reads path; a missing file records nothing.
func ReadDeployments(path string) (Deployments, error) {
	var d Deployments
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return d, err
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return d, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// Write writes d to path.
func (d Deployments) Write(path string) error {
	raw, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(raw, '\n'), 0o644)
}

func (c Config) install() Install {
	in := Install{Account: c.Account, AppName: c.AppName, PrimaryRegion: c.PrimaryRegion, Regions: slices.Clone(c.Regions),
		OwnerIndexProjection: c.OwnerIndexProjection}
	if res, err := c.Reservation(); err == nil && res.Enabled() {
		in.ReservationRegions = res.Regions()
	}
	return in
}

// Check compares cfg with the installations recorded for its account.
// Nothing recorded for the account (a first deploy, CI's offline synth
// with a placeholder account) passes. An appName the account has not
// recorded fails unless adding is true (an explicit record of a second
// installation); a changed primaryRegion or a region dropped from
// regions always fails, with what would be lost and the safe way.
// Adding a region, or any other setting, passes.
func (d Deployments) Check(cfg Config, adding bool) error {
	var names []string
	var rec *Install
	for i, in := range d.Installs {
		if in.Account != cfg.Account {
			continue
		}
		names = append(names, in.AppName)
		if in.AppName == cfg.AppName {
			rec = &d.Installs[i]
		}
	}
	if len(names) == 0 {
		return nil
	}
	if rec == nil {
		if adding {
			return nil
		}
		return fmt.Errorf("appName %q: account %s has %s recorded in %s, not %q. Stacks are named after appName, so "+
			"this would not rename the installation but create a second, empty one (a new %s-Data stack with new links, "+
			"keys, idempotency and analytics tables, a new click stream), while the recorded one's stacks, tables and "+
			"click stream stay deployed and are no longer updated from here. To keep the data, deploy with -c appName=%s. "+
			"To run a second installation beside it, record that on purpose: npx cdk deploy --all -c appName=%s -c record=true "+
			"(docs/deploy.md, \"Recorded deployment\")",
			cfg.AppName, cfg.Account, quoteAll(names), DeploymentFile, cfg.AppName, cfg.AppName, names[0], cfg.AppName)
	}
	var errs []error
	if cfg.PrimaryRegion != rec.PrimaryRegion {
		errs = append(errs, fmt.Errorf("primaryRegion %q: %s-Data was recorded in %s (%s). The data stack lives in the "+
			"primary region, so this would create %s-Data in %s with new, empty links, keys, idempotency and analytics "+
			"tables and move the /v1 API and the click stream there (the old stream's unread clicks are deleted with it), "+
			"while the tables in %s are orphaned: kept by their RETAIN policy, but nothing uses them. To move the primary "+
			"safely, deploy a second installation (a new appName) with the new primary, copy the links and keys tables "+
			"into it (DynamoDB export to S3 and import), switch the domain, then destroy the old one "+
			"(docs/deploy.md, \"Recorded deployment\")",
			cfg.PrimaryRegion, cfg.AppName, rec.PrimaryRegion, DeploymentFile, cfg.AppName, cfg.PrimaryRegion, rec.PrimaryRegion))
	}
	if recorded := cmp.Or(rec.OwnerIndexProjection, "ALL"); cfg.OwnerIndexProjection != recorded {
		errs = append(errs, fmt.Errorf("ownerIndexProjection %q: %s's by-owner index was recorded with projection %s (%s). "+
			"DynamoDB cannot change an index's projection in place: the update would fail, or, with a new index, "+
			"listings would be incomplete while it backfills. Keep it with -c ownerIndexProjection=%s "+
			"(docs/cost-model.md prices the difference)", cfg.OwnerIndexProjection, cfg.AppName, recorded, DeploymentFile, recorded))
	}
	for _, r := range rec.Regions {
		if slices.Contains(cfg.Regions, r) {
			continue
		}
		errs = append(errs, fmt.Errorf("regions: %s is recorded for %s (%s) but no longer listed. The links and keys "+
			"global tables would lose their replica in %s (CloudFormation removes a replica that leaves the table's "+
			"replicas, with that region's copy of the data, or fails half-way on its deletion protection), and "+
			"%s-Regional-%s (its redirect origin and TTL consumer) would stay deployed but no longer be updated. To remove "+
			"a region safely: make another region the failoverRegion and deploy, destroy %s-Regional-%s, turn off the "+
			"replicas' deletion protection in %s, then deploy without it and remove it from %s in the same commit "+
			"(docs/deploy.md, \"Recorded deployment\")",
			r, cfg.AppName, DeploymentFile, r, cfg.AppName, r, cfg.AppName, r, r, DeploymentFile))
	}
	if err := checkReservation(cfg, rec); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Record is d with cfg's installation recorded: added, or its regions
// updated. It refuses what Check refuses (but for a new appName).
func (d Deployments) Record(cfg Config) (Deployments, error) {
	if err := d.Check(cfg, true); err != nil {
		return d, err
	}
	out := Deployments{Installs: slices.Clone(d.Installs)}
	for i, in := range out.Installs {
		if in.Account == cfg.Account && in.AppName == cfg.AppName {
			out.Installs[i] = cfg.install()
			return out, nil
		}
	}
	out.Installs = append(out.Installs, cfg.install())
	return out, nil
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
