// Package costmodel prices the deployed service per month from public list
// prices and a stated load, so docs/cost-model.md is computed, not typed:
// its tables are Markdown() and a test keeps the document equal to it.
//
// Every price carries its source: an S-number of shared/AWS-FACTS.md (read
// 2026-11-30) or UNCONFIRMED where that file has no figure and the number
// is the author's recollection of the AWS pricing page. Every other input
// is an Assumption, named in the document.
package costmodel
