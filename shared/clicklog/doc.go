// Package clicklog reads and writes CloudFront real-time log records and
// decides which of them are clicks. It is the one place that knows the
// record format: the fields we ask CloudFront for (Fields, which infra/
// passes to the real-time log configuration, so parser and configuration
// cannot drift), how a record is laid out, and what makes a record a click
// on a short link and whether a bot made it.
//
// # Record format
//
// CloudFront writes one record per viewer request to Kinesis: the selected
// fields in CloudFront's documented order (not the configuration's order),
// separated by tabs, ending with a newline (CloudFront Developer Guide,
// "Real-time logs":
// https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/real-time-logs.html).
// Records of the layout before x-edge-response-result-type was added
// (PreviousFields) parse too. Values are URL-encoded and an
// empty value is a single "-". The timestamp is epoch seconds with a
// millisecond fraction, such as 1700000000.123. Parse reads such a record
// and Format writes one, so the local gateway playing CloudFront produces
// exactly what the clicks function reads in AWS. Each Kinesis record holds
// one line.
//
// Parsing is on the path of every click, so it avoids work: one pass to
// find the tabs, escapes decoded eight bytes at a time, and the decoded
// text of a record copied once; a Parser shares that memory between the
// records of a batch, so most records allocate nothing.
//
// We select c-ip for one use: the clicks function hashes it with the
// User-Agent under a random salt that lives 48 hours (package visitors) into
// a HyperLogLog register, so the unique-visitor estimate needs no stored
// address. The address passes through the Kinesis stream (encrypted, kept
// for its retention) and the function's memory, never the analytics table
// or a log line. We deliberately do not select x-forwarded-for, cs-cookie
// or cs-headers. The country (c-country) is all we keep of location.
//
// # What counts as a click
//
// Classify keeps a record only if CloudFront answered it with the link's
// own redirect (301, 302, 307 or 308, from the edge cache or from the
// origin: response result type Hit, RefreshHit, OriginShieldHit or Miss)
// for a path that can be a short code: a single segment of link alias
// syntax that is not a reserved word. Everything else (404 scans, 410s,
// errors, the API, favicon.ico) is dropped, and so is CloudFront's own 301
// to https for an http viewer (result type Redirect): the distribution
// redirects http to https, so an http click reaches the edge twice, and
// CloudFront answers that 301 for any path, codes that do not exist
// included, without asking the origin. The code is keyed the way the redirect function looks it up: a
// path spelt like a generated code as typed, anything else lower-cased,
// since aliases are stored lower-cased.
//
// A click is a bot's when the request was a HEAD (link checkers, unfurlers
// probing before a GET), when it carries no User-Agent at all, when the
// User-Agent contains one of BotAgents (the link-preview fetchers of chat
// and social apps, search and AI crawlers, headless browsers) or starts with
// one of BotAgentPrefixes (curl, Wget, python-requests, Go-http-client and
// other HTTP libraries), compared case-insensitively. Nobody reads a page
// through a command-line client, and counting those as people would let
// anyone with a shell inflate a link's numbers.
package clicklog
