package link

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Meta is what a link's owner keeps on it to find it again: a title, notes
// and tags. None of it changes what a redirect does.
type Meta struct {
	Title string
	Notes string
	// Tags are normalised (NormalizeTags): lower-cased, unique, in the
	// order first given.
	Tags []string
}

// Bounds of a link's Meta.
const (
	MaxTitleRunes = 200
	MaxNotesRunes = 2000
	MaxTags       = 20
	MaxTagLen     = 40
)

// TagCharacters names the characters a tag may hold, for error messages and
// docs/api.md.
const TagCharacters = "a-z 0-9 - _ . :"

// MetaRequest is the Meta a create asks for; nil fields are absent.
type MetaRequest struct {
	Title *string
	Notes *string
	Tags  []string
}

// Clone is m with its own copy of Tags.
func (m Meta) Clone() Meta {
	m.Tags = slices.Clone(m.Tags)
	return m
}

// Equal reports whether m and o hold the same title, notes and tags.
func (m Meta) Equal(o Meta) bool {
	return m.Title == o.Title && m.Notes == o.Notes && slices.Equal(m.Tags, o.Tags)
}

// ValidateMeta checks req and returns it normalised, or a *FieldError
// naming title, notes or tags.
func ValidateMeta(req MetaRequest) (Meta, error) {
	var m Meta
	var err error
	if req.Title != nil {
		if m.Title, err = ValidateTitle(*req.Title); err != nil {
			return Meta{}, err
		}
	}
	if req.Notes != nil {
		if m.Notes, err = ValidateNotes(*req.Notes); err != nil {
			return Meta{}, err
		}
	}
	if m.Tags, err = NormalizeTags(req.Tags); err != nil {
		return Meta{}, err
	}
	return m, nil
}

// ValidateTitle trims a title and refuses one longer than MaxTitleRunes,
// not valid UTF-8, or holding a control character (a line break among
// them: a title is one line) or a bidi control, which could make a listing
// show a title as something it is not.
func ValidateTitle(s string) (string, error) {
	s = strings.TrimSpace(s)
	if err := checkText("title", s, MaxTitleRunes, false); err != nil {
		return "", err
	}
	return s, nil
}

// ValidateNotes refuses notes longer than MaxNotesRunes, not valid UTF-8,
// or holding a control character other than a tab or a line break, or a
// bidi control.
func ValidateNotes(s string) (string, error) {
	if err := checkText("notes", s, MaxNotesRunes, true); err != nil {
		return "", err
	}
	return s, nil
}

func checkText(field, s string, maxRunes int, multiline bool) error {
	if !utf8.ValidString(s) {
		return &FieldError{Field: field, Reason: "must be valid UTF-8"}
	}
	if n := utf8.RuneCountInString(s); n > maxRunes {
		return &FieldError{Field: field, Reason: fmt.Sprintf("must be at most %d characters, not %d", maxRunes, n)}
	}
	for _, r := range s {
		if multiline && (r == '\n' || r == '\t' || r == '\r') {
			continue
		}
		if unicode.IsControl(r) || isBidiControl(r) {
			return &FieldError{Field: field, Reason: fmt.Sprintf("must not hold control or bidi override characters (found %U)", r)}
		}
	}
	return nil
}

// isBidiControl reports the explicit directional formatting characters
// (embeddings, overrides, isolates and their terminators, the marks):
// Unicode's Bidi_Control property, the "Trojan Source" characters.
func isBidiControl(r rune) bool {
	return unicode.Is(unicode.Bidi_Control, r)
}

// NormalizeTags lower-cases and trims each tag, drops duplicates (the
// first spelling's position wins) and refuses a tag that is empty, longer
// than MaxTagLen or holds a character outside TagCharacters, and more than
// MaxTags tags once the duplicates are gone. No tags is nil.
func NormalizeTags(tags []string) ([]string, error) {
	var out []string
	for _, raw := range tags {
		t, err := NormalizeTag(raw)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	if len(out) > MaxTags {
		return nil, &FieldError{Field: "tags", Reason: fmt.Sprintf("must be at most %d distinct tags, not %d", MaxTags, len(out))}
	}
	return out, nil
}

// NormalizeTag is one tag lower-cased and trimmed, or a *FieldError naming
// tags.
func NormalizeTag(raw string) (string, error) {
	t := strings.ToLower(strings.TrimSpace(raw))
	if t == "" || len(t) > MaxTagLen {
		return "", &FieldError{Field: "tags", Reason: fmt.Sprintf("each tag must be 1 to %d characters", MaxTagLen)}
	}
	for i := 0; i < len(t); i++ {
		if !isTagByte(t[i]) {
			return "", &FieldError{Field: "tags", Reason: fmt.Sprintf("tag %q: only the characters %s are allowed", raw, TagCharacters)}
		}
	}
	return t, nil
}

func isTagByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == ':'
}
