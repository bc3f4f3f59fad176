package edge

import (
	"fmt"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudfront"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/customresources"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/shortlink-dev/shortener/shared/edgeinfo"
)

// PublishProps configure Publish.
type PublishProps struct {
	Distribution awscloudfront.IDistribution
	// ParameterName is the SSM parameter written in each of Regions.
	ParameterName string
	Regions       []string
	// Invalidators are the names of the roles that may invalidate the
	// distribution (the manage function's in every Region). Names
	// rather than roles: a role of another Region's stack has no name CDK
	// can refer to across environments, its CloudFormation Ref does.
	Invalidators []*string
	// VersionStore is the key value store of link versions (VersionKeys);
	// with it the parameter names it, and the invalidators may write it
	// besides invalidating the distribution (their fallback when a put
	// fails).
	VersionStore awscloudfront.IKeyValueStore
	// Sweepers are the names of the roles that may sweep old versions
	// from VersionStore (reclaim's): list its keys, read one, and delete
	// them under its ETag. Without a VersionStore they get nothing.
	Sweepers []*string
}

// Published is what Publish made.
type Published struct {
	// Construct is the scope of its resources.
	Construct constructs.Construct
	// Writers are the custom resources writing the parameter, by Region.
	Writers map[string]customresources.AwsCustomResource
	// Invalidation is the policy that lets the invalidators invalidate
	// the distribution, and nothing else; with a VersionStore, read its
	// ETag and put and get its keys too.
	Invalidation awsiam.Policy
	// Sweep is the policy that lets the sweepers list, read and delete the
	// version store's keys, on that store alone; nil without a
	// VersionStore or sweepers.
	Sweep awsiam.Policy
}

// Publish tells the functions created before the distribution what they
// need of it: it writes the distribution's ID and domain into the SSM
// parameter ParameterName in every Region (shared/edgeinfo reads it), and
// lets the invalidators invalidate this distribution and, with a version
// store, the sweepers sweep it. So one `cdk deploy`
// gives a working system, with no value carried from one pass to the next.
//
// The edge stack owns the parameters: each is written by an SDK call to
// its Region (PutParameter on create and update, DeleteParameter when the
// stack goes), and the custom resource's role may put and delete exactly
// those parameters.
func Publish(scope constructs.Construct, id string, p PublishProps) *Published {
	c := constructs.NewConstruct(scope, jsii.String(id))
	stack := awscdk.Stack_Of(c)
	fields := map[string]any{
		edgeinfo.KeyDistributionID: p.Distribution.DistributionId(),
		edgeinfo.KeyDomainName:     p.Distribution.DistributionDomainName(),
	}
	if p.VersionStore != nil {
		fields[edgeinfo.KeyVersionStore] = p.VersionStore.KeyValueStoreArn()
	}
	value := stack.ToJsonString(fields, nil)
	out := &Published{Construct: c, Writers: map[string]customresources.AwsCustomResource{}}
	for _, region := range p.Regions {
		arn := stack.FormatArn(&awscdk.ArnComponents{
			Service: jsii.String("ssm"), Region: jsii.String(region), Resource: jsii.String("parameter"),
			ResourceName: jsii.String(strings.TrimPrefix(p.ParameterName, "/")),
		})
		put := &customresources.AwsSdkCall{
			Service: jsii.String("SSM"),
			Action:  jsii.String("putParameter"),
			Region:  jsii.String(region),
			Parameters: map[string]any{
				"Name":        p.ParameterName,
				"Type":        "String",
				"Overwrite":   true,
				"Value":       value,
				"Description": "The CloudFront distribution the functions invalidate and, without a custom domain, serve short links on (written by the edge stack)",
			},
			PhysicalResourceId: customresources.PhysicalResourceId_Of(jsii.String(p.ParameterName + "@" + region)),
		}
		del := &customresources.AwsSdkCall{
			Service:                  jsii.String("SSM"),
			Action:                   jsii.String("deleteParameter"),
			Region:                   jsii.String(region),
			Parameters:               map[string]any{"Name": p.ParameterName},
			IgnoreErrorCodesMatching: jsii.String("ParameterNotFound"),
		}
		out.Writers[region] = customresources.NewAwsCustomResource(c, jsii.String("Parameter-"+region), &customresources.AwsCustomResourceProps{
			OnCreate: put,
			OnUpdate: put,
			OnDelete: del,
			Policy: customresources.AwsCustomResourcePolicy_FromStatements(&[]awsiam.PolicyStatement{
				awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
					Actions:   jsii.Strings("ssm:PutParameter", "ssm:DeleteParameter"),
					Resources: jsii.Strings(*arn),
				}),
			}),
			InstallLatestAwsSdk: jsii.Bool(false),
		})
	}
	if len(p.Invalidators) > 0 {
		roles := make([]awsiam.IRole, len(p.Invalidators))
		for i, name := range p.Invalidators {
			roles[i] = awsiam.Role_FromRoleName(c, jsii.String(fmt.Sprintf("Invalidator%d", i)), name,
				&awsiam.FromRoleNameOptions{Mutable: jsii.Bool(true)})
		}
		grants := []awsiam.PolicyStatement{awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Actions: jsii.Strings("cloudfront:CreateInvalidation"),
			Resources: jsii.Strings(*stack.FormatArn(&awscdk.ArnComponents{
				Service: jsii.String("cloudfront"), Region: jsii.String(""),
				Resource: jsii.String("distribution"), ResourceName: p.Distribution.DistributionId(),
			})),
		})}
		if p.VersionStore != nil {
			// A change puts new versions (shared/edgeversion): the ETag,
			// the current version and the put, on this store alone
			// (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoncloudfrontkeyvaluestore.html);
			// the invalidation stays for a put that fails.
			grants = append(grants, awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
				Actions: jsii.Strings("cloudfront-keyvaluestore:DescribeKeyValueStore", "cloudfront-keyvaluestore:GetKey",
					"cloudfront-keyvaluestore:PutKey"),
				Resources: jsii.Strings(*p.VersionStore.KeyValueStoreArn()),
			}))
		}
		out.Invalidation = awsiam.NewPolicy(c, jsii.String("Invalidation"), &awsiam.PolicyProps{
			Roles:      &roles,
			Statements: &grants,
		})
	}
	if p.VersionStore != nil && len(p.Sweepers) > 0 {
		roles := make([]awsiam.IRole, len(p.Sweepers))
		for i, name := range p.Sweepers {
			roles[i] = awsiam.Role_FromRoleName(c, jsii.String(fmt.Sprintf("Sweeper%d", i)), name,
				&awsiam.FromRoleNameOptions{Mutable: jsii.Bool(true)})
		}
		// The sweep (shared/edgeversion Sweeper): the ETag, the listing,
		// a key read again after a conflict, and the batched deletes, on
		// this store alone
		// (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoncloudfrontkeyvaluestore.html).
		out.Sweep = awsiam.NewPolicy(c, jsii.String("Sweep"), &awsiam.PolicyProps{
			Roles: &roles,
			Statements: &[]awsiam.PolicyStatement{awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
				Actions: jsii.Strings("cloudfront-keyvaluestore:DescribeKeyValueStore", "cloudfront-keyvaluestore:ListKeys",
					"cloudfront-keyvaluestore:GetKey", "cloudfront-keyvaluestore:UpdateKeys"),
				Resources: jsii.Strings(*p.VersionStore.KeyValueStoreArn()),
			})},
		})
	}
	return out
}
