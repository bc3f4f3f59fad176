package tables

import (
	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/customresources"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// Each table's keys, indexes, stream and TTL attribute come from
// shared/tableschema, the definitions the local run creates its tables
// from (internal/localtable), so the two cannot drift.

// Props configure the tables.
type Props struct {
	// ReplicaRegions get a replica of the links and keys tables; the
	// stack's own region holds the tables themselves.
	ReplicaRegions []string
	// Reservations, when set, adds the reservation table: MRSC, in the
	// stack's region, ReplicaRegions and, with two Regions, Witness.
	Reservations bool
	Witness      string

	// Levers (docs/cost-model.md): table classes, where PITR is on, and
	// the by-owner index's projection ("ALL" overrides the schema's
	// INCLUDE for an installation created with it).
	LinksClass, AnalyticsClass awsdynamodb.TableClass
	PITRLinksPrimary           bool // the links table in its own Region
	PITRLinksReplicas          bool // every other replica
	PITRAnalytics              bool
	OwnerIndexAll              bool
	// PITR of the reservation table: its primary Region's replica, the
	// other replicas (the witness holds no data to back up).
	PITRReservationsPrimary, PITRReservationsReplicas bool
	// AuditRetentionDays, when set, turns on TTL on the audit table; 0
	// keeps every entry.
	AuditRetentionDays int
	// AuditStream gives the audit table a stream (context auditArchive):
	// NEW_IMAGE where it has none, that is without replicas (see
	// newAudit). The audit archive's function reads it in the primary
	// Region.
	AuditStream bool
}

// Tables are the service's tables.
type Tables struct {
	// Construct is the scope of its resources. (A named field, not an
	// embedded one: a Go struct embedding a construct is not a jsii object.)
	Construct   constructs.Construct
	Links       awsdynamodb.TableV2
	Idempotency awsdynamodb.TableV2
	Analytics   awsdynamodb.TableV2
	// Keys maps an API key's SHA-256 to its owner (shared/apikey).
	Keys awsdynamodb.TableV2
	// Members holds the workspaces and their members (shared/workspace).
	Members awsdynamodb.TableV2
	// Reservations is the MRSC reservation table; nil with one Region.
	Reservations awsdynamodb.TableV2
	// LinkTags is the tags table (tableschema.LinkTags), replicated as
	// the links table is: it is written in the same transactions.
	LinkTags awsdynamodb.TableV2
	// Audit is the audit log (shared/audit), a global table in the links
	// table's Regions.
	Audit awsdynamodb.TableV2
}

// New creates the tables in scope's region.
//
// The links table stays in the default multi-region eventual consistency
// mode (MREC), set explicitly so a reader of the template sees the choice:
// strong consistency (MRSC) supports neither TTL nor transactions, and the
// service needs both. MREC evaluates a conditional put against the local
// replica only, so the service writes links in ONE region (the primary):
// every `attribute_not_exists` check runs against the same replica and
// aliases stay unique. The other replicas serve redirects and receive TTL
// deletions for their region's stream consumer.
func New(scope constructs.Construct, id string, p Props) *Tables {
	c := constructs.NewConstruct(scope, jsii.String(id))
	replicas := replicasIn(p.ReplicaRegions, p.PITRLinksReplicas)
	linksDef := tableschema.Links()
	if p.OwnerIndexAll {
		for i := range linksDef.Indexes {
			if linksDef.Indexes[i].Name == tableschema.IndexByOwner {
				linksDef.Indexes[i].Projection, linksDef.Indexes[i].NonKeyAttributes = tableschema.ProjectAll, nil
			}
		}
	}
	links := awsdynamodb.NewTableV2(c, jsii.String("Links"), WithSchema(linksDef, &awsdynamodb.TablePropsV2{
		Billing:                          awsdynamodb.Billing_OnDemand(nil),
		MultiRegionConsistency:           awsdynamodb.MultiRegionConsistency_EVENTUAL,
		TableClass:                       p.LinksClass,
		PointInTimeRecoverySpecification: pitrIf(p.PITRLinksPrimary),
		DeletionProtection:               jsii.Bool(true),
		RemovalPolicy:                    awscdk.RemovalPolicy_RETAIN,
		Replicas:                         &replicas,
	}))
	idem := awsdynamodb.NewTableV2(c, jsii.String("Idempotency"), WithSchema(tableschema.Idempotency(), &awsdynamodb.TablePropsV2{
		Billing: awsdynamodb.Billing_OnDemand(nil),
		// No PITR: a restore would bring back keys that expire within
		// the day anyway.
		PointInTimeRecoverySpecification: pitrIf(false),
		// Entries live 24 hours; losing them costs a retried create its
		// deduplication, never a link.
		RemovalPolicy: awscdk.RemovalPolicy_DESTROY,
	}))
	// Counters expire after their retention, checkpoints after a week
	// without writes (shared/dynamo).
	analytics := awsdynamodb.NewTableV2(c, jsii.String("Analytics"), WithSchema(tableschema.Analytics(), &awsdynamodb.TablePropsV2{
		Billing:                          awsdynamodb.Billing_OnDemand(nil),
		TableClass:                       p.AnalyticsClass,
		PointInTimeRecoverySpecification: pitrIf(p.PITRAnalytics),
		DeletionProtection:               jsii.Bool(true),
		RemovalPolicy:                    awscdk.RemovalPolicy_RETAIN,
	}))
	// API key hash -> owner and status. A global table in the links
	// table's Regions, so an owner is the same wherever the API runs and
	// survives a change of primary Region. The functions read it;
	// operators write it with `shortener keys` (docs/cli.md) and admins
	// through the keys API, which writes the primary Region's replica.
	// Writes are rare and each names one key, so MREC's last-writer-wins
	// is harmless. Its by-owner index lists a workspace's keys.
	// PITR everywhere: a few bytes per key, and nothing else can bring
	// back an owner's keys.
	keyReplicas := replicasIn(p.ReplicaRegions, true)
	keys := awsdynamodb.NewTableV2(c, jsii.String("Keys"), WithSchema(tableschema.Keys(), &awsdynamodb.TablePropsV2{
		Billing:                          awsdynamodb.Billing_OnDemand(nil),
		MultiRegionConsistency:           awsdynamodb.MultiRegionConsistency_EVENTUAL,
		PointInTimeRecoverySpecification: pitrIf(true),
		DeletionProtection:               jsii.Bool(true),
		// Losing it would orphan every owner's links: kept like the links.
		RemovalPolicy: awscdk.RemovalPolicy_RETAIN,
		Replicas:      &keyReplicas,
	}))
	linkTags := awsdynamodb.NewTableV2(c, jsii.String("LinkTags"), WithSchema(tableschema.LinkTags(), &awsdynamodb.TablePropsV2{
		Billing:                          awsdynamodb.Billing_OnDemand(nil),
		MultiRegionConsistency:           awsdynamodb.MultiRegionConsistency_EVENTUAL,
		TableClass:                       p.LinksClass,
		PointInTimeRecoverySpecification: pitrIf(p.PITRLinksPrimary),
		DeletionProtection:               jsii.Bool(true),
		RemovalPolicy:                    awscdk.RemovalPolicy_RETAIN,
		Replicas:                         &replicas,
	}))
	// Workspaces and their members, beside the keys and kept like them:
	// a global table in the links table's Regions (each Region's /v1
	// authorizer reads its own replica), PITR everywhere, retained. The
	// members API writes in the primary Region only, so the last-admin
	// count's conditions are all checked against one replica.
	members := awsdynamodb.NewTableV2(c, jsii.String("Members"), WithSchema(tableschema.Members(), &awsdynamodb.TablePropsV2{
		Billing:                          awsdynamodb.Billing_OnDemand(nil),
		MultiRegionConsistency:           awsdynamodb.MultiRegionConsistency_EVENTUAL,
		PointInTimeRecoverySpecification: pitrIf(true),
		DeletionProtection:               jsii.Bool(true),
		RemovalPolicy:                    awscdk.RemovalPolicy_RETAIN,
		Replicas:                         &keyReplicas,
	}))
	t := &Tables{Construct: c, Links: links, Idempotency: idem, Analytics: analytics, Keys: keys, LinkTags: linkTags, Members: members, Audit: newAudit(c, p)}
	if p.Reservations {
		t.Reservations = newReservations(c, p)
	}
	return t
}

// AuditSchema is the audit table as deployed: tableschema.Audit, without
// its TTL unless a retention is configured.
func AuditSchema(retentionDays int) tableschema.Table {
	def := tableschema.Audit()
	if retentionDays <= 0 {
		def.TTLAttribute = ""
	}
	return def
}

// newAudit is the audit log: one partition per workspace, written in the
// Region of each change (in the transaction of the change where there is
// one, which must be that Region's replica), so a global table in the
// links table's Regions (MREC: each entry is written once, under a key
// of its own, so last-writer-wins never decides anything). Retained, with
// PITR in the primary Region's replica (one is enough to restore from, as
// for the links table). Standard-IA: entries are written once and rarely
// read, and kept for ever by default, so storage is what grows
// (docs/audit.md, "What it costs").
func newAudit(c constructs.Construct, p Props) awsdynamodb.TableV2 {
	replicas := replicasIn(p.ReplicaRegions, false)
	def := AuditSchema(p.AuditRetentionDays)
	if p.AuditStream && len(p.ReplicaRegions) == 0 {
		// With replicas the table has a stream already: CDK gives a
		// global table with replicas NEW_AND_OLD_IMAGES when none is set,
		// in every replica, and DynamoDB cannot change an existing
		// stream's view type in place. Its records carry the new image
		// the archive reads (an INSERT has no old one), so it is kept;
		// only a table without replicas gets the NEW_IMAGE stream. Only
		// the primary's stream is read (an idle one costs nothing), and it
		// holds every Region's entries, replicated.
		def.Stream = tableschema.AuditArchiveStream
	}
	return awsdynamodb.NewTableV2(c, jsii.String("Audit"), WithSchema(def, &awsdynamodb.TablePropsV2{
		Billing:                          awsdynamodb.Billing_OnDemand(nil),
		MultiRegionConsistency:           awsdynamodb.MultiRegionConsistency_EVENTUAL,
		TableClass:                       awsdynamodb.TableClass_STANDARD_INFREQUENT_ACCESS,
		PointInTimeRecoverySpecification: pitrIf(true),
		DeletionProtection:               jsii.Bool(true),
		RemovalPolicy:                    awscdk.RemovalPolicy_RETAIN,
		Replicas:                         &replicas,
	}))
}

// newReservations is the reservation table: which code belongs to whom at
// which version, and which Idempotency-Key names which create, decided
// once for every Region (linkstore.Reserved). Multi-Region strong
// consistency (MRSC): a conditional write or strongly consistent read sees
// the latest version in every Region, and a write is in two Regions before
// it returns. MRSC has no TTL, no local secondary index and no
// transactions (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/V2globaltables_HowItWorks.html),
// and tableschema.Reservations asks for none. Its three Regions are fixed
// at creation: the recorded deployment refuses a change (infra/reservations.go).
func newReservations(c constructs.Construct, p Props) awsdynamodb.TableV2 {
	// PITR where the pitrReservations lever says, by default on the
	// primary's replica only: nothing else brings the table back, but one
	// replica's continuous backups restore all of it, and each replica's
	// are billed on its whole size (at 6 B live codes of ~200 B, about
	// 1.2 TB a replica; docs/cost-model.md). CloudFormation takes the setting per
	// replica (ReplicaSpecification.PointInTimeRecoverySpecification,
	// https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-properties-dynamodb-globaltable-replicaspecification.html),
	// and the MRSC restrictions (no TTL, no LSI, no transactions,
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/V2globaltables_HowItWorks.html)
	// name no backup setting.
	replicas := replicasIn(p.ReplicaRegions, p.PITRReservationsReplicas)
	props := WithSchema(tableschema.Reservations(), &awsdynamodb.TablePropsV2{
		Billing:                          awsdynamodb.Billing_OnDemand(nil),
		MultiRegionConsistency:           awsdynamodb.MultiRegionConsistency_STRONG,
		PointInTimeRecoverySpecification: pitrIf(p.PITRReservationsPrimary),
		DeletionProtection:               jsii.Bool(true),
		// Losing it would free every code in use for reissue.
		RemovalPolicy: awscdk.RemovalPolicy_RETAIN,
		Replicas:      &replicas,
	})
	if p.Witness != "" {
		props.WitnessRegion = jsii.String(p.Witness)
	}
	return awsdynamodb.NewTableV2(c, jsii.String("Reservations"), props)
}

