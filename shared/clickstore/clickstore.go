package clickstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Store keeps click counters and the shards' checkpoints.
type Store interface {
	// Apply adds c's counts and moves the shard's checkpoint to c.Last,
	// atomically, if the checkpoint is below c.First. Otherwise it changes
	// nothing and returns an error matching ErrApplied. A chunk that fails
	// Validate is refused and changes nothing.
	Apply(ctx context.Context, c Chunk) error
	// Checkpoint returns the highest sequence number applied for shard,
	// without leading zeros, or "" if none was. It sees every Apply that
	// returned before it.
	Checkpoint(ctx context.Context, shard string) (string, error)
	// Series returns the Hour or Day counters of code whose bucket starts
	// in [from, to), in time order. Buckets without clicks are absent.
	Series(ctx context.Context, code string, kind Kind, from, to time.Time) ([]Point, error)
	// Breakdown sums the Country, Referrer or Destination counters of code over the UTC
	// days that start in [from, to), by country or host. complete is false
	// when the range held more items than the store reads for one
	// breakdown and only the first ones, in day and then dimension order,
	// were summed.
	Breakdown(ctx context.Context, code string, kind Kind, from, to time.Time) (sums map[string]Counts, complete bool, err error)
}

// Counts are the three counters every bucket keeps: Total is Human + Bot.
type Counts struct {
	Total, Human, Bot int64
}

// Add adds o to c.
func (c *Counts) Add(o Counts) {
	c.Total += o.Total
	c.Human += o.Human
	c.Bot += o.Bot
}

// AddClick counts one click.
func (c *Counts) AddClick(bot bool) {
	c.Total++
	if bot {
		c.Bot++
	} else {
		c.Human++
	}
}

// Kind is what a counter item counts per.
type Kind uint8

// Kinds of counter items.
const (
	Hour     Kind = iota + 1 // per code and UTC hour
	Day                      // per code and UTC day
	Country                  // per code, UTC day and country
	Referrer                 // per code, UTC day and referrer host
	// Destination is per code, UTC day and destination of a decided
	// link's click (link.Destination.Label: rule-i, target-j, default,
	// expired).
	Destination
	// Agent is per code, UTC day and device, OS and browser together
	// (AgentDim): one entry a click instead of three, as most link-days
	// have one visitor's clicks.
	Agent
	// Campaign is per code, UTC day and utm_source, utm_medium and
	// utm_campaign together (clicklog.Campaign.Key); a store keeps at most
	// MaxCampaigns of them a code and day, and counts the rest under
	// OtherCampaign.
	Campaign
	// Visitor items are a set, not counters: each is one HyperLogLog
	// register observation of a human click (visitors.Register.Dim), per
	// code and UTC day. Their counts mean nothing; a store may keep only
	// the highest rank of each register index.
	Visitor
)

// MaxCampaigns is how many distinct campaigns a store keeps per code and
// UTC day; the clicks of any more count under OtherCampaign.
const MaxCampaigns = 20

// OtherCampaign is the Campaign value of the clicks past MaxCampaigns.
const OtherCampaign = "other"

