// Package link is the domain of the shortener: what a short link is, the
// rules a request must satisfy before one is created, and the error
// vocabulary every adapter translates into and out of. It knows nothing of
// DynamoDB, Lambda or HTTP; its redirect rules name their own fields (json
// tags, and Conditions for each condition), so the API's JSON and the
// stored item map them without a description of their own.
package link