// NewMisses creates a Region's misses table (tableschema.Misses): the
// redirect's budget of unknown codes per viewer address and window. It
// lives in each regional stack, not the data stack, and is no global
// table: a viewer's misses reach one Region's origin, and a replica would
// bill every miss twice. No point-in-time recovery and no deletion
// protection: an item lives two windows (two hours by default), and losing
// the table loses nothing but the counts of the current window.
func NewMisses(scope constructs.Construct, id string) awsdynamodb.TableV2 {
	return awsdynamodb.NewTableV2(scope, jsii.String(id), WithSchema(tableschema.Misses(), &awsdynamodb.TablePropsV2{
		Billing: awsdynamodb.Billing_OnDemand(nil),
		PointInTimeRecoverySpecification: &awsdynamodb.PointInTimeRecoverySpecification{
			PointInTimeRecoveryEnabled: jsii.Bool(false),
		},
		RemovalPolicy: awscdk.RemovalPolicy_DESTROY,
	}))
}

// NewEdgeMarks creates a Region's edge marks table
// (tableschema.EdgeMarks): which codes the Region's redirect answered with
// a long edge life, and until when, read by the management API of every
// Region before it invalidates a change (shared/edgemarks). Regional, like
// the misses table, with no stream, no point-in-time recovery (a mark
// lives a day and an hour) and no deletion protection. Its name is name
// in every Region, so that a management API in another Region reads it by
// an exact ARN with no cross-Region reference (see Name): a fixed name
// also makes CloudFormation refuse any change that would replace the
// table, which would lose the marks of answers the edge still holds. A
// table that is missing fails the API's reads, which then invalidate.
func NewEdgeMarks(scope constructs.Construct, id, name string) awsdynamodb.TableV2 {
	return awsdynamodb.NewTableV2(scope, jsii.String(id), WithSchema(tableschema.EdgeMarks(), &awsdynamodb.TablePropsV2{
		TableName: jsii.String(name),
		Billing:   awsdynamodb.Billing_OnDemand(nil),
		PointInTimeRecoverySpecification: &awsdynamodb.PointInTimeRecoverySpecification{
			PointInTimeRecoveryEnabled: jsii.Bool(false),
		},
		RemovalPolicy: awscdk.RemovalPolicy_DESTROY,
	}))
}

