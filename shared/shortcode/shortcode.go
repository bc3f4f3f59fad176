package shortcode

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// Alphabet is the base62 digit set, in value order.
const Alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// Length bounds and default for generated codes.
const (
	MinLength     = 6
	MaxLength     = 16
	DefaultLength = 7
	// chunk is the most base62 digits one 64-bit draw covers: 62^10 < 2^64 < 62^11.
	chunk = 10
)

// Generator draws codes of one length from a random source.
type Generator struct {
	length int
	rand   io.Reader
}

// New returns a generator of codes of the given length drawn from src, or
// crypto/rand when src is nil.
func New(length int, src io.Reader) (*Generator, error) {
	if length < MinLength || length > MaxLength {
		return nil, fmt.Errorf("code length %d outside %d-%d", length, MinLength, MaxLength)
	}
	if src == nil {
		src = rand.Reader
	}
	return &Generator{length: length, rand: src}, nil
}

// Length is the number of characters in every code this generator draws.
func (g *Generator) Length() int { return g.length }

// Next draws a fresh code. Lengths above 10 are drawn as independent chunks
// of at most 10 digits, one 64-bit draw each, which keeps the result uniform
// over the whole [0, 62^length) space.
func (g *Generator) Next() (string, error) {
	out := make([]byte, g.length)
	for pos := 0; pos < g.length; pos += chunk {
		n := min(chunk, g.length-pos)
		v, err := g.uniform(pow62[n])
		if err != nil {
			return "", fmt.Errorf("draw code: %w", err)
		}
		for i := pos + n - 1; i >= pos; i-- {
			out[i] = Alphabet[v%62]
			v /= 62
		}
	}
	return string(out), nil
}

// uniform returns a value in [0, n) by rejection: draws above the last
// complete run of n values below 2^64 are thrown away.
func (g *Generator) uniform(n uint64) (uint64, error) {
	maxOK := MaxAccepted(n)
	var buf [8]byte
	for {
		if _, err := io.ReadFull(g.rand, buf[:]); err != nil {
			return 0, err
		}
		if v := binary.BigEndian.Uint64(buf[:]); v <= maxOK {
			return v % n, nil
		}
	}
}

// MaxAccepted is the rejection boundary for a space of n values: the
// largest 64-bit draw kept. Draws above it would favour small remainders.
// 2^64 mod n is computed as (MaxUint64 mod n + 1) mod n, since 2^64 itself
// does not fit.
func MaxAccepted(n uint64) uint64 {
	return math.MaxUint64 - (math.MaxUint64%n+1)%n
}

// Space is the number of distinct codes of the given length, as a float
// because 62^16 does not fit in 64 bits.
func Space(length int) float64 { return math.Pow(62, float64(length)) }

var pow62 = func() (p [chunk + 1]uint64) {
	p[0] = 1
	for i := 1; i <= chunk; i++ {
		p[i] = p[i-1] * 62
	}
	return p
}()

// Valid reports whether s is spelt like a code this generator draws:
// exactly its length, base62 digits only. Codes drawn under another
// length are not: lookups ask IsAnyCode.
func (g *Generator) Valid(s string) bool { return IsCode(s, g.length) }

// IsCode reports whether s is exactly length base62 digits.
func IsCode(s string, length int) bool {
	return len(s) == length && isBase62(s)
}

// IsAnyCode reports whether s is spelt like a code drawn at some length the
// configuration allows (MinLength to MaxLength base62 digits). The length
// can change between deployments while every code drawn before stays in
// the table, so whether a path may be a generated code, and therefore
// case-sensitive, is decided by this and never by the length configured
// today.
func IsAnyCode(s string) bool {
	return len(s) >= MinLength && len(s) <= MaxLength && isBase62(s)
}

func isBase62(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}
