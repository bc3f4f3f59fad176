// Package linkstore defines how links are kept: the Store the functions
// call, the conflict error a taken key produces, and Memory, an in-process
// Store with the same behaviour as the DynamoDB adapter in
// shared/dynamo. Both pass the one behaviour suite in
// linkstore/storetest.
package linkstore
