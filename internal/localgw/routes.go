package localgw

import (
	"github.com/shortlink-dev/shortener/shared/edgespec"
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
	// APIAuthorizer guards the /v1 routes as the deployed API's Lambda
	// authorizer does (functions/apiauth); nil leaves them to the
	// x-api-key check alone, as with key source HEADER.
	APIAuthorizer *RESTAuthorizer
}

// Routes are the routes of the service's APIs as deployed
// (edgespec.APIs with its default usage plan) with h behind them:
// Configure's, for a gateway whose other settings the caller makes. It
// panics where Configure fails, which the service's description never
// makes it do (TestConfigureModelsTheServicesAPIs).
func Routes(h Handlers) []Route {
	o, err := Configure(edgespec.APIs(edgespec.DefaultUsagePlan), h)
	if err != nil {
		panic(err)
	}
	return o.Routes
}
