// Package costmodel prices the deployed service per month from public list
// prices and a stated load, so docs/cost-model.md is computed, not typed:
// its tables are Markdown() and a test keeps the document equal to it.
//
// Every price carries its source: an S-number of docs/sources.md (read
// 2026-11-30) or UNCONFIRMED where no AWS page gives the figure and the
// number is a second-hand quote or the AWS pricing page as remembered. Every other input
// is an Assumption, named in the document.
//
// FloorOf gives every line its floor, what it costs at the least without
// breaking one of the goal's constraints (Verdicts), so the document's
// Goal section proves from the model, not by hand, how far the goal is.
package costmodel
