package wire

import "errors"

// verifyPassword checks a protected link's password. Until shared/password
// (Argon2id) is merged it refuses to decide, so a protected link answers
// 503 rather than open without its password.
func verifyPassword(encoded, pw string) (bool, error) {
	return false, errors.New("password verification is not wired")
}
