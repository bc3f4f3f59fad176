package redirectfn

import (
	"github.com/shortlink-dev/shortener/shared/edgespec"
	"github.com/shortlink-dev/shortener/shared/link"
)

// withQueryChoice adds to a redirect's headers how the edge's
// query-forward function treats the visitor's query for l
// (edgespec.QueryForwardHeader), when l's choice is not the default: the
// answer is cached with it, so every hit at the edge keeps l's choice, and
// the function removes it before the viewer sees it. The default (the
// visitor's parameters added, the destination's values kept) sends
// nothing.
func withQueryChoice(h map[string]string, l link.Link) map[string]string {
	switch {
	case l.KeepQueryOut:
		h[edgespec.QueryForwardHeader] = edgespec.QueryForwardOff
	case l.QueryPrecedence == link.QueryVisitor:
		h[edgespec.QueryForwardHeader] = edgespec.QueryForwardVisitor
	}
	return h
}
