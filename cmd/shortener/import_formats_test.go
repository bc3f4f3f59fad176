package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/link"
)

// importedRow is what a reader and the checks made of one row, in a form
// a table can spell out.
type importedRow struct {
	Line     int
	URL      string
	Alias    string
	Expires  string
	Redirect int
	Disabled bool
	NotKept  []string
	// Imported is the source's click total, kept as imported_clicks.
	Imported int64
	// Title and Tags are what the link keeps of the source's.
	Title string
	Tags  []string
	// Failed is the field the row failed on ("-" for a row that failed as
	// a whole), empty when it is ready to send.
	Failed string
}

// importNow is the clock of the format tests: the fixtures' expiries are
// in its future.
var importNow = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

func readFixture(t *testing.T, format, file string, newCode bool) []importedRow {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "import", file))
	require.NoError(t, err)
	rows, err := importFormats[format](data)
	require.NoError(t, err)
	a := &app{now: func() time.Time { return importNow }}
	a.checkRows(rows, newCode)
	out := make([]importedRow, len(rows))
	for i, r := range rows {
		g := importedRow{Line: r.Line, URL: r.req.URL, Alias: r.req.Alias, Disabled: r.disabled, NotKept: r.NotKept}
		if r.req.ExpiresAt != nil {
			g.Expires = *r.req.ExpiresAt
		}
		if r.req.RedirectStatus != nil {
			g.Redirect = *r.req.RedirectStatus
		}
		if r.req.ImportedClicks != nil {
			g.Imported = *r.req.ImportedClicks
		}
		if r.req.Title != nil {
			g.Title = *r.req.Title
		}
		g.Tags = r.req.Tags
		if r.Problem != nil {
			g.Title, g.Tags = "", nil
			g.Failed = r.Problem.Field
			if g.Failed == "" {
				g.Failed = "-"
			}
			g.NotKept = nil
		}
		out[i] = g
	}
	return out
}

