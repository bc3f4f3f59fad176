// Package password hashes link passwords for storage and checks a
// visitor's attempt against the stored hash. The password itself is never
// kept: only an Argon2id hash (RFC 9106) with a random salt, encoded in one
// PHC-style string that carries its own parameters, so parameters can be
// raised later without breaking the hashes already stored.
package password
