// Package apigwtest is what the tests of the handlers behind API Gateway
// share: a REST (v1) proxy event with another body, query or header, and
// the JSON body of an answer decoded. The events themselves come from
// testdata files, read with internal/eventtest.
package apigwtest
