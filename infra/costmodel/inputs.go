package costmodel

// This file is the one place the lead edits when the other branches'
// measurements arrive: every per-operation figure the model takes from a
// run of `make cost` (or, for the enumeration defence, of its simulation)
// is here, with the run that produced it. Nothing else in the model holds
// a measured number.

// Measured are per-operation figures from a named run.
type Measured struct {
	// Run names the command and the run the figures come from; the
	// document prints it under "Measured".
	Run string

	// ClickWRU is what counting one click writes to the analytics table,
	// everything the clicks consumer writes included (counters, rollups,
	// the shard checkpoint), per click of the seed-shaped stream.
	ClickWRU float64
	// ClickRRU is what counting one click reads (checkpoint reads, a
	// compaction's reads), per click.
	ClickRRU float64
	// CounterItemsPerClick is how many analytics items a click creates
	// that outlive the batch, by retention class: [hourly, daily] (today:
	// hour items; day, country-day and referrer-day items). Storage is
	// items x bytes x retention.
	CounterItemsPerClick [2]float64
	// CounterItemBytes is one stored counter item, DynamoDB's 100-byte
	// per-item overhead included.
	CounterItemBytes float64

	// CreateWRU and KeyedCreateWRU are what one create writes in the
	// primary Region without and with an Idempotency-Key (the link, its
	// by-owner and expiring-links entries; the key's record), and
	// KeyedCreateRRU what the keyed one reads.
	CreateWRU, KeyedCreateWRU, KeyedCreateRRU float64
	// MissRRU is one redirect miss's read (eventually consistent GetItem).
	MissRRU float64

	// EnumWRUPerUnknownMiss is what the miss-only enumeration defence
	// writes per redirect of an unknown code (its per-client counter).
	EnumWRUPerUnknownMiss float64

	// ReservationWRU and ReservationWRUKeyed are what one create writes to
	// the MRSC reservation table without and with an Idempotency-Key, in
	// the Region that makes it (cmd/cost's multi-Region rows);
	// ReservedKeyedCreateWRU is what a keyed create then writes to the
	// links table (the link's put, no transaction: the key is the
	// reservation table's).
	ReservationWRU, ReservationWRUKeyed, ReservedKeyedCreateWRU float64
}

// Placeholder marks an input the lead replaces at merge with the figure
// another branch measures; the document flags every one.
type Placeholder struct {
	Input   string // the field above
	Value   string // what the model uses until then
	Replace string // which branch's figure replaces it, and from which command
}

// Current are the model's measured inputs.
//
// LEAD: replace ClickWRU, ClickRRU and CounterItemsPerClick with the
// clicks-floor branch's `make cost` figures for the new design (and Run
// with its run); then `go test ./infra/costmodel -update` and read the Goal section.
var Current = Measured{
	Run: "`make cost`, run of 2026-12-01 00:51 UTC on the dev machine (2m59s): 100,000 clicks over " +
		"100,000 links, Zipf s=1, batches of up to 1,000 records of one of 4 shards",
	ClickWRU: 6.79, // today's design, measured; the new design targets 0.05
	ClickRRU: 0,    // not printed by today's run (checkpoint reads are inside its transactions' refusals)
	// Not measured: an estimate for today's layout on a month-long,
	// tail-heavy stream (a tail link's click opens its own hour, day,
	// country-day and referrer-day items).
	CounterItemsPerClick: [2]float64{0.6, 1.6},
	CounterItemBytes:     130,
	CreateWRU:            3,
	KeyedCreateWRU:       6,
	KeyedCreateRRU:       1,
	MissRRU:              0.5,
	// Measured on DynamoDB Local: shared/missbudget/dynamomisses
	// TestCountsEveryMissInOneWriteUnit (1.0 WRU for each of 40
	// concurrent misses).
	EnumWRUPerUnknownMiss: 1,
	// `go run ./cmd/cost -creates 200`, 2026-12-01 (docs/cost-model.md,
	// "Multi-Region writes"): 5 WRU per create through the reservation
	// table (2 of them in it), 7 with a key (4 in it).
	ReservationWRU:         2,
	ReservationWRUKeyed:    4,
	ReservedKeyedCreateWRU: 3,
}

// Placeholders are Current's inputs that are not yet the figures the
// goal is judged on.
var Placeholders = []Placeholder{
	{"ClickWRU", "6.79 (today's design, measured)", "clicks-floor: `make cost`, the new design's WRU per click (target 0.05)"},
	{"ClickRRU", "0 (not printed today)", "clicks-floor: `make cost`, RRU per click of the new design"},
	{"CounterItemsPerClick", "0.6 hourly, 1.6 daily (estimate, not measured)", "clicks-floor: items the new design keeps per click"},
}
