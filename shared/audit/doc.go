// Package audit is the audit log's domain: an Entry records who changed
// what (before and after, secrets redacted), when and from where, in the
// log of the workspace (today: the owner) the change belongs to.
//
// Writers hold a Recorder. A store whose change is already a DynamoDB
// transaction (a create under an Idempotency-Key, a webhook subscription's
// create or delete) writes the entry inside it, so the change and its
// entry commit together or not at all: the handler puts the entry on the
// context (WithPending) and the store takes it (Take). Where the change is
// one PutItem, the handler records the entry right after it (Flush): a
// transaction there would double the write's price on the create path
// (transactional writes bill 2 units per KB per item), and the entry is
// written at once after a change that succeeded. docs/audit.md says what
// that leaves open.
//
// Entries are written once (the adapters write with attribute_not_exists
// on the key) and never changed or deleted through the product: there is
// no call to do either.
package audit
