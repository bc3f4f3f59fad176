package wire

import (
	"context"
	"io"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/shortlink-dev/shortener/functions/originauth/originauthfn"
	"github.com/shortlink-dev/shortener/functions/wire/edgefns"
	"github.com/shortlink-dev/shortener/functions/wire/hookfns"
	"github.com/shortlink-dev/shortener/functions/wire/lambdaenv"
	"github.com/shortlink-dev/shortener/functions/wire/wirecore"
	"github.com/shortlink-dev/shortener/shared/config"
	"github.com/shortlink-dev/shortener/shared/edgecache"
	"github.com/shortlink-dev/shortener/shared/edgeinfo"
	"github.com/shortlink-dev/shortener/shared/webhook/sqsqueue"
)

// Clients are what a function talks to outside itself: the AWS services,
// its log and its metrics. In Lambda only AWS, Log and Metrics are set
// (see Lambda) and each constructor makes the service clients its function
// calls from AWS. The local run sets the others to its emulators instead.
//
// The Lambda entry points do not use this package: each calls its
// constructor's own package (wirecore.Lambda with dbfns, hooksapi,
// sitefns, edgefns, hookfns or clickfns; lambdaenv.Lambda with authfns), so that its bootstrap links only the SDK clients it calls.
// This package gathers them for the local run, with Clients as it sets
// them.
type Clients struct {
	// AWS is the SDK configuration the service clients are made from.
	AWS aws.Config
	// DynamoDB, when set, serves every table instead of a client made
	// from AWS, the primary Region's writes included: DynamoDB Local.
	DynamoDB *dynamodb.Client
	// Edge, when set, is what manage invalidates instead of the
	// CloudFront distribution EDGE_PARAMETER names: the local edge.
	// (create invalidates nothing.)
	Edge edgecache.Invalidator
	// EdgeInfo, when set, tells the distribution instead of the SSM
	// parameter EDGE_PARAMETER names.
	EdgeInfo edgeinfo.Source
	// OriginSecrets, when set, are the values originauth accepts instead of
	// those of the Secrets Manager secret ORIGIN_SECRET_ID names.
	OriginSecrets originauthfn.Secrets
	// SQS sends to the webhook queues (WEBHOOK_QUEUE_URL, WEBHOOK_DLQ_URL);
	// nil: shared/sqssend's signed SendMessage on AWS. The local run passes
	// its in-process queues (internal/localsqs).
	SQS sqsqueue.API
	// Log is the log every function writes to; each function's lines
	// carry its name (attribute "function").
	Log *slog.Logger
	// Metrics receives the functions' EMF metrics: stdout in Lambda, where
	// CloudWatch reads them from the function's log.
	Metrics io.Writer
}

// core is c as the constructors take it.
func (c Clients) core() wirecore.Clients {
	return wirecore.Clients{AWS: c.AWS, DynamoDB: c.DynamoDB, Edge: c.Edge, Log: c.Log, Metrics: c.Metrics}
}

func (c Clients) edge() edgefns.Clients {
	return edgefns.Clients{Clients: c.core(), EdgeInfo: c.EdgeInfo}
}

func (c Clients) hooks() hookfns.Clients { return hookfns.Clients{Clients: c.core(), SQS: c.SQS} }

// Lambda builds a function as a Lambda entry point does
// (wirecore.Lambda), for a constructor of this package.
func Lambda[H any](ctx context.Context, build func(config.Config, Clients) (H, error)) (H, error) {
	return lambdaenv.Lambda(ctx, func(cfg config.Config, b lambdaenv.Base) (H, error) {
		return build(cfg, Clients{AWS: b.AWS, Log: b.Log, Metrics: b.Metrics})
	})
}

// dynamoDB is the client of this Region's replica.
func (c Clients) dynamoDB() *dynamodb.Client { return c.core().DynamoDBClient() }

// primaryDynamoDB is the client of the primary Region's replica.
func (c Clients) primaryDynamoDB(cfg config.Config) *dynamodb.Client {
	return c.core().PrimaryDynamoDB(cfg)
}