// WithSchema sets p's keys, indexes, stream and TTL attribute from def.
func WithSchema(def tableschema.Table, p *awsdynamodb.TablePropsV2) *awsdynamodb.TablePropsV2 {
	p.PartitionKey = attribute(def.PartitionKey)
	p.SortKey = attribute(def.SortKey)
	if def.Stream != "" {
		p.DynamoStream = awsdynamodb.StreamViewType(def.Stream)
	}
	if def.TTLAttribute != "" {
		p.TimeToLiveAttribute = jsii.String(def.TTLAttribute)
	}
	if len(def.Indexes) > 0 {
		gsis := make([]*awsdynamodb.GlobalSecondaryIndexPropsV2, 0, len(def.Indexes))
		for _, ix := range def.Indexes {
			g := &awsdynamodb.GlobalSecondaryIndexPropsV2{
				IndexName:      jsii.String(ix.Name),
				PartitionKey:   attribute(ix.PartitionKey),
				SortKey:        attribute(ix.SortKey),
				ProjectionType: awsdynamodb.ProjectionType(ix.Projection),
			}
			if len(ix.NonKeyAttributes) > 0 {
				g.NonKeyAttributes = jsii.Strings(ix.NonKeyAttributes...)
			}
			gsis = append(gsis, g)
		}
		p.GlobalSecondaryIndexes = &gsis
	}
	return p
}

