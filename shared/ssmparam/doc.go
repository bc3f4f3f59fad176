// Package ssmparam reads one SSM parameter: GetParameter as a signed JSON
// POST (AWS JSON 1.1, X-Amz-Target AmazonSSM.GetParameter, Signature
// Version 4), the call the SDK's SSM client would make
// (https://docs.aws.amazon.com/systems-manager/latest/APIReference/API_GetParameter.html).
//
// It exists so that the functions that read the edge parameter (create
// and manage, shared/edgeinfo) need not link the SDK's SSM client: that
// package builds schema tables for every SSM operation in its init, which
// was the largest part of those functions' cold start above a trivial
// handler's (docs/benchmarks.md, "Cold start"). This package (through
// awscall) uses only what DynamoDB's client links already (the SDK's aws
// package and its SigV4 signer, net/http, encoding/json), so it adds
// nothing to a bootstrap's initialisation.
//
// It honours the SDK configuration it is given: the Region, the
// credentials (a session token is sent as X-Amz-Security-Token), the HTTP
// client, and the configured endpoints as the SDK clients resolve them
// (https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html):
// AWS_ENDPOINT_URL_SSM (through the configuration's sources, as
// shared/fnclients provides them) before the global
// AWS_ENDPOINT_URL (aws.Config.BaseEndpoint), else the Region's public
// endpoint. Every read is bounded by Timeout, retries included.
package ssmparam