func TestImportFormats(t *testing.T) {
	// Every back-half of a bitlink worked in Bitly, so each becomes a link:
	// the bitlink's own, then its custom ones. Bitly redirects with 301.
	// Bitly's title and tags are kept on every back-half's link.
	fall := []string{"domain"}
	menu := []string{"menu"}
	bitly := []importedRow{
		{Line: 2, URL: "https://restaurant.example/menu/fall", Alias: "3Pq9XyZ", Redirect: 301, NotKept: fall, Title: "Fall menu", Tags: menu},
		{Line: 2, URL: "https://restaurant.example/menu/fall", Alias: "fall-menu", Redirect: 301, NotKept: fall, Title: "Fall menu", Tags: menu},
		{Line: 2, URL: "https://restaurant.example/menu/fall", Alias: "menu", Redirect: 301, NotKept: fall, Title: "Fall menu", Tags: menu},
		{Line: 3, URL: "https://restaurant.example/reservations", Alias: "4aBcDeF", Redirect: 301, NotKept: []string{"archived", "domain"}},
	}
	bitlyJSON := append([]importedRow(nil), bitly...)
	bitlyJSON[0].Line, bitlyJSON[1].Line, bitlyJSON[2].Line, bitlyJSON[3].Line = 3, 3, 3, 17
	ownProtected := []importedRow{
		{Line: 2, URL: "https://example.com/members", Alias: "Members", Expires: "2031-11-29T09:00:00Z", Redirect: 302, Failed: "protected"},
		{Line: 3, URL: "https://example.com/private", Expires: "2031-11-28T08:00:00Z", Redirect: 302, Disabled: true, Failed: "protected"},
		{Line: 4, URL: "https://example.com/offer", Alias: "Capped", Expires: "2031-11-27T10:00:00Z", Redirect: 302},
	}
	ownProtectedNDJSON := append([]importedRow(nil), ownProtected...)
	ownProtectedNDJSON[0].Line, ownProtectedNDJSON[1].Line, ownProtectedNDJSON[2].Line = 1, 2, 3
	tests := []struct {
		name, format, file string
		newCode            bool
		want               []importedRow
	}{
		{name: "shlink", format: "shlink", file: "shlink.csv", want: []importedRow{
			{Line: 2, URL: "https://example.org/campaigns/spring-2024?utm_source=newsletter", Alias: "Spring24", NotKept: []string{"domain"}, Imported: 1284,
				Title: "Spring campaign 2024", Tags: []string{"marketing", "newsletter"}},
			{Line: 3, URL: "https://example.org/docs/install", Alias: "aB3dE", NotKept: []string{"domain"}},
			{Line: 4, URL: "https://example.org/about", Alias: "ab", Imported: 12, Failed: "alias"},         // shorter than 3
			{Line: 5, URL: "https://example.org/admin-guide", Alias: "admin", Imported: 3, Failed: "alias"}, // reserved
			{Line: 6, URL: "https://example.org/shop?cat=gifts,toys", Alias: "xmas-sale", NotKept: []string{"domain"}, Title: "Xmas sale", Imported: 57},
		}},
		{name: "shlink with new codes", format: "shlink", file: "shlink.csv", newCode: true, want: []importedRow{
			{Line: 2, URL: "https://example.org/campaigns/spring-2024?utm_source=newsletter", Alias: "Spring24", NotKept: []string{"domain"}, Imported: 1284,
				Title: "Spring campaign 2024", Tags: []string{"marketing", "newsletter"}},
			{Line: 3, URL: "https://example.org/docs/install", Alias: "aB3dE", NotKept: []string{"domain"}},
			{Line: 4, URL: "https://example.org/about", NotKept: []string{"domain", `alias "ab" (must be 3 to 64 characters, got 2)`}, Title: "About us", Imported: 12},
			{Line: 5, URL: "https://example.org/admin-guide", NotKept: []string{"domain", `alias "admin" ("admin" is reserved)`}, Tags: []string{"docs"}, Imported: 3},
			{Line: 6, URL: "https://example.org/shop?cat=gifts,toys", Alias: "xmas-sale", NotKept: []string{"domain"}, Title: "Xmas sale", Imported: 57},
		}},
		{name: "yourls", format: "yourls", file: "yourls.csv", want: []importedRow{
			{Line: 2, URL: "https://ozh.org/", Alias: "ozh", Redirect: 301, NotKept: []string{"creator IP"}, Title: "Ozh RICHARD", Imported: 542},
			{Line: 3, URL: "https://example.net/first", Alias: "1", Redirect: 301, Imported: 12, Failed: "alias"},
			{Line: 4, URL: "https://yourls.org/docs", Alias: "yourls-docs", Redirect: 301, NotKept: []string{"creator IP"}, Title: "YOURLS documentation"},
			{Line: 5, URL: "ftp://files.example.net/feed.xml", Alias: "feed", Redirect: 301, Imported: 3, Failed: "url"},
		}},
		{name: "yourls, mysql --batch", format: "yourls", file: "yourls-batch.tsv", want: []importedRow{
			{Line: 2, URL: "https://ozh.org/", Alias: "ozh", Redirect: 301, NotKept: []string{"creator IP"}, Title: "ozh.org", Imported: 542},
			{Line: 3, URL: "https://example.net/first", Alias: "1", Redirect: 301, Imported: 12, Failed: "alias"}, // YOURLS's first keywords are 1-2 characters
			// A title with a tab is refused as a title here, so it is reported.
			{Line: 4, URL: "https://blog.yourls.org/", Alias: "yourlsblog", Redirect: 301, NotKept: []string{"title", "creator IP"}},
			{Line: 5, URL: "https://example.net/page", Alias: "notitle", Redirect: 301, NotKept: []string{"creator IP"}, Imported: 3}, // title NULL
			{Line: 6, URL: "https://example.net/long", Alias: "campaign-2019-spring-newsletter-subscribers-europe-and-north-america-v2", Redirect: 301, Failed: "alias"},
		}},
		{name: "yourls, the Import/Export plugin's CSV", format: "yourls", file: "yourls-export-plugin.csv", want: []importedRow{
			{Line: 2, URL: "https://ozh.org/", Alias: "ozh", Redirect: 301, Imported: 542},
			{Line: 3, URL: "https://yourls.org/", Alias: "yourls", Redirect: 301},
			{Line: 4, URL: "https://example.com/shop?cat=gifts,toys", Alias: "shop", Redirect: 301, Imported: 7},
			{Line: 5, URL: "https://example.net/ab", Alias: "ab", Redirect: 301, Imported: 1, Failed: "alias"},
		}},
		{name: "dub", format: "dub", file: "dub.csv", want: []importedRow{
			{Line: 2, URL: "https://example.com/blog/launch-week", Alias: "launch-week", NotKept: []string{"domain"}, Tags: []string{"launch", "blog"}, Imported: 1520},
			{Line: 3, URL: "https://acme.com/pricing", Alias: "pricing", NotKept: []string{"archived", "domain"}, Imported: 77},
			{Line: 4, URL: "https://acme.com/docs/api", Alias: "docs/api", Failed: "alias"}, // a slash
		}},
		{name: "dub, the current export with every column", format: "dub", file: "dub-current.csv", want: []importedRow{
			{Line: 2, URL: "https://example.com/blog/launch-week", Alias: "launch-week", NotKept: []string{"leads", "conversions", "revenue", "domain"}, Imported: 1520,
				Tags: []string{"launch", "blog"}},
			{Line: 3, URL: "https://acme.com/pricing", Alias: "pricing", NotKept: []string{"archived", "domain"}, Imported: 77}, // Archived "Yes"
			{Line: 4, URL: "https://acme.com/", Failed: "Short link"},                                                           // the root link: a bare domain
		}},
		{name: "kutt", format: "kutt", file: "kutt.json", want: []importedRow{
			{Line: 6, URL: "https://example.com/promo", Alias: "promo", Expires: "2031-01-01T00:00:00Z", Title: "May promo", Imported: 88},
			{Line: 20, URL: "https://example.com/report.pdf", Alias: "k7Xq2", NotKept: []string{"domain"}},
			{Line: 34, URL: "https://example.com/internal", Alias: "secret", Failed: "password"},
			{Line: 48, URL: "https://login.example.net/", Alias: "phish", Failed: "banned"},
		}},
		{name: "bitly API JSON", format: "bitly", file: "bitly.json", want: bitlyJSON},
		{name: "bitly CSV", format: "bitly", file: "bitly.csv", want: bitly},
		{name: "bitly API JSON with raw control characters in titles", format: "bitly", file: "bitly-control-chars.json", want: []importedRow{
			{Line: 3, URL: "https://restaurant.example/menu/winter", Alias: "3Vt5Wq1", Redirect: 301, NotKept: []string{"title", "domain"}},
			{Line: 17, URL: "https://restaurant.example/menu/spring", Alias: "3Vt5Wq2", Redirect: 301, NotKept: []string{"title", "domain"}},
			{Line: 32, URL: "https://restaurant.example/contact", Alias: "3Vt5Wq3", Redirect: 301, NotKept: []string{"domain"}},
		}},
		{name: "our CSV export", format: "csv", file: "own.csv", want: []importedRow{
			{Line: 2, URL: "https://example.com/summer", Alias: "Summer-Sale", Expires: "2027-05-30T09:00:00Z", Redirect: 307},
			{Line: 3, URL: "https://example.com/landing?utm_source=cli", Expires: "2031-11-28T18:30:00Z", Redirect: 301, Disabled: true},
			{Line: 4, URL: "https://example.com/old", Expires: "2031-11-27T10:00:00Z", Redirect: 302, Failed: "status"},
		}},
		// A password cannot be exported (only its hash is stored), so a
		// protected link is refused rather than created open.
		{name: "our CSV export with protected links", format: "csv", file: "own-protected.csv", want: ownProtected},
		{name: "our NDJSON export with protected links", format: "ndjson", file: "own-protected.ndjson", want: ownProtectedNDJSON},
		// Read back under the defaults, the 1- and 2-character aliases fail
		// the check (TestImportYOURLSKeywordsOfEveryLength widens it).
		{name: "our CSV export with imported click totals", format: "csv", file: "own-imported.csv", want: []importedRow{
			{Line: 2, URL: "https://example.net/first", Alias: "a", Expires: "2031-11-29T09:00:00Z", Redirect: 301, Imported: 48213, Failed: "alias"},
			{Line: 3, URL: "https://example.net/zz", Alias: "zz", Expires: "2031-11-29T09:00:01Z", Redirect: 301, Failed: "alias"},
			{Line: 4, URL: "https://example.com/landing", Expires: "2031-11-28T08:00:00Z", Redirect: 302, Failed: "imported_clicks"},
		}},
		{name: "our NDJSON export with imported click totals", format: "ndjson", file: "own-imported.ndjson", want: []importedRow{
			{Line: 1, URL: "https://example.net/first", Alias: "a", Expires: "2031-11-29T09:00:00Z", Redirect: 301, Imported: 48213, Failed: "alias"},
			{Line: 2, URL: "https://example.net/zz", Alias: "zz", Expires: "2031-11-29T09:00:01Z", Redirect: 301, Failed: "alias"},
		}},
		{name: "our CSV export with titles, notes and tags", format: "csv", file: "own-meta.csv", want: []importedRow{
			{Line: 2, URL: "https://example.com/spring", Alias: "Spring", Expires: "2031-11-29T09:00:00Z", Redirect: 302, Title: "Spring launch", Tags: []string{"launch", "eu:de"}},
			{Line: 4, URL: "https://example.com/plain", Expires: "2031-11-28T08:00:00Z", Redirect: 302}, // line 3 is the notes' second
		}},
		{name: "our NDJSON export with titles, notes and tags", format: "ndjson", file: "own-meta.ndjson", want: []importedRow{
			{Line: 1, URL: "https://example.com/spring", Alias: "Spring", Expires: "2031-11-29T09:00:00Z", Redirect: 302, Title: "Spring launch", Tags: []string{"launch", "eu:de"}},
			{Line: 2, URL: "https://example.com/plain", Expires: "2031-11-28T08:00:00Z", Redirect: 302},
		}},
		{name: "our NDJSON export", format: "ndjson", file: "own.ndjson", want: []importedRow{
			{Line: 1, URL: "https://example.com/summer", Alias: "Summer-Sale", Expires: "2027-05-30T09:00:00Z", Redirect: 307},
			{Line: 2, URL: "https://example.com/landing?utm_source=cli", Expires: "2031-11-28T18:30:00Z", Redirect: 301, Disabled: true},
			{Line: 4, Failed: "-"}, // an unknown field: not our export
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, readFixture(t, tt.format, tt.file, tt.newCode))
		})
	}
}

