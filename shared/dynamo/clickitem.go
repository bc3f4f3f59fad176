package dynamo

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/clickstore"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// prefix is the sort key prefix of a kind.
func prefix(k clickstore.Kind) string {
	switch k {
	case clickstore.Hour:
		return "h#"
	case clickstore.Day:
		return "d#"
	case clickstore.Country:
		return "c#"
	case clickstore.Referrer:
		return "r#"
	case clickstore.Destination:
		return "t#"
	case clickstore.Agent:
		return "a#"
	case clickstore.Campaign:
		return "u#"
	case clickstore.Visitor:
		return "v#"
	}
	return "?#"
}

const (
	hourLayout = "2006010215"
	dayLayout  = "20060102"
)

// bucket is the sort key of k.
func bucket(k clickstore.Key) string {
	t := time.Unix(k.Start, 0).UTC()
	switch k.Kind {
	case clickstore.Hour:
		return prefix(k.Kind) + t.Format(hourLayout)
	case clickstore.Day:
		return prefix(k.Kind) + t.Format(dayLayout)
	}
	return prefix(k.Kind) + t.Format(dayLayout) + "#" + k.Dim
}

// parseBucket reads a sort key of the given kind back into its start and
// dimension.
func parseBucket(kind clickstore.Kind, b string) (start time.Time, dim string, err error) {
	rest, ok := strings.CutPrefix(b, prefix(kind))
	if !ok {
		return time.Time{}, "", fmt.Errorf("bucket %q: not a %s bucket", b, kind)
	}
	layout := dayLayout
	if kind == clickstore.Hour {
		layout = hourLayout
	}
	if kind != clickstore.Hour && kind != clickstore.Day {
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

func getCount(item map[string]types.AttributeValue, name string) (int64, error) {
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

// unmarshalBucket reads a counter item of kind: its bucket's start and
// dimension (parseBucket) and its counts.
func unmarshalBucket(kind clickstore.Kind, item map[string]types.AttributeValue) (start time.Time, dim string, c clickstore.Counts, err error) {
	b, _ := item[tableschema.AttrBucket].(*types.AttributeValueMemberS)
	if b == nil {
		return time.Time{}, "", c, fmt.Errorf("item without %s", tableschema.AttrBucket)
	}
	if start, dim, err = parseBucket(kind, b.Value); err != nil {
		return time.Time{}, "", c, err
	}
	c, err = unmarshalCounts(item)
	return start, dim, c, err
}

func unmarshalCounts(item map[string]types.AttributeValue) (clickstore.Counts, error) {
	var c clickstore.Counts
	var err error
	if c.Total, err = getCount(item, tableschema.AttrTotal); err != nil {
		return c, err
	}
	if c.Human, err = getCount(item, tableschema.AttrHuman); err != nil {
		return c, err
	}
	c.Bot, err = getCount(item, tableschema.AttrBot)
	return c, err
}
