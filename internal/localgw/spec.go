package localgw

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/shortlink-dev/shortener/shared/apigw"
	"github.com/shortlink-dev/shortener/shared/edgespec"
)

// ErrUnmodelled is returned by Configure for a part of an API description
// the gateway does not play. It refuses it rather than leave it out, since
// a local run without it would pass where AWS does not (or the reverse).
var ErrUnmodelled = errors.New("not modelled by the local gateway")

// modelledResponses are the gateway responses the gateway plays:
// THROTTLED, QUOTA_EXCEEDED and, for a method a resource does not list,
// MISSING_AUTHENTICATION_TOKEN as described; the missing-route and bad-key
// ones with the documented differences of doc.go.
var modelledResponses = []string{
	edgespec.ResponseMissingAuthenticationToken, edgespec.ResponseInvalidAPIKey,
	edgespec.ResponseQuotaExceeded, edgespec.ResponseThrottled,
	edgespec.ResponseUnauthorized, edgespec.ResponseAccessDenied, edgespec.ResponseAuthorizerFailure,
}

// Configure returns the Options of a gateway that plays apis (the
// service's are edgespec.APIs) with h's functions behind their routes:
// the routes and methods, Lambda authorizers, binary media types, payload
// format, integration timeouts, API keys, the usage plan, stage and method
// throttles, and the gateway responses for 429s. A route whose handler h
// leaves nil is left out, as is an authorizer h leaves nil. The problems
// page (a mock integration) is the gateway's own route; the health check's
// service integration is left to the caller, in front of the gateway.
//
// h.OriginAuthorizer, when set, is completed from the description: its
// Header and TTL are the authorizer's identity source and result TTL
// where it leaves them zero; a different header is an error.
//
// Any part Configure does not model is an error wrapping ErrUnmodelled,
// and an invalid description one wrapping edgespec.ErrInvalidAPI. The
// caller adds what is not the description's (keys, readiness, log).
func Configure(apis []edgespec.API, h Handlers) (Options, error) {
	var o Options
	var errs []error
	unmodelled := func(a edgespec.API, format string, args ...any) {
		errs = append(errs, fmt.Errorf("API %q: %s: %w", a.Name, fmt.Sprintf(format, args...), ErrUnmodelled))
	}
	rest := 0
	for _, a := range apis {
		if err := a.Validate(); err != nil {
			errs = append(errs, err)
			continue
		}
		if a.CORS != nil {
			unmodelled(a, "CORS")
		}
		kind := RESTAPI
		switch a.Kind {
		case edgespec.HTTPAPI:
			kind = HTTPAPI
			if a.Stage != "$default" {
				unmodelled(a, "stage %q: HTTP API events name $default", a.Stage)
			}
			if a.PayloadFormatVersion != "1.0" {
				unmodelled(a, "payload format %q: the events are 1.0's", a.PayloadFormatVersion)
			}
		case edgespec.RESTAPI:
			if rest++; rest > 1 {
				unmodelled(a, "a second REST API: binary media types, the usage plan and gateway responses are the gateway's, not a route's")
			}
			if a.PayloadFormatVersion != "" && a.PayloadFormatVersion != "1.0" {
				unmodelled(a, "payload format %q", a.PayloadFormatVersion)
			}
			switch a.APIKeySource {
			case "", edgespec.KeySourceHeader, edgespec.KeySourceAuthorizer:
				o.APIKeySource = a.APIKeySource
			default:
				unmodelled(a, "API key source %q", a.APIKeySource)
			}
			o.BinaryMediaTypes = slices.Clone(a.BinaryMediaTypes)
			if a.UsagePlan != nil {
				if a.UsagePlan.QuotaPeriod != edgespec.QuotaPerDay {
					unmodelled(a, "quota period %q", a.UsagePlan.QuotaPeriod)
				}
				plan := *a.UsagePlan
				o.UsagePlan = &plan
			}
			for _, g := range a.GatewayResponses {
				if !slices.Contains(modelledResponses, g.Type) {
					unmodelled(a, "gateway response %s", g.Type)
				}
			}
			o.GatewayResponses = slices.Clone(a.GatewayResponses)
		}
		authorizers, restAuthorizers, err := authorizersOf(a, h)
		if err != nil {
			errs = append(errs, err)
		}
		var stage *Throttle
		if a.Throttle != nil {
			stage = NewThrottle(*a.Throttle)
		}
		// last is the index in o.Routes of a's last route that may take
		// more methods, lastKey the handler it has (Handlers.key).
		last, lastKey := -1, ""
		for _, r := range a.Routes {
			handler, known := h.handler(r)
			if !known {
				unmodelled(a, "route %s: integration %+v", r.Key(), r.Integration)
				continue
			}
			if handler == nil {
				continue
			}
			rt := Route{
				Methods:  []string{r.Method},
				Pattern:  r.Path,
				NeedsKey: r.APIKeyRequired,
				API:      kind,
				Handler:  handler,
				Timeout:  a.IntegrationTimeout,
			}
			if r.Authorizer != "" {
				rt.Authorizer = authorizers[r.Authorizer]
				rt.RESTAuthorizer = restAuthorizers[r.Authorizer]
			}
			if r.Throttle == nil && last >= 0 && lastKey == h.key(r) && sameResource(o.Routes[last], rt) {
				// One Route per resource and handler, as the table was
				// written by hand: GET and HEAD /{code} are one.
				o.Routes[last].Methods = append(o.Routes[last].Methods, r.Method)
				continue
			}
			if r.Throttle != nil {
				rt.Throttles = append(rt.Throttles, NewThrottle(*r.Throttle))
			}
			if stage != nil {
				rt.Throttles = append(rt.Throttles, stage)
			}
			o.Routes = append(o.Routes, rt)
			last, lastKey = -1, ""
			if r.Throttle == nil {
				// A method with a throttle of its own keeps its Route.
				last, lastKey = len(o.Routes)-1, h.key(r)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return Options{}, err
	}
	return o, nil
}

// authorizersOf returns a's authorizers by name, an HTTP API's and a
// REST API's: h's for the functions it has one of, nil for the others
// (open, as a nil handler leaves it).
func authorizersOf(a edgespec.API, h Handlers) (map[string]*Authorizer, map[string]*RESTAuthorizer, error) {
	out := map[string]*Authorizer{}
	rest := map[string]*RESTAuthorizer{}
	var errs []error
	for _, z := range a.Authorizers {
		bad := func(what string) {
			errs = append(errs, fmt.Errorf("API %q: authorizer %s: %s: %w", a.Name, z.Name, what, ErrUnmodelled))
		}
		if a.Kind == edgespec.RESTAPI {
			switch {
			case z.Type != edgespec.RequestAuthorizer || z.Response != edgespec.IAMPolicyResponse:
				bad("only REQUEST authorizers answering with a policy")
			case len(z.IdentitySources) > 0 || z.ResultTTL > 0:
				bad("identity sources and a result cache on a REST authorizer")
			case z.Function != edgespec.LambdaAPIAuth:
				bad("function " + string(z.Function))
			default:
				if h.APIAuthorizer != nil {
					rest[z.Name] = h.APIAuthorizer
				}
			}
			continue
		}
		header, ok := strings.CutPrefix(single(z.IdentitySources), "$request.header.")
		switch {
		case z.Type != edgespec.RequestAuthorizer:
			bad("type " + string(z.Type))
		case z.Response != edgespec.SimpleResponse || z.PayloadFormatVersion != "2.0":
			bad("only simple responses to payload 2.0 events")
		case !ok || header == "":
			bad("identity sources " + strings.Join(z.IdentitySources, ", ") + ": only one header")
		case z.Function != edgespec.LambdaOriginAuth:
			bad("function " + string(z.Function))
		}
		auth := h.OriginAuthorizer
		if auth == nil || z.Function != edgespec.LambdaOriginAuth {
			continue
		}
		switch {
		case auth.Header == "":
			auth.Header = header
		case !strings.EqualFold(auth.Header, header):
			errs = append(errs, fmt.Errorf("API %q: authorizer %s reads %s, the one given %s", a.Name, z.Name, header, auth.Header))
		}
		if auth.TTL == 0 {
			auth.TTL = z.ResultTTL
		}
		out[z.Name] = auth
	}
	return out, rest, errors.Join(errs...)
}

// sameResource reports whether next may join prev's methods: the same
// resource, API, key and authorizer requirement and timeout (the handler
// is compared by Handlers.key).
func sameResource(prev, next Route) bool {
	return prev.Pattern == next.Pattern && prev.API == next.API && prev.NeedsKey == next.NeedsKey &&
		prev.Authorizer == next.Authorizer && prev.RESTAuthorizer == next.RESTAuthorizer && prev.Timeout == next.Timeout
}

// key names the field of Handlers that answers r.
func (h Handlers) key(r edgespec.Route) string {
	in := r.Integration
	switch {
	case in.Function == edgespec.LambdaCreate && strings.HasSuffix(r.Path, "/batch"):
		return "batch"
	case in.Function == edgespec.LambdaManage && strings.HasSuffix(r.Path, "/qr"):
		return "qr"
	}
	return string(in.Kind) + ":" + string(in.Function) + in.Action + in.Page
}

func single(s []string) string {
	if len(s) != 1 {
		return ""
	}
	return s[0]
}

// handler is the handler of h that answers r, and whether the gateway
// models r's integration at all. Batch and QR are handlers of their own
// though the create and manage functions serve them, so that their routes
// appear once wired.
func (h Handlers) handler(r edgespec.Route) (Handler, bool) {
	in := r.Integration
	switch in.Kind {
	case edgespec.MockIntegration:
		// New adds the problems page itself: every gateway answers it.
		if in.Page == edgespec.ProblemsPage && r.Path == apigw.ProblemsPath && r.Method == http.MethodGet {
			return nil, true
		}
		return nil, false
	case edgespec.ServiceIntegration:
		// The health check's GetItem reads the Region's links table,
		// which the gateway does not hold: its caller answers it in
		// front of the gateway (shortener-local's withHealth).
		return nil, in.Action == edgespec.HealthAction && r.Method == http.MethodGet
	case edgespec.LambdaProxy:
	default:
		return nil, false
	}
	switch in.Function {
	case edgespec.LambdaCreate:
		if strings.HasSuffix(r.Path, "/batch") {
			return h.Batch, true
		}
		return h.Create, true
	case edgespec.LambdaManage:
		if strings.HasSuffix(r.Path, "/qr") {
			return h.QR, true
		}
		return h.Manage, true
	case edgespec.LambdaStats:
		return h.Stats, true
	case edgespec.LambdaWebhooks:
		return h.Webhooks, true
	case edgespec.LambdaRedirect:
		return h.Redirect, true
	}
	return nil, false
}
