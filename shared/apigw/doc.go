// Package apigw translates between API Gateway REST (v1) proxy events and
// the domain: it decodes JSON bodies strictly, reads the caller's identity,
// and maps domain errors to statuses and RFC 9457 problem+json bodies in one
// place. Internal errors are logged once here and answered as "internal
// error"; err.Error() never reaches a client.
package apigw