func (k Kind) String() string {
	switch k {
	case Hour:
		return "hour"
	case Day:
		return "day"
	case Country:
		return "country"
	case Referrer:
		return "referrer"
	case Destination:
		return "destination"
	case Agent:
		return "agent"
	case Campaign:
		return "campaign"
	case Visitor:
		return "visitor"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Key names one counter item.
type Key struct {
	Code string
	Kind Kind
	// Start is the first second of the bucket, epoch seconds: of the hour
	// for Hour, of the UTC day for the other kinds.
	Start int64
	// Dim is the country (Country), the referrer host (Referrer) or the
	// destination label (Destination).
	Dim string
}

const (
	secondsPerHour = 60 * 60
	secondsPerDay  = 24 * secondsPerHour
)

func floorTo(t time.Time, step int64) int64 {
	s := t.Unix()
	r := s % step
	if r < 0 {
		r += step
	}
	return s - r
}

// HourKey is the hourly counter of code at t.
func HourKey(code string, t time.Time) Key {
	return Key{Code: code, Kind: Hour, Start: floorTo(t, secondsPerHour)}
}

// DayKey is the daily counter of code at t.
func DayKey(code string, t time.Time) Key {
	return Key{Code: code, Kind: Day, Start: floorTo(t, secondsPerDay)}
}

// CountryKey is the daily counter of code's clicks from country at t.
func CountryKey(code string, t time.Time, country string) Key {
	return Key{Code: code, Kind: Country, Start: floorTo(t, secondsPerDay), Dim: country}
}

// ReferrerKey is the daily counter of code's clicks referred by host at t.
func ReferrerKey(code string, t time.Time, host string) Key {
	return Key{Code: code, Kind: Referrer, Start: floorTo(t, secondsPerDay), Dim: host}
}

// DestinationKey is the daily counter of code's clicks a decided link
// sent to destination at t.
func DestinationKey(code string, t time.Time, destination string) Key {
	return Key{Code: code, Kind: Destination, Start: floorTo(t, secondsPerDay), Dim: destination}
}

// AgentDim is the Agent value of a device, OS and browser.
func AgentDim(device, os, browser string) string { return device + "/" + os + "/" + browser }

// SplitAgentDim reads an AgentDim value back.
func SplitAgentDim(d string) (device, os, browser string) {
	device, rest, _ := strings.Cut(d, "/")
	os, browser, _ = strings.Cut(rest, "/")
	return device, os, browser
}

// AgentKey is the daily counter of code's clicks from one device, OS and
// browser (AgentDim) at t.
func AgentKey(code string, t time.Time, agent string) Key {
	return Key{Code: code, Kind: Agent, Start: floorTo(t, secondsPerDay), Dim: agent}
}

// CampaignKey is the daily counter of code's clicks of one campaign
// (clicklog.Campaign.Key) at t.
func CampaignKey(code string, t time.Time, campaign string) Key {
	return Key{Code: code, Kind: Campaign, Start: floorTo(t, secondsPerDay), Dim: campaign}
}

// VisitorKey is one register observation (visitors.Register.Dim) of
// code's visitors on the UTC day of t.
func VisitorKey(code string, t time.Time, register string) Key {
	return Key{Code: code, Kind: Visitor, Start: floorTo(t, secondsPerDay), Dim: register}
}

// CompareKeys orders keys by code, kind, start and dimension.
func CompareKeys(a, b Key) int {
	return cmp.Or(cmp.Compare(a.Code, b.Code), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Start, b.Start), cmp.Compare(a.Dim, b.Dim))
}

// Starts returns the starts (epoch seconds) of the first and the last
// bucket of kind that start in [from, to); ok is false when there is none.
func Starts(kind Kind, from, to time.Time) (first, last int64, ok bool) {
	step := int64(secondsPerDay)
	if kind == Hour {
		step = secondsPerHour
	}
	first = floorTo(from, step)
	if first < from.Unix() || from.Nanosecond() > 0 && first == from.Unix() {
		first += step // a bucket starting before from is not in the range
	}
	last = floorTo(to, step)
	if last == to.Unix() && to.Nanosecond() == 0 {
		last -= step // nor one starting at to
	}
	if last < first {
		return 0, 0, false
	}
	return first, last, true
}

// CheckSeries refuses a kind Series does not serve.
func CheckSeries(kind Kind) error {
	if kind != Hour && kind != Day {
		return fmt.Errorf("series by %s: want hour or day", kind)
	}
	return nil
}

// CheckBreakdown refuses a kind Breakdown does not serve.
func CheckBreakdown(kind Kind) error {
	switch kind {
	case Country, Referrer, Destination, Agent, Campaign, Visitor:
		return nil
	}
	return fmt.Errorf("breakdown by %s: want country, referrer, destination, agent, campaign or visitor", kind)
}

// CapCampaigns folds the Campaign entries of one code's day past
// MaxCampaigns into OtherCampaign: it keeps the MaxCampaigns with the most
// clicks (ties by value) and adds the others' counts to OtherCampaign.
// Totals stay exact; the result depends only on the entries, not on the
// order they came in.
func CapCampaigns(entries map[string]Counts) {
	named := 0
	for d := range entries {
		if d != OtherCampaign {
			named++
		}
	}
	if named <= MaxCampaigns {
		return
	}
	dims := make([]string, 0, named)
	for d := range entries {
		if d != OtherCampaign {
			dims = append(dims, d)
		}
	}
	slices.SortFunc(dims, func(a, b string) int {
		return cmp.Or(cmp.Compare(entries[b].Total, entries[a].Total), cmp.Compare(a, b))
	})
	other := entries[OtherCampaign]
	for _, d := range dims[MaxCampaigns:] {
		other.Add(entries[d])
		delete(entries, d)
	}
	entries[OtherCampaign] = other
}

// Point is one bucket of a time series.
type Point struct {
	Start time.Time
	Counts
}

// MaxItems is how many counter items one chunk may carry: a DynamoDB
// transaction takes at most 100 actions, and the checkpoint is one of them.
const MaxItems = 99

// ChunkSizer is a Store whose Apply takes chunks of another size than
// MaxItems: one that does not spend a transaction action per counter item.
type ChunkSizer interface {
	MaxChunkItems() int
}

// MaxChunkItems is how many counter items s's Apply takes in one chunk.
func MaxChunkItems(s any) int {
	if cs, ok := s.(ChunkSizer); ok {
		return cs.MaxChunkItems()
	}
	return MaxItems
}

// DefaultMaxBreakdownItems bounds the items one Breakdown reads unless a
// store is configured otherwise.
const DefaultMaxBreakdownItems = 100_000

// Chunk is a run of records from one shard, reduced to increments, that is
// applied as one transaction.
type Chunk struct {
	// Shard identifies the checkpoint: the stream ARN and the shard ID.
	Shard string
	// First and Last are the sequence numbers of the chunk's first and last
	// record.
	First, Last string
	// Items are the increments, at most MaxItems of them, each key once.
	Items []Item
}

// Item is the increment of one counter item.
type Item struct {
	Key
	Counts
}

// Validate refuses a chunk no store may apply: no items or more than
// MaxItems, a sequence number that is not 1 to MaxSequenceDigits decimal
// digits, First past Last, or a key twice.
func (c Chunk) Validate() error { return c.ValidateMax(MaxItems) }

// ValidateMax is Validate for a store that takes up to maxItems counter
// items a chunk (see ChunkSizer).
func (c Chunk) ValidateMax(maxItems int) error {
	if len(c.Items) == 0 || len(c.Items) > maxItems {
		return fmt.Errorf("%d counter items, want 1 to %d", len(c.Items), maxItems)
	}
	if err := CheckSequence(c.First); err != nil {
		return err
	}
	if err := CheckSequence(c.Last); err != nil {
		return err
	}
	if CompareSequence(c.First, c.Last) > 0 {
		return fmt.Errorf("first sequence number %s is past the last %s", c.First, c.Last)
	}
	sorted := slices.SortedFunc(slices.Values(c.Items), func(a, b Item) int { return CompareKeys(a.Key, b.Key) })
	for i := 1; i < len(sorted); i++ {
		if k := sorted[i].Key; sorted[i-1].Key == k {
			return fmt.Errorf("counter %s of %s at %d %q twice", k.Kind, k.Code, k.Start, k.Dim)
		}
	}
	return nil
}

// ErrApplied: the shard's checkpoint is already at or past the chunk's
// first record, so the chunk (or part of it) was applied before.
var ErrApplied = errors.New("chunk already applied")

// ErrContended: another transaction was updating one of the chunk's items
// (a hot link counted from several shards at once). Retrying soon succeeds.
var ErrContended = errors.New("chunk contended")

// MaxSequenceDigits is the width of a Kinesis sequence number: decimal, up
// to 128 digits.
const MaxSequenceDigits = 128

// CheckSequence refuses a sequence number that is not 1 to
// MaxSequenceDigits decimal digits.
func CheckSequence(seq string) error {
	if seq == "" || len(seq) > MaxSequenceDigits {
		return fmt.Errorf("sequence number %q: want 1 to %d digits", seq, MaxSequenceDigits)
	}
	for i := 0; i < len(seq); i++ {
		if seq[i] < '0' || seq[i] > '9' {
			return fmt.Errorf("sequence number %q: not decimal", seq)
		}
	}
	return nil
}

// CompareSequence compares two Kinesis sequence numbers numerically: -1 if
// a < b, 0 if equal, +1 if a > b. Leading zeros do not matter; both must
// be decimal digits.
func CompareSequence(a, b string) int {
	a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return strings.Compare(a, b)
}

// PadSequence zero-pads a valid sequence number to MaxSequenceDigits so
// that string order is numeric order (TrimSequence undoes it).
func PadSequence(seq string) string {
	return strings.Repeat("0", MaxSequenceDigits-len(seq)) + seq
}

// TrimSequence drops a sequence number's leading zeros, keeping one digit.
func TrimSequence(seq string) string {
	for len(seq) > 1 && seq[0] == '0' {
		seq = seq[1:]
	}
	return seq
}
