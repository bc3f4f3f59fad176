package edgespec

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// functionFiles holds the CloudFront Functions' JavaScript, one file per
// function, as infra deploys it and the local edge runs it.
//
//go:embed functions/*.js
var functionFiles embed.FS

// CanonicalPathFunction is the viewer-request function of the redirect
// behaviour that refuses a percent-encoded path with a 400 and
// NonCanonicalPathBody when the edge has no web ACL to do it.
const CanonicalPathFunction = "canonical-path"

// NonCanonicalPathBody is the body of the 400 that both the web ACL's
// canonical-path rule and CanonicalPathFunction answer to a redirect path
// spelt with percent-encoding.
const NonCanonicalPathBody = "This short link is spelt with percent-encoding; use it as it was given.\n"

// QueryForwardFunction is the viewer-response function of the redirect
// behaviour that merges the visitor's query into a redirect's Location, on
// cache hits as on misses, so the cache key stays the path alone. The
// redirect origin tells it the link's choice in QueryForwardHeader, which
// the function removes before the viewer sees the answer.
const QueryForwardFunction = "query-forward"

// QueryForwardHeader is the header of a redirect origin's answer that says
// how QueryForwardFunction treats the visitor's query: absent, the
// visitor's parameters are added and the destination's win where a name is
// in both; QueryForwardVisitor, the visitor's win; QueryForwardOff, none is
// added. It is cached with the answer, so every hit keeps its link's
// choice. CloudFront Functions may read and remove it: it is no header
// edge functions are refused
// (https://docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/edge-function-restrictions-all.html).
const QueryForwardHeader = "X-Query-Forward"

// The values of QueryForwardHeader.
const (
	QueryForwardOff     = "off"
	QueryForwardVisitor = "visitor"
)

// VersionKeyFunction is the redirect behaviour's viewer-request function
// when the cache is keyed on link versions (Options.VersionKeys): the
// checks of CanonicalPathFunction, then the path's version from the
// distribution's key value store in VersionHeader, which the redirect
// cache policy keys on. It reads the store, so its association carries
// it (FunctionAssociation.KeyValueStore).
const VersionKeyFunction = "version-key"

// VersionHeader is the request header VersionKeyFunction sets to the
// version the key value store holds for the path ("0" for none), and the
// one header the redirect cache policy keys on with Options.VersionKeys.
// Its value changes when manage puts a new version for the path, which is
// what takes a changed link's cached answer out of use.
const VersionHeader = "x-link-version"

// NoVersion is the version of a path the key value store holds nothing
// for.
const NoVersion = "0"

// ErrUnknownFunction is returned by FunctionSource for a name with no file
// in functions/.
var ErrUnknownFunction = errors.New("unknown CloudFront Function")

// FunctionSource returns the JavaScript source of the CloudFront Function
// name (a file name.js in functions/).
func FunctionSource(name string) (string, error) {
	if name == "" || strings.ContainsAny(name, `/\.`) {
		return "", fmt.Errorf("%w %q", ErrUnknownFunction, name)
	}
	b, err := fs.ReadFile(functionFiles, "functions/"+name+".js")
	if err != nil {
		return "", fmt.Errorf("%w %q", ErrUnknownFunction, name)
	}
	return string(b), nil
}

// MustFunctionSource is FunctionSource for names that are constants of this
// package: a missing file is a build mistake, so it panics.
func MustFunctionSource(name string) string {
	src, err := FunctionSource(name)
	if err != nil {
		panic(err)
	}
	return src
}

// FunctionNames lists the functions in functions/, sorted.
func FunctionNames() []string {
	entries, _ := fs.ReadDir(functionFiles, "functions")
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".js"); ok && !e.IsDir() {
			names = append(names, n)
		}
	}
	return names
}
