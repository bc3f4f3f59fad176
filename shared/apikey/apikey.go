package apikey

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/big"
	"time"

	"github.com/shortlink-dev/shortener/shared/workspace"
)

// Errors of the keys table and the resolver.
var (
	// ErrUnknown: no owner has this key.
	ErrUnknown = errors.New("unknown api key")
	// ErrRevoked: the key was revoked; its owner and links remain.
	ErrRevoked = errors.New("revoked api key")
	// ErrExists: a key with this hash is in the table already.
	ErrExists = errors.New("api key exists")
	// ErrExpired: the key is past its ExpiresAt.
	ErrExpired = errors.New("expired api key")
)

// Status is a key's state in the table.
type Status string

// The statuses a key has. A revoked key never becomes active again: a new
// key is issued instead.
const (
	StatusActive  Status = "active"
	StatusRevoked Status = "revoked"
)

// Record is one key's row in the keys table.
type Record struct {
	// Hash is Hash(key): the table's key. The key itself is stored nowhere.
	Hash      string
	Owner     string
	Status    Status
	CreatedAt time.Time
	// RevokedAt is set once the key is revoked.
	RevokedAt time.Time
	// Note is the operator's label, such as "ci" or "laptop"; optional.
	Note string
	// Role is the key's role in its owner's workspace (workspace.Roles);
	// "" is admin, what every key written before keys had roles is.
	Role string
	// ExpiresAt is when the key stops working; zero is never.
	ExpiresAt time.Time
}

// ID is how the API names the key: the first 8 hex digits of its hash,
// the same that apigw.KeyActor logs and the audit log names.
func (r Record) ID() string { return r.Hash[:min(IDLength, len(r.Hash))] }

// IDLength is the length of a key's ID.
const IDLength = 8

// Expired reports whether the key has an expiry and now is at or past it.
func (r Record) Expired(now time.Time) bool {
	return !r.ExpiresAt.IsZero() && !now.Before(r.ExpiresAt)
}

// RoleOrAdmin is the key's role: Role, or workspace.RoleAdmin when the
// record carries none.
func (r Record) RoleOrAdmin() string {
	if r.Role == "" {
		return workspace.RoleAdmin
	}
	return r.Role
}

// Hash is how a key is stored and looked up: the hex SHA-256 of its bytes.
// API keys are long random strings, so a fast unsalted hash is enough to
// keep a copy of the table from yielding a usable key.
func Hash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// Hash lengths and key lengths.
const (
	hashLen = 2 * sha256.Size
	// GeneratedLength is the length of a key Generate makes: 40 base62
	// characters, 238 bits.
	GeneratedLength = 40
	// MinLength and MaxLength bound a key given by an operator: API
	// Gateway accepts key values of 20 to 128 characters
	// (https://docs.aws.amazon.com/apigateway/latest/api/API_CreateApiKey.html).
	MinLength = 20
	MaxLength = 128
	// MaxOwnerLength bounds an owner ID.
	MaxOwnerLength = 128
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// Generate draws a new key from r (crypto/rand.Reader when nil):
// GeneratedLength base62 characters, each drawn without modulo bias.
func Generate(r io.Reader) (string, error) {
	if r == nil {
		r = rand.Reader
	}
	out := make([]byte, GeneratedLength)
	max := big.NewInt(int64(len(base62)))
	for i := range out {
		n, err := rand.Int(r, max)
		if err != nil {
			return "", fmt.Errorf("generate api key: %w", err)
		}
		out[i] = base62[n.Int64()]
	}
	return string(out), nil
}

// CheckKey refuses a key an operator gives that API Gateway would refuse
// too: shorter than MinLength, longer than MaxLength, or with anything but
// printable ASCII without spaces (it travels in the x-api-key header).
func CheckKey(key string) error {
	if len(key) < MinLength || len(key) > MaxLength {
		return fmt.Errorf("an api key is %d to %d characters; this one has %d", MinLength, MaxLength, len(key))
	}
	if !printable(key) {
		return errors.New("an api key is printable ASCII without spaces")
	}
	return nil
}

// CheckOwner refuses an owner ID that is empty, too long or not printable
// ASCII without spaces: owners are stored on every link and listed by.
func CheckOwner(owner string) error {
	if owner == "" || len(owner) > MaxOwnerLength || !printable(owner) {
		return fmt.Errorf("an owner is 1 to %d printable ASCII characters without spaces", MaxOwnerLength)
	}
	return nil
}

// CheckHash refuses anything but a hex SHA-256 as Hash writes it.
func CheckHash(h string) error {
	if len(h) != hashLen {
		return fmt.Errorf("a key hash is %d lower-case hex digits", hashLen)
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return fmt.Errorf("a key hash is %d lower-case hex digits", hashLen)
		}
	}
	return nil
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
