// Package cfinvalidate sends CloudFront's CreateInvalidation call: a
// REST-XML POST of the invalidation batch to
// /2020-05-31/distribution/{Id}/invalidation, signed with Signature
// Version 4 for cloudfront in us-east-1, the call the SDK's CloudFront
// client would make
// (https://docs.aws.amazon.com/cloudfront/latest/APIReference/API_CreateInvalidation.html).
//
// It exists so that the management function, which makes this one
// CloudFront call, need not link the SDK's CloudFront client, whose
// package initialisation and size were what was left of its cold start
// above the other functions' (docs/benchmarks.md, "Cold start"). Like
// ssmparam it goes through awscall: the Region's configured endpoint
// (AWS_ENDPOINT_URL_CLOUDFRONT, then AWS_ENDPOINT_URL), else CloudFront's
// global endpoint, and the SDK configuration's credentials and HTTP
// client. Batching, path cleaning and timeouts are the caller's
// (edgecache.CloudFront); a throttled or failed (5xx) call is retried
// within the caller's context, as the SDK's standard retryer does.
package cfinvalidate

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/shortlink-dev/shortener/shared/awscall"
)

// SDKID is CloudFront's service ID as the SDK's endpoint settings name it
// (AWS_ENDPOINT_URL_CLOUDFRONT).
const SDKID = "CloudFront"

// apiVersion is the API's version, part of every path and of the XML
// namespace.
const apiVersion = "2020-05-31"

// DefaultAttempts is how many times a throttled, failed (5xx) or
// unanswered call is tried within the caller's context.
const DefaultAttempts = 3

// Client sends invalidations: an awscall.Caller for CloudFront, whose
// Attempts bounds the tries of one call; the caller's context bounds
// their time. Build it with New.
type Client struct{ *awscall.Caller }

// New returns a client for cfg's credentials, HTTP client and configured
// endpoint. CloudFront is a global service: its API is signed for
// us-east-1 whatever cfg's Region (cn-northwest-1 in the China
// partition).
func New(cfg aws.Config) *Client {
	region, public := "us-east-1", "https://cloudfront.amazonaws.com"
	if strings.HasPrefix(cfg.Region, "cn-") {
		region, public = "cn-northwest-1", "https://cloudfront.cn-northwest-1.amazonaws.com.cn"
	}
	return &Client{&awscall.Caller{
		Client:    awscall.New(cfg, "cloudfront", region),
		URL:       awscall.Endpoint(cfg, SDKID, public),
		Attempts:  DefaultAttempts,
		Backoff:   100 * time.Millisecond,
		Retryable: retryable,
	}}
}

// Error is an error CloudFront answered, with its code
// (TooManyInvalidationsInProgress, NoSuchDistribution, AccessDenied,
// Throttling, ...).
type Error = awscall.Error

func retryable(err error) bool {
	return awscall.Transient(err, map[string]bool{"Throttling": true, "ThrottlingException": true})
}

// invalidationBatch is the request body.
type invalidationBatch struct {
	XMLName         xml.Name `xml:"http://cloudfront.amazonaws.com/doc/2020-05-31/ InvalidationBatch"`
	Quantity        int      `xml:"Paths>Quantity"`
	Paths           []string `xml:"Paths>Items>Path"`
	CallerReference string   `xml:"CallerReference"`
}

// CreateInvalidation asks CloudFront to invalidate paths on distribution
// id, under callerReference (unique per batch). It returns once
// CloudFront has accepted the batch (201); the invalidation completes at
// the edges later.
func (c *Client) CreateInvalidation(ctx context.Context, id, callerReference string, paths []string) error {
	if id == "" || len(paths) == 0 {
		return errors.New("cloudfront CreateInvalidation: no distribution or no paths")
	}
	body, err := xml.Marshal(invalidationBatch{Quantity: len(paths), Paths: paths, CallerReference: callerReference})
	if err != nil {
		return err
	}
	body = append([]byte(xml.Header), body...)
	return c.Call(ctx, "cloudfront CreateInvalidation", func(ctx context.Context) error { return c.send(ctx, id, body) })
}

func (c *Client) send(ctx context.Context, id string, body []byte) error {
	u := c.URL + "/" + apiVersion + "/distribution/" + url.PathEscape(id) + "/invalidation"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/xml")
	status, _, raw, err := c.Do(req, body)
	if err != nil {
		return err
	}
	if status == http.StatusCreated || status == http.StatusOK {
		return nil
	}
	return answerError(status, raw)
}

// answerError reads CloudFront's REST-XML error:
// <ErrorResponse><Error><Code>…</Code><Message>…</Message></Error></ErrorResponse>.
func answerError(status int, raw []byte) *Error {
	var resp struct {
		Error struct {
			Code    string `xml:"Code"`
			Message string `xml:"Message"`
		} `xml:"Error"`
	}
	_ = xml.Unmarshal(raw, &resp) // a body that is not XML leaves the status alone to tell
	code := resp.Error.Code
	if code == "" {
		code = http.StatusText(status)
	}
	return &Error{Status: status, Code: code, Message: resp.Error.Message}
}