// attribute is a key attribute as CDK takes it; nil for the zero one.
func attribute(a tableschema.Attribute) *awsdynamodb.Attribute {
	if a.Name == "" {
		return nil
	}
	types := map[tableschema.Type]awsdynamodb.AttributeType{
		tableschema.String: awsdynamodb.AttributeType_STRING,
		tableschema.Number: awsdynamodb.AttributeType_NUMBER,
	}
	t, ok := types[a.Type]
	if !ok {
		panic("tables: attribute " + a.Name + " has no key type " + string(a.Type))
	}
	return &awsdynamodb.Attribute{Name: jsii.String(a.Name), Type: t}
}

// replicasIn are a global table's replicas in regions, with deletion
// protection and, when withPITR, point-in-time recovery.
func replicasIn(regions []string, withPITR bool) []*awsdynamodb.ReplicaTableProps {
	replicas := make([]*awsdynamodb.ReplicaTableProps, 0, len(regions))
	for _, r := range regions {
		replicas = append(replicas, &awsdynamodb.ReplicaTableProps{
			Region:                           jsii.String(r),
			PointInTimeRecoverySpecification: pitrIf(withPITR),
			DeletionProtection:               jsii.Bool(true),
		})
	}
	return replicas
}

func pitrIf(on bool) *awsdynamodb.PointInTimeRecoverySpecification {
	return &awsdynamodb.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: jsii.Bool(on)}
}

