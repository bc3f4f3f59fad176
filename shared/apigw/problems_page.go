package apigw

import (
	"net/http"
	"strings"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/docs"
)

// ProblemsPage renders docs/problems.md as the small HTML page the API
// answers at ProblemsPath: the document's text, each "## slug" section an
// element with id slug, so that ProblemBase+slug, resolved against the
// URL of the request that got the problem, lands on its explanation
// (RFC 9457 section 3.1.1: "When dereferenced, it SHOULD provide
// human-readable documentation for the problem type").
//
// The text is shown as written (Markdown is readable as it is), escaped
// for HTML. The page holds no '#' and no '$' at all: in a deployed stack
// it is an API Gateway mapping template, which is Velocity (VTL), where
// both are syntax
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-mapping-template-reference.html).
// HTML's named references &num; and &dollar; stand for them.
func ProblemsPage() string {
	var b strings.Builder
	b.WriteString(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Problem types</title>
<style>body{font-family:sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
pre{white-space:pre-wrap;font-family:inherit;margin:0 0 1.5rem}h2{font-family:monospace}</style>
</head>
<body>
`)
	section := func(text string) {
		if text = strings.TrimSpace(text); text != "" {
			b.WriteString("<pre>" + escapePage(text) + "</pre>\n")
		}
	}
	var text strings.Builder
	for _, line := range strings.SplitAfter(docs.Problems, "\n") {
		heading := strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(heading, "# "):
			section(text.String())
			text.Reset()
			b.WriteString("<h1>" + escapePage(strings.TrimPrefix(heading, "# ")) + "</h1>\n")
		case strings.HasPrefix(heading, "## "):
			section(text.String())
			text.Reset()
			slug := strings.TrimSpace(strings.TrimPrefix(heading, "## "))
			b.WriteString(`<h2 id="` + escapePage(slug) + `">` + escapePage(slug) + "</h2>\n")
		default:
			text.WriteString(line)
		}
	}
	section(text.String())
	b.WriteString("</body>\n</html>\n")
	return b.String()
}

// pageEscaper escapes for HTML in one pass, with named references only:
// html.EscapeString's numeric ones (&#34;) would bring the '#' back.
var pageEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;",
	"#", "&num;", "$", "&dollar;")

// escapePage escapes s for HTML and spells '#' and '$' as references.
func escapePage(s string) string { return pageEscaper.Replace(s) }

// ProblemsPageCacheControl lets browsers and CloudFront keep the page an
// hour: it changes only with a deployment.
const ProblemsPageCacheControl = "public, max-age=3600"

// ProblemsResponse is the answer to GET ProblemsPath, as the local gateway
// gives it; a deployed stack answers the same page from API Gateway itself.
func ProblemsResponse() events.APIGatewayProxyResponse {
	return events.APIGatewayProxyResponse{
		StatusCode: http.StatusOK,
		Headers:    map[string]string{"Content-Type": "text/html; charset=utf-8", "Cache-Control": ProblemsPageCacheControl},
		Body:       ProblemsPage(),
	}
}
