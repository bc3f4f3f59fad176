// Package webhook is the domain of signed webhooks: subscriptions and
// their validation, the events a subscription can ask for, the Standard
// Webhooks signature (https://www.standardwebhooks.com/, spec at
// https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md),
// the retry schedule, and the SSRF guard that keeps deliveries off
// non-public addresses. It knows nothing of DynamoDB, SQS or Lambda: the
// adapters live in subpackages named after their dependency.
package webhook