func TestImportFormatsRefuseOtherFiles(t *testing.T) {
	tests := []struct {
		name, format, data string
	}{
		{"a Shlink file without short codes", "shlink", "longUrl,title\nhttps://example.com/,x\n"},
		{"a YOURLS file without keywords", "yourls", "url,clicks\nhttps://example.com/,1\n"},
		{"a Dub file with API names", "dub", "key,url\nabc,https://example.com/\n"},
		{"a Bitly CSV without long_url", "bitly", "link,title\nhttps://bit.ly/x,y\n"},
		{"Kutt as CSV", "kutt", "address,target\nabc,https://example.com/\n"},
		{"Kutt JSON without data", "kutt", `{"links": []}`},
		{"Kutt JSON with an empty data", "kutt", `{"data": []}`},
		{"Bitly JSON that is a string", "bitly", `["x"]`},
		{"an empty NDJSON file", "ndjson", "\n\n"},
		{"our CSV with a column of another tool", "csv", "url,visits\nhttps://example.com/,x\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := importFormats[tt.format]([]byte(tt.data))
			var usage *usageError
			require.True(t, errors.As(err, &usage), "want a usage error, got %v", err)
		})
	}
}

func TestCheckRowsDuplicateAliases(t *testing.T) {
	rows, err := readOwnCSV([]byte("url,alias\nhttps://example.com/a,Sale\nhttps://example.com/b,sale\nhttps://example.com/c,\nhttps://example.com/c,\n"))
	require.NoError(t, err)
	(&app{now: func() time.Time { return importNow }}).checkRows(rows, false)
	assert.Nil(t, rows[0].Problem)
	require.NotNil(t, rows[1].Problem, "aliases are case-insensitive")
	assert.True(t, strings.Contains(rows[1].Problem.Detail, "line 2"), rows[1].Problem.Detail)
	assert.Nil(t, rows[2].Problem, "two rows without alias may share a URL")
	assert.Nil(t, rows[3].Problem)
}

