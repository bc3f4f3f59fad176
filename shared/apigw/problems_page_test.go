package apigw_test

import (
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/docs"
	"github.com/shortlink-dev/shortener/shared/apigw"
)

// TestProblemTypesPointIntoThisDeployment: every problem type is a
// relative reference to this deployment's problems page with the slug as
// its fragment, so it resolves to a page the deployment itself answers,
// never to a site that may not exist.
func TestProblemTypesPointIntoThisDeployment(t *testing.T) {
	page := apigw.ProblemsPage()
	for _, p := range apigw.AllProblems {
		t.Run(p.Type, func(t *testing.T) {
			u, err := url.Parse(p.Type)
			require.NoError(t, err)
			assert.False(t, u.IsAbs(), "a relative reference, resolved against the request's URL")
			assert.Empty(t, u.Host)
			assert.Equal(t, apigw.ProblemsPath, u.Path)
			require.NotEmpty(t, u.Fragment)
			assert.Contains(t, page, `id="`+u.Fragment+`"`, "the page explains %s", u.Fragment)
			base, _ := url.Parse("https://d111111abcdef8.cloudfront.net/v1/links/Ab3dE5g")
			assert.Equal(t, "https://d111111abcdef8.cloudfront.net/v1/problems#"+u.Fragment, base.ResolveReference(u).String())
		})
	}
}

// TestProblemsPageIsTheDocument: the page is docs/problems.md, every
// section of it, and nothing a Velocity mapping template would read as
// syntax.
func TestProblemsPageIsTheDocument(t *testing.T) {
	page := apigw.ProblemsPage()
	assert.NotContains(t, page, "#", "VTL reads # as a directive or comment")
	assert.NotContains(t, page, "$", "VTL reads $ as a reference")
	slugs := regexp.MustCompile(`(?m)^## (\S+)$`).FindAllStringSubmatch(docs.Problems, -1)
	require.Len(t, slugs, len(apigw.AllProblems), "one section per problem type")
	for _, s := range slugs {
		assert.Contains(t, page, `<h2 id="`+s[1]+`">`)
	}
	text := html.UnescapeString(page)
	for _, line := range strings.Split(docs.Problems, "\n") {
		if line = strings.TrimSpace(strings.TrimLeft(line, "# ")); line != "" {
			assert.Contains(t, text, line, "every line of the document reads on the page as written")
		}
	}
	resp := apigw.ProblemsResponse()
	assert.Equal(t, 200, resp.StatusCode)
	assert.Equal(t, "text/html; charset=utf-8", resp.Headers["Content-Type"])
	assert.Equal(t, page, resp.Body)
}
