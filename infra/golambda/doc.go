// Package golambda provides the Lambda function construct every handler of
// the service is deployed with: the arm64 `bootstrap` that `make build`
// zips, on the OS-only runtime, with its own role and log group.
package golambda
