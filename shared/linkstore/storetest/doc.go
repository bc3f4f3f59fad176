// Package storetest is the one behaviour suite every linkstore.Store must
// pass: the in-memory store in unit tests and the DynamoDB adapter against
// DynamoDB Local. A behaviour the suite does not pin down is one the two
// may silently disagree on, so new store methods come with suite cases.
//
// Run is the single-Region contract (RunLifecycle its changes, listing,
// tombstones and reclamation); RunRegions is what the reservation table
// guarantees across Regions. Each runs its cases as named subtests, in
// groups of one function each; Clock is the settable time a test shares
// with the store under test.
package storetest
