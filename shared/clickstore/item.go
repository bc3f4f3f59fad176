package clickstore

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Attribute names of the analytics table. infra/ uses them for the key
// schema and the TTL attribute.
const (
	AttrCode      = "code"   // partition key
	AttrBucket    = "bucket" // sort key
	AttrTotal     = "total"
	AttrHuman     = "human"
	AttrBot       = "bot"
	AttrExpiresAt = "expires_at" // epoch seconds: the TTL attribute
	AttrSequence  = "seq"        // checkpoint items only
)

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
)

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
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// prefix is the sort key prefix of a kind.
func (k Kind) prefix() string {
	switch k {
	case Hour:
		return "h#"
	case Day:
		return "d#"
	case Country:
		return "c#"
	case Referrer:
		return "r#"
	}
	return "?#"
}

// Key names one counter item.
type Key struct {
	Code string
	Kind Kind
	// Start is the first second of the bucket, epoch seconds: of the hour
	// for Hour, of the UTC day for the other kinds.
	Start int64
	// Dim is the country (Country) or the referrer host (Referrer).
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

const (
	hourLayout = "2006010215"
	dayLayout  = "20060102"
)

// bucket is the sort key of k.
func (k Key) bucket() string {
	t := time.Unix(k.Start, 0).UTC()
	switch k.Kind {
	case Hour:
		return k.Kind.prefix() + t.Format(hourLayout)
	case Day:
		return k.Kind.prefix() + t.Format(dayLayout)
	}
	return k.Kind.prefix() + t.Format(dayLayout) + "#" + k.Dim
}

// parseBucket reads a sort key of the given kind back into its start and
// dimension.
func parseBucket(kind Kind, b string) (start time.Time, dim string, err error) {
	rest, ok := strings.CutPrefix(b, kind.prefix())
	if !ok {
		return time.Time{}, "", fmt.Errorf("bucket %q: not a %s bucket", b, kind)
	}
	layout := dayLayout
	if kind == Hour {
		layout = hourLayout
	}
	if kind == Country || kind == Referrer {
		var found bool
		if rest, dim, found = strings.Cut(rest, "#"); !found || dim == "" {
			return time.Time{}, "", fmt.Errorf("bucket %q: no dimension", b)
		}
	}
	start, err = time.Parse(layout, rest)
	if err != nil {
		return time.Time{}, "", fmt.Errorf("bucket %q: %w", b, err)
	}
	return start, dim, nil
}

// MaxSequenceDigits is the width of a Kinesis sequence number: decimal, up
// to 128 digits.
const MaxSequenceDigits = 128

// padSequence zero-pads a sequence number to MaxSequenceDigits so that
// string order is numeric order.
func padSequence(seq string) (string, error) {
	if seq == "" || len(seq) > MaxSequenceDigits {
		return "", fmt.Errorf("sequence number %q: want 1 to %d digits", seq, MaxSequenceDigits)
	}
	for i := 0; i < len(seq); i++ {
		if seq[i] < '0' || seq[i] > '9' {
			return "", fmt.Errorf("sequence number %q: not decimal", seq)
		}
	}
	return strings.Repeat("0", MaxSequenceDigits-len(seq)) + seq, nil
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

func num(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

func str(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

func getN(item map[string]types.AttributeValue, name string) (int64, error) {
	v, ok := item[name].(*types.AttributeValueMemberN)
	if !ok {
		return 0, nil // an ADD that never touched this counter
	}
	n, err := strconv.ParseInt(v.Value, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("attribute %s: %w", name, err)
	}
	return n, nil
}

func unmarshalCounts(item map[string]types.AttributeValue) (Counts, error) {
	var c Counts
	var err error
	if c.Total, err = getN(item, AttrTotal); err != nil {
		return c, err
	}
	if c.Human, err = getN(item, AttrHuman); err != nil {
		return c, err
	}
	c.Bot, err = getN(item, AttrBot)
	return c, err
}
