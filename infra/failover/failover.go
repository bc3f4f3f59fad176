package failover

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigateway"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscertificatemanager"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsroute53"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// Health check timing. A check turns unhealthy after FailureThreshold
// failures RequestInterval apart, and resolvers keep the last answer for
// RecordTTL, so a failed Region stops receiving /v1 within about
// RequestInterval x FailureThreshold + RecordTTL (2.5 minutes):
// https://docs.aws.amazon.com/Route53/latest/DeveloperGuide/dns-failover-determining-health-of-endpoints.html.
// The 10-second interval costs more per check and still leaves the TTL.
const (
	RequestIntervalSeconds = 30
	FailureThreshold       = 3
	RecordTTLSeconds       = 60
)

// CheckerRegions are where Route 53's health checkers ask from: the
// fewest it accepts (three), on three continents. Every checker polls the
// endpoint on its own, so each location added adds requests to the /v1 API
// (REST API prices) around the clock; Route 53 lets the locations be
// chosen (https://docs.aws.amazon.com/Route53/latest/DeveloperGuide/dns-failover-determining-health-of-endpoints.html).
var CheckerRegions = []string{"us-east-1", "eu-west-1", "ap-southeast-1"}

// Props configure one Region's entry.
type Props struct {
	// ZoneID and ZoneName are the public hosted zone the records go in.
	ZoneID   string
	ZoneName string
	// DomainName is the name CloudFront sends /v1 to, the same in every
	// Region (for example api.sho.rt).
	DomainName string
	// API is this Region's /v1 REST API; its deployment stage is mapped
	// at the domain's root.
	API awsapigateway.RestApi
	// HealthHost and HealthPath are this Region's own endpoint (its
	// execute-api host and the stage's health path), which the check asks:
	// DomainName would resolve to whichever Region is nearest the checker.
	HealthHost *string
	HealthPath string
}

// Region is what New made.
type Region struct {
	Construct   constructs.Construct
	Certificate awscertificatemanager.Certificate
	Domain      awsapigateway.DomainName
	HealthCheck awsroute53.HealthCheck
	Record      awsroute53.CnameRecord
}

// New adds this stack's Region to the failover set of DomainName.
func New(scope constructs.Construct, id string, p Props) *Region {
	c := constructs.NewConstruct(scope, jsii.String(id))
	region := awscdk.Stack_Of(c).Region()
	zone := awsroute53.HostedZone_FromHostedZoneAttributes(c, jsii.String("Zone"), &awsroute53.HostedZoneAttributes{
		HostedZoneId: jsii.String(p.ZoneID),
		ZoneName:     jsii.String(p.ZoneName),
	})
	// A regional custom domain needs a certificate in its own Region.
	cert := awscertificatemanager.NewCertificate(c, jsii.String("Certificate"), &awscertificatemanager.CertificateProps{
		DomainName: jsii.String(p.DomainName),
		Validation: awscertificatemanager.CertificateValidation_FromDns(zone),
	})
	domain := awsapigateway.NewDomainName(c, jsii.String("Domain"), &awsapigateway.DomainNameProps{
		DomainName:     jsii.String(p.DomainName),
		Certificate:    cert,
		EndpointType:   awsapigateway.EndpointType_REGIONAL,
		SecurityPolicy: awsapigateway.SecurityPolicy_TLS_1_2,
		Mapping:        p.API,
	})
	check := awsroute53.NewHealthCheck(c, jsii.String("HealthCheck"), &awsroute53.HealthCheckProps{
		Type:             awsroute53.HealthCheckType_HTTPS,
		Fqdn:             p.HealthHost,
		Port:             jsii.Number(443),
		ResourcePath:     jsii.String(p.HealthPath),
		EnableSNI:        jsii.Bool(true),
		RequestInterval:  awscdk.Duration_Seconds(jsii.Number(RequestIntervalSeconds)),
		FailureThreshold: jsii.Number(FailureThreshold),
		Regions:          jsii.Strings(CheckerRegions...),
	})
	awscdk.Tags_Of(check).Add(jsii.String("Name"), jsii.String(p.DomainName+" /v1 in "+*region), nil)
	// A CNAME rather than an alias record: its TTL is ours to state.
	record := awsroute53.NewCnameRecord(c, jsii.String("Record"), &awsroute53.CnameRecordProps{
		Zone:          zone,
		RecordName:    jsii.String(p.DomainName),
		DomainName:    domain.DomainNameAliasDomainName(),
		Region:        region,
		SetIdentifier: region,
		HealthCheck:   check,
		Ttl:           awscdk.Duration_Seconds(jsii.Number(RecordTTLSeconds)),
		Comment:       jsii.String("/v1 in this region while its health check passes (latency routing)"),
	})
	return &Region{Construct: c, Certificate: cert, Domain: domain, HealthCheck: check, Record: record}
}
