package emulator

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/kinesis"
)

const (
	// Region is the AWS region the emulator clients use. With -sharedDb,
	// DynamoDB Local ignores it; kinesalite puts it in stream ARNs.
	Region = "us-east-1"

	// AccessKeyID and SecretAccessKey are the dummy static credentials the
	// emulator clients sign requests with. The emulators do not check them.
	AccessKeyID     = "local"
	SecretAccessKey = "local"
)

// AWSConfig returns an AWS configuration for an emulator endpoint such as
// "http://127.0.0.1:8000": region us-east-1, dummy static credentials and
// BaseEndpoint set to endpoint. It loads nothing from the environment or
// from shared config files.
func AWSConfig(endpoint string) aws.Config {
	return aws.Config{
		Region:       Region,
		Credentials:  aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(AccessKeyID, SecretAccessKey, "")),
		BaseEndpoint: aws.String(endpoint),
	}
}

// NewDynamoDBClient returns a DynamoDB client for the emulator at endpoint,
// configured as by AWSConfig. optFns may adjust the client options further.
func NewDynamoDBClient(endpoint string, optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	return dynamodb.NewFromConfig(AWSConfig(endpoint), optFns...)
}

// NewStreamsClient returns a DynamoDB Streams client for the DynamoDB Local
// instance at endpoint (DynamoDB Local serves both APIs on one port),
// configured as by AWSConfig. optFns may adjust the client options further.
func NewStreamsClient(endpoint string, optFns ...func(*dynamodbstreams.Options)) *dynamodbstreams.Client {
	return dynamodbstreams.NewFromConfig(AWSConfig(endpoint), optFns...)
}

// NewKinesisClient returns a Kinesis client for the kinesalite instance at
// endpoint, configured as by AWSConfig. optFns may adjust the client options
// further.
func NewKinesisClient(endpoint string, optFns ...func(*kinesis.Options)) *kinesis.Client {
	return kinesis.NewFromConfig(AWSConfig(endpoint), optFns...)
}
