// Package webhooks is the AWS side of signed webhooks: the subscriptions
// table, the delivery queue with its dead-letter queue, the delivery
// function's SQS mapping and the links stream's webhook consumer. The
// functions' permissions are granted by the stack, which knows who calls
// what.
package webhooks
