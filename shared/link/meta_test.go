package link

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func ptr[T any](v T) *T { return &v }

func TestValidateMeta(t *testing.T) {
	tests := []struct {
		name  string
		req   MetaRequest
		want  Meta
		field string
	}{
		{name: "empty", req: MetaRequest{}, want: Meta{}},
		{name: "title trimmed", req: MetaRequest{Title: ptr("  Spring sale ")}, want: Meta{Title: "Spring sale"}},
		{name: "title of 200 runes", req: MetaRequest{Title: ptr(strings.Repeat("é", 200))}, want: Meta{Title: strings.Repeat("é", 200)}},
		{name: "title of 201 runes", req: MetaRequest{Title: ptr(strings.Repeat("é", 201))}, field: "title"},
		{name: "title with a newline", req: MetaRequest{Title: ptr("a\nb")}, field: "title"},
		{name: "title with NUL", req: MetaRequest{Title: ptr("a\x00b")}, field: "title"},
		{name: "title with RLO", req: MetaRequest{Title: ptr("invoice\u202Efdp.exe")}, field: "title"},
		{name: "title with an isolate", req: MetaRequest{Title: ptr("a\u2067b")}, field: "title"},
		{name: "title not UTF-8", req: MetaRequest{Title: ptr("a\xffb")}, field: "title"},
		{name: "title with emoji", req: MetaRequest{Title: ptr("Launch 🚀")}, want: Meta{Title: "Launch 🚀"}},
		{name: "notes multi-line", req: MetaRequest{Notes: ptr("line 1\nline\t2")}, want: Meta{Notes: "line 1\nline\t2"}},
		{name: "notes of 2001 runes", req: MetaRequest{Notes: ptr(strings.Repeat("x", 2001))}, field: "notes"},
		{name: "notes with bidi override", req: MetaRequest{Notes: ptr("a\u202Db")}, field: "notes"},
		{name: "notes with ESC", req: MetaRequest{Notes: ptr("a\x1b[31m")}, field: "notes"},
		{name: "tags normalised", req: MetaRequest{Tags: []string{" Spring ", "spring", "EU:de", "a_b.c-1"}},
			want: Meta{Tags: []string{"spring", "eu:de", "a_b.c-1"}}},
		{name: "tag with a space", req: MetaRequest{Tags: []string{"two words"}}, field: "tags"},
		{name: "tag with #", req: MetaRequest{Tags: []string{"a#b"}}, field: "tags"},
		{name: "tag non-ASCII", req: MetaRequest{Tags: []string{"café"}}, field: "tags"},
		{name: "empty tag", req: MetaRequest{Tags: []string{"  "}}, field: "tags"},
		{name: "tag of 40", req: MetaRequest{Tags: []string{strings.Repeat("a", 40)}}, want: Meta{Tags: []string{strings.Repeat("a", 40)}}},
		{name: "tag of 41", req: MetaRequest{Tags: []string{strings.Repeat("a", 41)}}, field: "tags"},
		{name: "21 tags", req: MetaRequest{Tags: manyTags(21)}, field: "tags"},
		{name: "20 tags and duplicates", req: MetaRequest{Tags: append(manyTags(20), "T0", "t1")}, want: Meta{Tags: manyTags(20)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ValidateMeta(tt.req)
			if tt.field != "" {
				var fe *FieldError
				require.ErrorAs(t, err, &fe)
				assert.Equal(t, tt.field, fe.Field)
				assert.True(t, errors.Is(err, ErrInvalid))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func manyTags(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "t" + itoa(i)
	}
	return out
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

func TestLinkCloneCopiesTags(t *testing.T) {
	l := Link{Meta: Meta{Tags: []string{"a"}}}
	c := l.Clone()
	c.Tags[0] = "b"
	assert.Equal(t, "a", l.Tags[0])
}

// FuzzNormalizeTags checks that whatever it accepts is within the rules and
// that normalising again changes nothing.
func FuzzNormalizeTags(f *testing.F) {
	for _, s := range []string{"a", " Spring ", "eu:de,a_b.c-1", "café", "a#b", "", strings.Repeat("z", 41), "A,a,A"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tags, err := NormalizeTags(strings.Split(s, ","))
		if err != nil {
			var fe *FieldError
			require.ErrorAs(t, err, &fe)
			return
		}
		require.LessOrEqual(t, len(tags), MaxTags)
		for _, tag := range tags {
			require.True(t, len(tag) >= 1 && len(tag) <= MaxTagLen)
			for i := 0; i < len(tag); i++ {
				require.True(t, isTagByte(tag[i]), tag)
			}
		}
		again, err := NormalizeTags(tags)
		require.NoError(t, err)
		require.Equal(t, tags, again)
	})
}

// FuzzValidateTitle checks that an accepted title is trimmed, short enough
// and free of control and bidi characters.
func FuzzValidateTitle(f *testing.F) {
	for _, s := range []string{"Hello", " a ", "a\u202Eb", "a\nb", "\xff", strings.Repeat("é", 201)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ValidateTitle(s)
		if err != nil {
			return
		}
		require.True(t, utf8.ValidString(got))
		require.LessOrEqual(t, utf8.RuneCountInString(got), MaxTitleRunes)
		require.Equal(t, strings.TrimSpace(got), got)
		for _, r := range got {
			require.False(t, isBidiControl(r), "%U", r)
		}
	})
}
