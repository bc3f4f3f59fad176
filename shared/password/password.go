package password

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Params are Argon2id's cost parameters.
type Params struct {
	// Memory is in KiB.
	Memory uint32
	// Time is the number of passes over the memory.
	Time uint32
	// Threads is the parallelism (lanes).
	Threads uint8
	// SaltLen and KeyLen are in bytes.
	SaltLen uint32
	KeyLen  uint32
}

// Default follows OWASP's Password Storage Cheat Sheet, which lists
// "m=19456 (19 MiB), t=2, p=1" as a minimum Argon2id configuration
// (https://cheatsheetseries.owasp.org/cheatsheets/Password_Storage_Cheat_Sheet.html#argon2id).
// It suits a Lambda: 19 MiB fits any memory size, one lane uses the one
// vCPU a small function has, and a hash costs tens of milliseconds there,
// paid once per create and once per password attempt (attempts are rate
// limited by the redirect). The 16-byte salt and 32-byte key are RFC 9106's
// recommendations (https://www.rfc-editor.org/rfc/rfc9106#section-4).
var Default = Params{Memory: 19 * 1024, Time: 2, Threads: 1, SaltLen: 16, KeyLen: 32}

// Limits Verify accepts from a stored string, so a corrupted or hostile
// item cannot make one attempt allocate gigabytes or spin for minutes.
const (
	maxMemory  = 256 * 1024 // KiB
	maxTime    = 16
	maxKeyLen  = 64
	maxSaltLen = 64
)

// ErrMalformed means an encoded hash is not one this package wrote.
var ErrMalformed = errors.New("password: malformed hash")

var b64 = base64.RawStdEncoding

// Hash returns pw hashed with Default and a fresh random salt, encoded as
// $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash> (unpadded standard base64,
// the PHC string format).
func Hash(pw string) (string, error) { return Default.Hash(pw) }

// Hash returns pw hashed with p and a fresh random salt; see Hash.
func (p Params) Hash(pw string) (string, error) {
	salt := make([]byte, p.SaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("password salt: %w", err)
	}
	key := argon2.IDKey([]byte(pw), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.Memory, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// Verify reports whether pw is the password encoded was made from,
// comparing the hashes in constant time. The parameters come from encoded
// itself. A string this package could not have written is ErrMalformed.
func Verify(encoded, pw string) (bool, error) {
	p, salt, key, err := decode(encoded)
	if err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(pw), salt, p.Time, p.Memory, p.Threads, p.KeyLen)
	return subtle.ConstantTimeCompare(got, key) == 1, nil
}

// Decode returns the parameters encoded was made with, so a caller can
// tell a hash made with weaker parameters than Default and rehash it.
func Decode(encoded string) (Params, error) {
	p, _, _, err := decode(encoded)
	return p, err
}

func decode(encoded string) (p Params, salt, key []byte, err error) {
	parts := strings.Split(encoded, "$")
	// "", "argon2id", "v=19", "m=..,t=..,p=..", salt, hash
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return p, nil, nil, ErrMalformed
	}
	var m, t, threads uint64
	for i, kv := range strings.Split(parts[3], ",") {
		name, val, ok := strings.Cut(kv, "=")
		want := [...]string{"m", "t", "p"}
		if !ok || i >= len(want) || name != want[i] {
			return p, nil, nil, ErrMalformed
		}
		n, err := strconv.ParseUint(val, 10, 32)
		if err != nil {
			return p, nil, nil, ErrMalformed
		}
		switch name {
		case "m":
			m = n
		case "t":
			t = n
		case "p":
			threads = n
		}
	}
	if salt, err = b64.Strict().DecodeString(parts[4]); err != nil {
		return p, nil, nil, ErrMalformed
	}
	if key, err = b64.Strict().DecodeString(parts[5]); err != nil {
		return p, nil, nil, ErrMalformed
	}
	// Argon2 asks for at least 8 KiB per lane and a salt of 8 bytes
	// (RFC 9106, section 3.1).
	if t < 1 || t > maxTime || threads < 1 || threads > 255 || m < 8*threads || m > maxMemory ||
		len(salt) < 8 || len(salt) > maxSaltLen || len(key) < 16 || len(key) > maxKeyLen {
		return p, nil, nil, ErrMalformed
	}
	p = Params{Memory: uint32(m), Time: uint32(t), Threads: uint8(threads), SaltLen: uint32(len(salt)), KeyLen: uint32(len(key))}
	return p, salt, key, nil
}