func TestImportRowsNameTheirSource(t *testing.T) {
	tests := []struct{ format, file, want string }{
		{"kutt", "kutt.json", "1f0c9a52-6b1e-4c0a-9d4f-2a7a6d3b9e01"},
		{"bitly", "bitly.json", "bit.ly/3Pq9XyZ"},
		{"shlink", "shlink.csv", "s.example.org/Spring24"},
		{"dub", "dub.csv", "dub.sh/launch-week"},
		{"yourls", "yourls.csv", "ozh"},
		{"csv", "own.csv", "Summer-Sale"},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "import", tt.file))
			require.NoError(t, err)
			rows, err := importFormats[tt.format](data)
			require.NoError(t, err)
			assert.Equal(t, tt.want, rows[0].Source)
		})
	}
}

func TestReadTabTableUnescapesMySQL(t *testing.T) {
	data := "keyword\ttitle\n" +
		"a\tYOURLS' \"Blog\"\\tand\\\\archive\\nline two\n" + // mysql --batch escapes tab, newline and backslash
		"b\tone\ttoo many\n" +
		"\n"
	var titles []string
	_, rows, err := readTabTable([]byte(data), func(_ csvTable, line int, cell func(string) string) *importRow {
		titles = append(titles, cell("title"))
		return &importRow{Line: line}
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"YOURLS' \"Blog\"\tand\\archive\nline two"}, titles)
	require.Len(t, rows, 2)
	require.NotNil(t, rows[1].Problem, "a row with another number of fields fails alone")
	assert.Equal(t, 3, rows[1].Line)
}

