// Package clickpipeline provides the analytics path: the Kinesis stream
// CloudFront's real-time logs write every edge request to, and the clicks
// function's mapping on it.
package clickpipeline
