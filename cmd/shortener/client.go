package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
)

// maxResponseBytes bounds what the client reads of one answer: the biggest
// are a 100-item batch and a 1024 px PNG, far below it.
const maxResponseBytes = 16 << 20

// client sends requests to the API with the caller's key.
type client struct {
	endpoint  string
	apiKey    string
	http      *http.Client
	userAgent string
}

// request is one call of the API.
type request struct {
	method string
	path   string // escaped
	query  url.Values
	body   any // marshalled as JSON when not nil
	header map[string]string
}

// response is a successful answer.
type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends r. An answer of 400 or above is an *apiError; no answer is a
// *networkError.
func (c *client) do(ctx context.Context, r request) (*response, error) {
	u := c.endpoint + r.path
	if len(r.query) > 0 {
		u += "?" + r.query.Encode()
	}
	var body io.Reader
	if r.body != nil {
		b, err := json.Marshal(r.body)
		if err != nil {
			return nil, fmt.Errorf("encode request: %w", err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u, body)
	if err != nil {
		return nil, usagef("request %s %s: %v", r.method, u, err)
	}
	if c.apiKey != "" {
		req.Header.Set("x-api-key", c.apiKey)
	}
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, &networkError{endpoint: c.endpoint, err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return nil, &networkError{endpoint: c.endpoint, err: fmt.Errorf("read the answer: %w", err)}
	}
	if resp.StatusCode >= 400 {
		return nil, newAPIError(resp.StatusCode, resp.Header, b)
	}
	return &response{status: resp.StatusCode, header: resp.Header, body: b}, nil
}

// doJSON sends r and decodes the answer into out.
func (c *client) doJSON(ctx context.Context, r request, out any) (*response, error) {
	resp, err := c.do(ctx, r)
	if err != nil {
		return nil, err
	}
	if out != nil {
		if err := json.Unmarshal(resp.body, out); err != nil {
			return resp, fmt.Errorf("the answer to %s %s is not the JSON expected: %w", r.method, r.path, err)
		}
	}
	return resp, nil
}

func newAPIError(status int, h http.Header, body []byte) *apiError {
	e := &apiError{Status: status, Raw: string(body)}
	if mt, _, err := mime.ParseMediaType(h.Get("Content-Type")); err == nil && (mt == "application/problem+json" || mt == "application/json") {
		if json.Unmarshal(body, &e.Problem) == nil && e.Problem.Status != 0 {
			e.Raw = ""
		}
	}
	return e
}

// linkPath is the management path of code.
func linkPath(code string, rest ...string) string {
	return "/v1/links/" + url.PathEscape(code) + strings.Join(rest, "")
}
