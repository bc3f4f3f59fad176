package clicklog

import "slices"

// Fields are the CloudFront real-time log fields we configure, in the order
// CloudFront writes them to a record. infra/ passes this list to the
// real-time log configuration and Parse reads records laid out by it, so the
// two cannot drift. The order is CloudFront's documented field order, not a
// choice of ours: CloudFront ignores the configuration's order, and adding a
// field shifts every field after it. Keep the list in that order; a test
// checks it against the documented list.
//
// c-ip is the newest: the unique-visitor estimate hashes it with the
// User-Agent under a salt that lives 48 hours (package visitors); the
// address itself is never stored. sc-content-type came before it: a decided
// link's redirect names its destination in its Content-Type (the redirect
// function's DestinationParam), as the record carries no Location. Parse
// also reads records of the layouts before them (NoIPFields,
// PreviousFields, OldestFields).
//
// Treat it as read-only.
var Fields = []string{
	"timestamp",
	"c-ip",
	"sc-status",
	"cs-method",
	"cs-host",
	"cs-uri-stem",
	"x-edge-request-id",
	"cs-user-agent",
	"cs-referer",
	"x-edge-response-result-type",
	"x-edge-result-type",
	"sc-content-type",
	"c-country",
}

// NoIPFields are the fields of the layout before c-ip was added. Parse reads
// records of that layout too, with ClientIP empty (such a click counts, but
// adds no visitor).
//
// Treat it as read-only.
var NoIPFields = without(Fields, "c-ip")

// PreviousFields are the fields of the layout before sc-content-type was
// added. Parse reads records of that layout too, with ContentType empty:
// CloudFront writes them until the changed real-time log configuration has
// reached every edge location, and they may wait in the stream for its
// retention after that.
//
// Treat it as read-only.
var PreviousFields = without(NoIPFields, "sc-content-type")

// OldestFields are the fields of the layout before
// x-edge-response-result-type was added; Parse reads it with
// ResponseResultType and ContentType empty.
//
// Treat it as read-only.
var OldestFields = without(PreviousFields, "x-edge-response-result-type")

// without is layout with field taken out: an older layout is the newer one
// without the fields added since, each added in CloudFront's order.
func without(layout []string, field string) []string {
	return slices.DeleteFunc(slices.Clone(layout), func(f string) bool { return f == field })
}

// Positions of the fields in a record, in the order of Fields.
const (
	fieldTimestamp = iota
	fieldClientIP
	fieldStatus
	fieldMethod
	fieldHost
	fieldURI
	fieldRequestID
	fieldUserAgent
	fieldReferer
	fieldResponseResultType
	fieldResultType
	fieldContentType
	fieldCountry
	numFields
)
