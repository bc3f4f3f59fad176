// Package eventtest reads the Lambda events the tests send from their
// testdata JSON files: API Gateway requests, Kinesis and DynamoDB stream
// batches, authorizer requests, any type aws-lambda-go models.
package eventtest
