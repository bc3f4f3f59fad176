// Package costmodel prices the deployed service per month from public list
// prices and a stated load, so docs/cost-model.md is computed, not typed:
// its tables are Markdown() and a test keeps the document equal to it.
//
// Every price carries its source: an S-number of docs/sources.md, read on
// PricesRead. A price no AWS page states is flagged "(2nd)", and its row
// in docs/sources.md names the second-hand source; "(derived)" is a figure
// worked out from what AWS pages state. Every other input is an
// Assumption, named in the document.
//
// FloorOf gives every line its floor, what it costs at the least without
// breaking one of the goal's constraints (Verdicts), so the document's
// Goal section proves from the model, not by hand, how far the goal is.
package costmodel
