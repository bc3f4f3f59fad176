package linkapi

import "encoding/json"

// MaxBatch is the most links one POST /v1/links/batch may carry.
const MaxBatch = 100

// BatchRequest is the body of POST /v1/links/batch: up to MaxBatch create
// requests, each the body POST /v1/links takes. The items stay raw here so
// that one malformed item (an unknown field, a wrong type) is answered on
// its own with a 400 naming its field, instead of failing the batch.
type BatchRequest struct {
	Links []json.RawMessage `json:"links"`
}

// BatchResponse answers a batch: one result per item, in the order of the
// request, whatever each result is.
type BatchResponse struct {
	Results []BatchResult `json:"results"`
}

// BatchResult is one item's answer. Status is the status POST /v1/links
// would have answered for the item alone: 201 with Link, or an error
// status with Problem, the RFC 9457 problem details body that request
// would have carried (shared/apigw.Problem; kept raw so clients of this
// package need not import the API Gateway translation).
type BatchResult struct {
	Index   int             `json:"index"`
	Status  int             `json:"status"`
	Link    *Link           `json:"link,omitempty"`
	Problem json.RawMessage `json:"problem,omitempty"`
}
