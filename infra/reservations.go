package infra

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/jsii-runtime-go"

	"github.com/shortlink-dev/shortener/infra/golambda"
	"github.com/shortlink-dev/shortener/infra/tables"
	"github.com/shortlink-dev/shortener/shared/mrsc"
)

// CtxReservations turns the reservation table off (false): then only the
// primary Region writes links, as before multi-Region writes, and regions
// may come from any Region sets. On by default.
const CtxReservations = "reservations"

// CtxWitnessRegion names the MRSC witness of the reservation table when
// regions lists two Regions; absent, the first other Region of their set.
const CtxWitnessRegion = "witnessRegion"

// Reservation is where the reservation table (the MRSC table every
// Region's creates, edits and deletes go through first) lives: Replicas
// are the configured Regions, Witness the third Region when there are two.
// Zero with one Region: that deployment has one write Region and no
// reservation table.
type Reservation struct {
	Replicas []string
	Witness  string
}

// Enabled reports whether the deployment has a reservation table.
func (r Reservation) Enabled() bool { return len(r.Replicas) > 0 }

// Regions are the table's three Regions as the deployment record keeps
// them: the replicas, then "witness:" and the witness.
func (r Reservation) Regions() []string {
	out := slices.Clone(r.Replicas)
	if r.Witness != "" {
		out = append(out, "witness:"+r.Witness)
	}
	return out
}

// Reservation resolves the reservation table's Regions from regions and
// witnessRegion, or says why they cannot hold an MRSC table.
func (c Config) Reservation() (Reservation, error) {
	if c.NoReservations || len(c.Regions) <= 1 {
		if c.WitnessRegion != "" {
			return Reservation{}, fmt.Errorf("witnessRegion: %q is only used with two regions (the reservation table's third Region)", c.WitnessRegion)
		}
		return Reservation{}, nil
	}
	if len(c.Regions) > 3 {
		return Reservation{}, fmt.Errorf("regions: %v lists %d Regions, but the reservation table, a DynamoDB global table "+
			"in multi-Region strong consistency (MRSC), spans exactly three Regions of one set (%s): list two or three of one set, "+
			"or deploy with -c reservations=false to keep every write in the primary Region (docs/deploy.md)",
			c.Regions, len(c.Regions), setsText())
	}
	set := mrsc.SetOf(c.Regions...)
	if set == nil {
		return Reservation{}, fmt.Errorf("regions: %v are not all from one MRSC Region set (%s). The reservation table "+
			"that keeps codes unique across Regions is an MRSC global table, and AWS allows its three Regions only within one "+
			"set: choose the regions from one set, or deploy with -c reservations=false to keep every write in the primary "+
			"Region (docs/deploy.md)", c.Regions, setsText())
	}
	r := Reservation{Replicas: slices.Clone(c.Regions)}
	if len(c.Regions) == 3 {
		if c.WitnessRegion != "" {
			return Reservation{}, fmt.Errorf("witnessRegion: %q given with three regions; an MRSC table has three Regions "+
				"in all (three replicas, or two and a witness)", c.WitnessRegion)
		}
		return r, nil
	}
	r.Witness = c.WitnessRegion
	if r.Witness == "" {
		for _, s := range set {
			if !slices.Contains(c.Regions, s) {
				r.Witness = s
				break
			}
		}
	}
	if !slices.Contains(set, r.Witness) || slices.Contains(c.Regions, r.Witness) {
		return Reservation{}, fmt.Errorf("witnessRegion: %q must be a Region of the regions' MRSC set %v other than %v",
			r.Witness, set, c.Regions)
	}
	return r, nil
}

func setsText() string {
	var parts []string
	for _, s := range mrsc.Sets {
		parts = append(parts, strings.Join(s, ", "))
	}
	return strings.Join(parts, "; ")
}

// checkReservation compares the recorded reservation Regions with cfg's:
// an MRSC table takes its replicas and witness only when it is created,
// empty, and CloudFormation cannot swap one of them, so any change would
// replace the table and lose every reservation.
func checkReservation(cfg Config, rec *Install) error {
	if len(rec.ReservationRegions) == 0 {
		return nil
	}
	res, err := cfg.Reservation()
	if err != nil {
		return err
	}
	if slices.Equal(res.Regions(), rec.ReservationRegions) {
		return nil
	}
	return fmt.Errorf("regions/witnessRegion: the reservation table of %s was recorded in %v (%s), now %v. An MRSC "+
		"global table's Regions are fixed when it is created (replicas cannot be added later, nor one replica or the witness "+
		"removed alone), so this would replace it with an empty one: every code, alias, version and Idempotency-Key it holds "+
		"would be free again in every Region, and creates would reissue codes still in use. To change Regions safely, deploy "+
		"a second installation (a new appName) in the new Regions, copy the links and keys tables into it, switch the domain, "+
		"then destroy the old one (docs/deploy.md, \"Recorded deployment\")",
		cfg.AppName, rec.ReservationRegions, DeploymentFile, res.Regions())
}

// useReservations gives the functions that write links the reservation
// table (RESERVATION_TABLE) and, on this Region's replica only, exactly
// the calls each makes (linkstore.Reserved over dynamo.Ledger):
// create reserves, confirms, gives back and reads codes and claims; manage
// advances a version (and reserves a link written before the table, its
// first edit adopting it); reclaim releases a code, after reading the tombstone
// it releases from the links table (writeLinks, the replica it writes).
func useReservations(st awscdk.Stack, data *DataStack, region string, writeLinks awsdynamodb.ITableV2, fns map[string]*golambda.Function) {
	if data.Tables.Reservations == nil {
		return
	}
	name := tables.Name(data.Tables.Reservations) // read from every Region without renaming it
	table := tables.KeysIn(st, "Reservations", name, region)
	actions := map[string][]string{
		"create":  {"dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"},
		"manage":  {"dynamodb:PutItem", "dynamodb:UpdateItem"},
		"reclaim": {"dynamodb:DeleteItem"},
	}
	for _, fnName := range sortedKeys(actions) {
		f, ok := fns[fnName]
		if !ok {
			continue
		}
		f.Fn.AddEnvironment(jsii.String("RESERVATION_TABLE"), name, nil)
		table.Grant(f.Role, *jsii.Strings(actions[fnName]...)...)
	}
	if f, ok := fns["reclaim"]; ok {
		writeLinks.Grant(f.Role, jsii.String("dynamodb:GetItem"))
	}
}
