// Package workspace is the domain of teams: a workspace owns links (its
// ID is the owner ID every link carries, so a workspace needs no rewrite
// of its links), and its members are users, each with a role. The roles
// are ordered: a viewer reads links and stats, an editor also changes
// links, an admin also manages webhooks, members and keys
// (docs/teams.md). The DynamoDB adapter is shared/dynamo's MemberStore;
// Memory is the in-process one the tests and the local twin share.
package workspace
