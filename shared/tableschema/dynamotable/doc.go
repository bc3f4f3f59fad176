// Package dynamotable creates a table described by tableschema on DynamoDB
// Local, for the local run and the tests: the same keys, indexes, stream
// and TTL attribute as infra/ deploys, from the same definition. In AWS the
// tables come from infra/, never from here.
package dynamotable
