// Package missbudget is the redirect's defence against code enumeration
// that pays only for misses: every client (the viewer address CloudFront
// forwards, an IPv6 address cut to its /64) may ask for Budget unknown
// codes per Window; past that, the redirect answers 429 until the window
// ends, to unknown codes and to live ones alike, so a scanner learns
// nothing more. A request that finds a link never touches the counter, so
// legitimate clicks cost nothing; a miss costs one atomic UpdateItem ADD on
// a small item (dynamo.MissCounter), and a client known to be over its budget
// costs nothing more in that process.
//
// docs/codes.md ("Enumeration: the miss budget") has the numbers behind
// the default budget, and docs/cost-model.md the price.
package missbudget
