package cloudfrontjs

// EventVersion is the only version of the event structure CloudFront
// Functions have.
const EventVersion = "1.0"

// The event types a function is associated with.
const (
	EventViewerRequest  = "viewer-request"
	EventViewerResponse = "viewer-response"
)

// Event is the object CloudFront passes a function
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/functions-event-structure.html).
// Version and Context.EventType are filled in by ViewerRequest and
// ViewerResponse.
type Event struct {
	Version  string    `json:"version"`
	Context  Context   `json:"context"`
	Viewer   Viewer    `json:"viewer"`
	Request  Request   `json:"request"`
	Response *Response `json:"response,omitempty"` // viewer-response only
}

// Context is the event's context object.
type Context struct {
	DistributionDomainName string `json:"distributionDomainName"`
	DistributionID         string `json:"distributionId"`
	EventType              string `json:"eventType"`
	RequestID              string `json:"requestId"`
}

// Viewer is the event's viewer object: the address the request came from.
type Viewer struct {
	IP string `json:"ip"`
}

// Request is the viewer's request. URI is the path as the viewer sent it,
// still percent-encoded; Querystring values are as sent too. Headers have
// lower-case names and leave out Cookie, which is in Cookies, and the
// headers edge functions are not shown (DisallowedHeader).
type Request struct {
	Method      string `json:"method"`
	URI         string `json:"uri"`
	Querystring Values `json:"querystring"`
	Headers     Values `json:"headers"`
	Cookies     Values `json:"cookies"`
}

// Response is a response: the origin's or the cache's in a viewer-response
// event, or one a viewer-request function generates (then with Body).
// Headers leave out Set-Cookie, which is in Cookies.
type Response struct {
	StatusCode        int             `json:"statusCode"`
	StatusDescription string          `json:"statusDescription,omitempty"`
	Headers           Values          `json:"headers"`
	Cookies           ResponseCookies `json:"cookies"`
	Body              *Body           `json:"body,omitempty"`
}

// Body is a generated response's body. Encoding is "text" or "base64".
type Body struct {
	Encoding string `json:"encoding"`
	Data     string `json:"data"`
}

// Value is a query string parameter, header or request cookie. When the
// name appears more than once, MultiValue holds every value in order and
// Value is the first.
type Value struct {
	Value      string  `json:"value"`
	MultiValue []Value `json:"multiValue,omitempty"`
}

// All returns every value: MultiValue's, or Value alone.
func (v Value) All() []string {
	if len(v.MultiValue) == 0 {
		return []string{v.Value}
	}
	out := make([]string, len(v.MultiValue))
	for i, m := range v.MultiValue {
		out[i] = m.Value
	}
	return out
}

// Values are query string parameters, headers or request cookies by name.
type Values map[string]Value

// Add appends value to name's values.
func (vs Values) Add(name, value string) {
	cur, ok := vs[name]
	switch {
	case !ok:
		vs[name] = Value{Value: value}
	case len(cur.MultiValue) == 0:
		vs[name] = Value{Value: cur.Value, MultiValue: []Value{{Value: cur.Value}, {Value: value}}}
	default:
		cur.MultiValue = append(cur.MultiValue, Value{Value: value})
		vs[name] = cur
	}
}

// Cookie is a response cookie: its value and the attributes of its
// Set-Cookie line ("Path=/; Secure"). MultiValue holds each Set-Cookie of
// the name when there is more than one.
type Cookie struct {
	Value      string   `json:"value"`
	Attributes string   `json:"attributes,omitempty"`
	MultiValue []Cookie `json:"multiValue,omitempty"`
}

// ResponseCookies are a response's cookies by name.
type ResponseCookies map[string]Cookie

// RequestResult is what a viewer-request function returned: the request
// to go on with, or a response to answer the viewer with. Exactly one is
// set.
type RequestResult struct {
	Request  *Request
	Response *Response
}