func TestNewCodeRescuesADuplicateAlias(t *testing.T) {
	rows, err := readOwnCSV([]byte("url,alias\nhttps://example.com/a,Sale\nhttps://example.com/b,sale\n"))
	require.NoError(t, err)
	(&app{now: func() time.Time { return importNow }}).checkRows(rows, true)
	assert.Nil(t, rows[0].Problem)
	assert.Equal(t, "Sale", rows[0].req.Alias)
	require.Nil(t, rows[1].Problem, "--new-code gives a case-duplicate alias a generated code")
	assert.Empty(t, rows[1].req.Alias)
	assert.Equal(t, []string{`alias "sale" (also on line 2; aliases are case-insensitive)`}, rows[1].NotKept)
}

// TestOwnExportUnderWidenedLengths: our own export of a widened
// deployment's links reads back whole under the same lengths, click
// totals included.
func TestOwnExportUnderWidenedLengths(t *testing.T) {
	for _, tt := range []struct{ format, file string }{{"csv", "own-imported.csv"}, {"ndjson", "own-imported.ndjson"}} {
		t.Run(tt.format, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "import", tt.file))
			require.NoError(t, err)
			rows, err := importFormats[tt.format](data)
			require.NoError(t, err)
			(&app{now: func() time.Time { return importNow }}).checkRowsUnder(link.Rules{AliasMinLen: 1, AliasMaxLen: 100}, rows, false)
			for i, want := range []int64{48213, 0} {
				require.Nil(t, rows[i].Problem, "line %d", rows[i].Line)
				got := int64(0)
				if rows[i].req.ImportedClicks != nil {
					got = *rows[i].req.ImportedClicks
				}
				assert.Equal(t, want, got)
			}
		})
	}
}
