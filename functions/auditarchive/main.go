// Command auditarchive is the Lambda on the audit table's stream, in the
// primary Region, that copies each batch of new audit entries to the S3
// bucket with Object Lock (docs/audit.md, "The tamper-evident copy in S3").
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/shortlink-dev/shortener/functions/auditarchive/auditarchivefn"
	"github.com/shortlink-dev/shortener/shared/fnclients"
)

func main() {
	lambda.StartHandlerFunc(fnclients.Lambda("auditarchive", auditarchivefn.Build).Handle)
}