// Name is t's name from its CloudFormation resource rather than the
// construct. A stack in another Region reads it as a weak cross-stack
// reference; the construct's own name, read across Regions, would make
// CDK give the table a generated physical name, and CloudFormation
// replaces a table whose name changes (an empty new one, the old one
// retained and orphaned).
func Name(t awsdynamodb.TableV2) *string {
	return t.Node().DefaultChild().(awsdynamodb.CfnGlobalTable).Ref()
}

// In is a table (or a global table's replica) in region as a stack uses
// it, possibly from another region: its exact ARN, so a grant names that
// table only, with no stream and no index.
func In(scope constructs.Construct, id string, tableName *string, region string) awsdynamodb.ITableV2 {
	return LinksIn(scope, id, tableName, region, nil, false)
}

// KeysIn is the keys table as a stack in one region reads it: the replica
// in that region, with its exact ARN, so a grant names that replica only.
func KeysIn(scope constructs.Construct, id string, tableName *string, region string) awsdynamodb.ITableV2 {
	return LinksIn(scope, id, tableName, region, nil, false)
}

// LinksIn is the links table as a stack in one region uses it: the replica
// in that region, with exact ARNs, so grants name that replica and nothing
// wider (TableV2's own grants cover every replica and every index).
//
// streamARN is the replica's stream. The table's own region knows it from
// the template; a replica's stream ARN carries a creation timestamp no
// template attribute returns, so with streamARN nil and withStream set, a
// DescribeTable call at deploy time reads it in region.
func LinksIn(scope constructs.Construct, id string, tableName *string, region string, streamARN *string, withStream bool) awsdynamodb.ITableV2 {
	c := constructs.NewConstruct(scope, jsii.String(id))
	stack := awscdk.Stack_Of(scope)
	arn := stack.FormatArn(&awscdk.ArnComponents{
		Service:      jsii.String("dynamodb"),
		Region:       jsii.String(region),
		Resource:     jsii.String("table"),
		ResourceName: tableName,
	})
	if withStream && streamARN == nil {
		if *stack.Region() != region {
			panic("tables.LinksIn: a replica's stream can only be described from a stack in its own region")
		}
		call := &customresources.AwsSdkCall{
			Service:            jsii.String("DynamoDB"),
			Action:             jsii.String("describeTable"),
			Parameters:         map[string]any{"TableName": tableName},
			PhysicalResourceId: customresources.PhysicalResourceId_FromResponse(jsii.String("Table.LatestStreamArn")),
			OutputPaths:        jsii.Strings("Table.LatestStreamArn"),
		}
		describe := customresources.NewAwsCustomResource(c, jsii.String("DescribeReplica"), &customresources.AwsCustomResourceProps{
			OnCreate:            call,
			OnUpdate:            call,
			Policy:              customresources.AwsCustomResourcePolicy_FromSdkCalls(&customresources.SdkCallsPolicyOptions{Resources: jsii.Strings(*arn)}),
			InstallLatestAwsSdk: jsii.Bool(false),
		})
		streamARN = describe.GetResponseField(jsii.String("Table.LatestStreamArn"))
	}
	if !withStream {
		streamARN = nil
	}
	return awsdynamodb.TableV2_FromTableAttributes(c, jsii.String("Table"), &awsdynamodb.TableAttributesV2{
		TableArn:              arn,
		TableStreamArn:        streamARN,
		GrantIndexPermissions: jsii.Bool(false),
	})
}
