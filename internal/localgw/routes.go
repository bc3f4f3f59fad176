package localgw

import (
	"net/http"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Handlers are the shortener's functions the gateway fronts. A nil field
// leaves its routes out, so the table can grow ahead of the functions.
type Handlers struct {
	Create   Handler // POST /v1/links
	Redirect Handler // GET and HEAD /{code}; POST /unlock/{code}
	Manage   Handler // GET /v1/links; GET, PATCH and DELETE /v1/links/{code}
	// Batch and QR run in the create and manage functions respectively;
	// they are fields of their own so the routes appear once wired.
	Batch Handler // POST /v1/links/batch
	QR    Handler // GET /v1/links/{code}/qr
	Stats Handler // GET /v1/links/{code}/stats
	// Webhooks serves POST and GET /v1/webhooks, DELETE /v1/webhooks/{id}
	// and GET /v1/webhooks/{id}/deliveries.
	Webhooks Handler

	// OriginAuthorizer guards the redirect route as the deployed origin's
	// Lambda authorizer does (functions/originauth); nil leaves it open.
	OriginAuthorizer *Authorizer
}

// Routes is the shortener's API as the deployed APIs define it: the /v1
// REST API's resources, methods and which of them need an API key, and
// the redirect's HTTP API route.
func Routes(h Handlers) []Route {
	all := []Route{
		{Methods: []string{http.MethodPost}, Pattern: "/v1/links", NeedsKey: true, Handler: h.Create},
		{Methods: []string{http.MethodGet}, Pattern: "/v1/links", NeedsKey: true, Handler: h.Manage},
		{Methods: []string{http.MethodGet, http.MethodPatch, http.MethodDelete}, Pattern: "/v1/links/{code}", NeedsKey: true, Handler: h.Manage},
		{Methods: []string{http.MethodPost}, Pattern: "/v1/links/batch", NeedsKey: true, Handler: h.Batch},
		{Methods: []string{http.MethodGet}, Pattern: "/v1/links/{code}/qr", NeedsKey: true, Handler: h.QR},
		{Methods: []string{http.MethodGet}, Pattern: "/v1/links/{code}/stats", NeedsKey: true, Handler: h.Stats},
		{Methods: []string{http.MethodGet, http.MethodPost}, Pattern: "/v1/webhooks", NeedsKey: true, Handler: h.Webhooks},
		{Methods: []string{http.MethodDelete}, Pattern: "/v1/webhooks/{id}", NeedsKey: true, Handler: h.Webhooks},
		{Methods: []string{http.MethodGet}, Pattern: "/v1/webhooks/{id}/deliveries", NeedsKey: true, Handler: h.Webhooks},
		// The redirect origin is an HTTP API (infra/api NewRedirect).
		{Methods: []string{http.MethodGet, http.MethodHead}, Pattern: "/{code}", Handler: h.Redirect, API: HTTPAPI, Authorizer: h.OriginAuthorizer},
		// A protected link's password form (link.UnlockPath).
		{Methods: []string{http.MethodPost}, Pattern: link.UnlockPath("{code}"), Handler: h.Redirect, API: HTTPAPI, Authorizer: h.OriginAuthorizer},
	}
	routes := all[:0]
	for _, rt := range all {
		if rt.Handler != nil {
			routes = append(routes, rt)
		}
	}
	return routes
}
