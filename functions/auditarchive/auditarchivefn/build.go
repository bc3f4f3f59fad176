package auditarchivefn

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/fnclients"
)

// Build builds the consumer of the audit table's stream that copies its
// entries to the bucket AUDIT_ARCHIVE_BUCKET names, as its Lambda
// (functions/auditarchive) and the local run do: S3 only.
func Build(cfg config.Config, c fnclients.Clients) (*Handler, error) {
	if err := fnclients.Require(cfg, "AUDIT_ARCHIVE_BUCKET"); err != nil {
		return nil, err
	}
	client := s3.NewFromConfig(c.AWS, func(o *s3.Options) {
		if c.S3Endpoint != "" {
			o.BaseEndpoint, o.UsePathStyle = aws.String(c.S3Endpoint), true
		}
	})
	return New(Options{
		S3: client, Bucket: cfg.AuditArchiveBucket,
		Log:     c.Logger("auditarchive"),
		Metrics: c.MetricsOf("auditarchive"),
	}), nil
}
