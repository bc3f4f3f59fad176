// Package apigwtest is what the tests of the handlers behind API Gateway
// share: a REST (v1) proxy event with another body, query or header; the
// JSON body of an answer decoded; and an answer checked to be the API's
// problem for a status. The events themselves come from testdata files,
// read with internal/eventtest.
package apigwtest
