package capacity

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
)

// Config is cfg with the meter installed on every DynamoDB client made
// from it, as Options installs it on one: for code that makes its clients
// itself (the functions' builds, from fnclients.Clients.AWS).
func (m *Meter) Config(cfg aws.Config) aws.Config {
	var o dynamodb.Options
	m.Options(&o)
	cfg.APIOptions = append(append([]func(*middleware.Stack) error(nil), cfg.APIOptions...), o.APIOptions...)
	return cfg
}
