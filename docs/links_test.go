package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// link is a Markdown link or image: ](target), the target up to a space
// (a title) or the closing parenthesis.
var link = regexp.MustCompile(`\]\(([^)\s]+)(?:\s[^)]*)?\)`)

// heading is an ATX heading line outside code fences.
var heading = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)

// slugDrop is what GitHub drops from a heading when it makes its anchor:
// everything but letters, digits, spaces, hyphens and underscores.
var slugDrop = regexp.MustCompile(`[^\p{L}\p{N} _-]`)

// slug is the anchor GitHub gives a heading: lower-cased, punctuation
// dropped, each space a hyphen.
func slug(text string) string {
	return strings.ReplaceAll(slugDrop.ReplaceAllString(strings.ToLower(text), ""), " ", "-")
}

// anchors are the anchors of a Markdown document's headings, a repeated
// heading numbered -1, -2, ... as GitHub numbers it.
func anchors(text string) map[string]bool {
	out, seen := map[string]bool{}, map[string]int{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		m := heading.FindStringSubmatch(line)
		if fenced || m == nil {
			continue
		}
		s := slug(m[1])
		if n := seen[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// links are the relative link targets of a Markdown document, code fences
// and inline code left out.
func links(text string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range link.FindAllStringSubmatch(line, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			out = append(out, target)
		}
	}
	return out
}

// TestRelativeLinksResolve: every relative link in README.md and docs/*.md
// names a file or directory of the repository, and every anchor one of the
// headings of the document it points into.
func TestRelativeLinksResolve(t *testing.T) {
	documents, err := filepath.Glob("*.md")
	require.NoError(t, err)
	documents = append(documents, filepath.Join("..", "README.md"))
	require.Greater(t, len(documents), 2)
	for _, doc := range documents {
		raw, err := os.ReadFile(doc)
		require.NoError(t, err)
		for _, target := range links(string(raw)) {
			file, anchor, _ := strings.Cut(target, "#")
			path := doc
			if file != "" {
				path = filepath.Join(filepath.Dir(doc), file)
			}
			info, err := os.Stat(path)
			if !assert.NoError(t, err, "%s links to %s", doc, target) || anchor == "" {
				continue
			}
			if !assert.False(t, info.IsDir(), "%s links to an anchor in a directory: %s", doc, target) {
				continue
			}
			text, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.True(t, anchors(string(text))[anchor], "%s links to %s: no such heading in %s", doc, target, path)
		}
	}
}

// TestSlug: the anchors GitHub makes of the headings these documents use.
func TestSlug(t *testing.T) {
	for heading, want := range map[string]string{
		"Enumeration: the miss budget":                                       "enumeration-the-miss-budget",
		"Create a link: `POST /v1/links`":                                    "create-a-link-post-v1links",
		"4. How the functions learn about the distribution (no second pass)": "4-how-the-functions-learn-about-the-distribution-no-second-pass",
		"2. Cold start and packaging (`internal/rie`)":                       "2-cold-start-and-packaging-internalrie",
		"Read, list, change and delete: `/v1/links/{code}`, `/v1/links`":     "read-list-change-and-delete-v1linkscode-v1links",
	} {
		assert.Equal(t, want, slug(heading), heading)
	}
}

// TestLinksFindsBrokenOnes: the checker sees a missing file and a missing
// anchor, and leaves absolute addresses and code alone.
func TestLinksFindsBrokenOnes(t *testing.T) {
	text := "# Title\n\nSee [a](missing.md), [b](#title), [c](#nope), [d](https://example.com/x#y).\n" +
		"```\n[e](inside-a-fence.md)\n```\n## Title\n"
	assert.Equal(t, []string{"missing.md", "#title", "#nope"}, links(text))
	got := anchors(text)
	assert.True(t, got["title"])
	assert.True(t, got["title-1"])
	assert.False(t, got["nope"])
}
