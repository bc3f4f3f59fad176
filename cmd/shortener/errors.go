package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/shortlink-dev/shortener/shared/link"
)

// Exit codes, documented in docs/cli.md and the root command's help.
// Scripts may rely on them.
const (
	exitOK          = 0
	exitFailed      = 1 // the API refused the request, or some import rows failed
	exitUsage       = 2 // wrong flags or arguments, missing settings, unreadable files
	exitUnavailable = 3 // no answer from the API, or it said it is unavailable: retry later
)

// usageError is a mistake in how the command was called.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// problem is an RFC 9457 problem details body as the API sends it.
type problem struct {
	Type     string `json:"type,omitempty"`
	Title    string `json:"title,omitempty"`
	Status   int    `json:"status,omitempty"`
	Detail   string `json:"detail,omitempty"`
	Instance string `json:"instance,omitempty"`
	Field    string `json:"field,omitempty"`
}

// String is the problem for a person: the detail when there is one, which
// names the field, else the title.
func (p problem) String() string {
	switch {
	case p.Detail != "" && p.Field != "" && !strings.HasPrefix(p.Detail, p.Field):
		return p.Field + ": " + p.Detail
	case p.Detail != "":
		return p.Detail
	case p.Title != "":
		return p.Title
	}
	return http.StatusText(p.Status)
}

// apiError is an answer of the API that is not a success.
type apiError struct {
	Status  int
	Problem problem
	// Raw is the body when it was not a problem (API Gateway's own
	// {"message": ...}, say).
	Raw string
}

func (e *apiError) Error() string {
	msg := e.Problem.String()
	if e.Problem.Status == 0 {
		msg = strings.TrimSpace(e.Raw)
		var gw struct{ Message string }
		if json.Unmarshal([]byte(e.Raw), &gw) == nil && gw.Message != "" {
			msg = gw.Message
		}
		if msg == "" {
			msg = http.StatusText(e.Status)
		}
	}
	return fmt.Sprintf("%d %s", e.Status, msg)
}

// unavailable reports whether the answer means "try again later": the
// service or a dependency failed, or the caller is throttled.
func (e *apiError) unavailable() bool {
	return e.Status >= 500 || e.Status == http.StatusTooManyRequests
}

// networkError is a request that got no HTTP answer.
type networkError struct {
	endpoint string
	err      error
}

func (e *networkError) Error() string {
	return fmt.Sprintf("cannot reach %s: %v", e.endpoint, e.err)
}

func (e *networkError) Unwrap() error { return e.err }

// rowsFailedError: an import finished, and some rows were not created.
type rowsFailedError struct{ failed, total int }

func (e *rowsFailedError) Error() string {
	return fmt.Sprintf("%d of %d rows failed", e.failed, e.total)
}

// exitCode classifies err for scripts.
func exitCode(err error) int {
	var (
		usage *usageError
		api   *apiError
		netw  *networkError
		rows  *rowsFailedError
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &usage):
		return exitUsage
	case errors.As(err, &netw):
		return exitUnavailable
	case errors.As(err, &api):
		if api.unavailable() {
			return exitUnavailable
		}
		return exitFailed
	case errors.As(err, &rows):
		return exitFailed
	case errors.Is(err, link.ErrUnavailable):
		return exitUnavailable // the keys table is slow or down
	}
	return exitFailed
}
