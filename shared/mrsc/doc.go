// Package mrsc names the Region sets a multi-Region strongly consistent
// (MRSC) DynamoDB global table may span: every Region of one table, its
// replicas and its witness, comes from one set
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-global-table-design.html,
// "Key facts about MRSC";
// https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-properties-dynamodb-globaltable-globaltablewitness.html).
// infra places the reservation table by them and the local run's Regions
// obey the same rule, so both read this one list. It needs no SDK.
package mrsc
