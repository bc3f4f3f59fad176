// Package cfnguard checks synthesized CloudFormation templates with AWS
// CloudFormation Guard (cfn-guard) and AWS Control Tower's proactive
// control rules, as the npm package @cdklabs/cdk-validator-cfnguard ships
// them, and applies the suppressions written in each resource's metadata.
//
// A resource opts out of a rule with the convention of the AWS Guard Rules
// Registry (https://github.com/aws-cloudformation/aws-guard-rules-registry):
//
//	Metadata:
//	  guard:
//	    SuppressedRules: [rule_name, ...]
//
// The Control Tower rules do not read that key themselves
// (https://github.com/cdklabs/cdk-validator-cfnguard/issues/202), so Check
// runs cfn-guard, takes the resources each failed rule names, and drops
// the findings on resources that suppress that rule.
package cfnguard
