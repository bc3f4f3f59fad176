// Package visitors estimates unique visitors per link and UTC day without
// storing an address or any identifier that lasts: a HyperLogLog sketch
// (Flajolet, Fusy, Gandouet, Meunier, "HyperLogLog: the analysis of a
// near-optimal cardinality estimation algorithm", 2007) over
// HMAC-SHA256(salt of the day, IP + User-Agent).
//
// # Privacy
//
// The salt is 32 random bytes per UTC day, created by the first clicks
// function that needs it and kept in the analytics table with a TTL of 48
// hours (dynamo.Salts); no salt is derived from anything else, so once it
// is gone the registers of its day cannot be linked to an address, even
// by someone who has the table and guesses addresses. A click of a day
// whose salt has expired still counts, but adds no visitor. What is stored
// per click is one register observation: 10 bits of the hash's index and
// a rank of at most 5 bits (Register), a handful of bits of a keyed hash,
// shared by many visitors.
//
// # Precision and error
//
// Precision 10: m = 1,024 registers, a standard error of 1.04/sqrt(m) =
// 3.25 % once a day has more than a few thousand visitors; below about
// 2,500 (2.5 m) the estimate is linear counting of empty registers,
// closer still. Precision 11 (2.3 %) was measured too: its eleventh index
// bit on every observation took the click's write units past the budget
// (docs/cost-model.md, "Breakdowns and visitors"). Registers are stored sparse (the observations, 2 bytes
// each, one per register index) while small, and dense (5-bit registers
// packed, 640 bytes) past 320: most link-days have a handful of clicks,
// so the sparse form keeps the cost of a click to its two bytes. A
// visitor counts once per day: the estimate for a range of days sums
// visitor-days, since each day has its own salt (a person returning
// tomorrow is a new visitor of tomorrow), which is what a union of the
// days' registers estimates too.
//
// Only people count: bot clicks add no observation.
package visitors
