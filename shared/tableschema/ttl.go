package tableschema

// How DynamoDB marks a deletion made by its TTL process in a stream record:
// eventName REMOVE, userIdentity type "Service" and principalId
// "dynamodb.amazonaws.com"
// (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/time-to-live-ttl-streams.html).
const (
	EventRemove     = "REMOVE"
	TTLIdentityType = "Service"
	TTLPrincipal    = "dynamodb.amazonaws.com"
)

// TTLDeletionPattern is the event source mapping's filter pattern that
// lets only TTL deletions of the links table invoke ttlstream, so INSERT,
// MODIFY and user deletions cost no invocation
// (https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html).
// Replicated TTL deletions in other Regions carry no userIdentity and do
// not match, so each expiry is handled once, where it happened. Keys are
// in the order CloudFormation's template renders them.
const TTLDeletionPattern = `{"eventName":["` + EventRemove + `"],"userIdentity":{"principalId":["` + TTLPrincipal + `"],"type":["` + TTLIdentityType + `"]}}`

// IsTTLDeletion reports whether a stream record with this eventName and
// userIdentity (type, principalId; "" when absent) is a TTL deletion: what
// TTLDeletionPattern selects.
func IsTTLDeletion(eventName, identityType, principalID string) bool {
	return eventName == EventRemove && identityType == TTLIdentityType && principalID == TTLPrincipal
}
