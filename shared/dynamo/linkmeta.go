package dynamo

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/shortlink-dev/shortener/shared/link"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// marshalMeta adds m's title, notes and tags to a link item, each only
// when set, so a link without them is the item it always was.
func marshalMeta(item map[string]types.AttributeValue, m link.Meta) {
	if m.Title != "" {
		item[tableschema.AttrTitle] = str(m.Title)
	}
	if m.Notes != "" {
		item[tableschema.AttrNotes] = str(m.Notes)
	}
	if len(m.Tags) > 0 {
		// A list, not a string set: it keeps the order the owner gave.
		tags := make([]types.AttributeValue, len(m.Tags))
		for i, t := range m.Tags {
			tags[i] = str(t)
		}
		item[tableschema.AttrTags] = &types.AttributeValueMemberL{Value: tags}
	}
}

// unmarshalMeta reads what marshalMeta wrote; an item from before, or read
// through the by-owner index (which does not project them), has none.
func unmarshalMeta(item map[string]types.AttributeValue) (link.Meta, error) {
	var m link.Meta
	m.Title, _ = getS(item, tableschema.AttrTitle, nil)
	m.Notes, _ = getS(item, tableschema.AttrNotes, nil)
	v, ok := item[tableschema.AttrTags]
	if !ok {
		return m, nil
	}
	l, ok := v.(*types.AttributeValueMemberL)
	if !ok {
		return m, fmt.Errorf("attribute %s: not a list", tableschema.AttrTags)
	}
	for _, e := range l.Value {
		s, ok := e.(*types.AttributeValueMemberS)
		if !ok {
			return m, fmt.Errorf("attribute %s: an element is not a string", tableschema.AttrTags)
		}
		m.Tags = append(m.Tags, s.Value)
	}
	return m, nil
}
