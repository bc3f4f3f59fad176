// Package localtable creates the service's tables on DynamoDB Local, for
// the local run, the measurements and the tests: the same keys, indexes,
// stream and TTL attribute as infra/ deploys, from the same tableschema
// definition. In AWS the tables come from infra/, never from here.
//
// DynamoDB Local has one Region, so one reservation table
// (tableschema.Reservations) shared by every local "Region" stands for the
// MRSC table: every conditional write is checked against the one copy, as
// MRSC checks it against the latest version in every Region.
package localtable
