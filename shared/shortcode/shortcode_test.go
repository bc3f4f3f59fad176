package shortcode_test

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/shortcode"
)

// draws is a random source that yields the given uint64s big-endian, in
// order, then fails with io.EOF. It counts the bytes handed out.
type draws struct {
	buf  []byte
	read int
}

func newDraws(vs ...uint64) *draws {
	d := &draws{}
	for _, v := range vs {
		d.buf = binary.BigEndian.AppendUint64(d.buf, v)
	}
	return d
}

func (d *draws) Read(p []byte) (int, error) {
	if len(d.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, d.buf)
	d.buf = d.buf[n:]
	d.read += n
	return n, nil
}

// errReader fails every read.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

func pow62(k int) uint64 {
	p := uint64(1)
	for range k {
		p *= 62
	}
	return p
}

func TestMaxAcceptedMatchesBigArithmetic(t *testing.T) {
	two64 := new(big.Int).Lsh(big.NewInt(1), 64)
	for k := 1; k <= 10; k++ {
		n := pow62(k)
		t.Run(fmt.Sprintf("62^%d", k), func(t *testing.T) {
			bn := new(big.Int).SetUint64(n)
			// 2^64 - (2^64 mod n) - 1
			want := new(big.Int).Sub(two64, new(big.Int).Mod(two64, bn))
			want.Sub(want, big.NewInt(1))
			require.True(t, want.IsUint64())

			got := shortcode.MaxAccepted(n)

			assert.Equal(t, want.Uint64(), got)
			// The accepted range [0, got] holds a whole number of runs of n.
			assert.Equal(t, uint64(0), (got%n+1)%n, "accepted range is not a multiple of n")
		})
	}
}

func TestMaxAcceptedNonPowers(t *testing.T) {
	// n a power of two divides 2^64, so nothing is rejected; n = 3 rejects one value.
	tests := []struct {
		name string
		n    uint64
		want uint64
	}{
		{name: "one", n: 1, want: math.MaxUint64},
		{name: "power of two", n: 1 << 10, want: math.MaxUint64},
		{name: "three", n: 3, want: math.MaxUint64 - 1}, // 2^64 mod 3 == 1
		{name: "max uint64", n: math.MaxUint64, want: math.MaxUint64 - 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, shortcode.MaxAccepted(tt.n))
		})
	}
}

func TestNextRejectionBoundary(t *testing.T) {
	n7 := pow62(7)
	maxOK := shortcode.MaxAccepted(n7)
	tests := []struct {
		name      string
		draws     []uint64
		want      string
		wantBytes int // bytes consumed from the source
	}{
		{name: "zero", draws: []uint64{0}, want: "0000000", wantBytes: 8},
		{name: "one", draws: []uint64{1}, want: "0000001", wantBytes: 8},
		{name: "sixty-two", draws: []uint64{62}, want: "0000010", wantBytes: 8},
		{name: "largest code", draws: []uint64{n7 - 1}, want: "zzzzzzz", wantBytes: 8},
		{name: "wraps at n", draws: []uint64{n7}, want: "0000000", wantBytes: 8},
		{name: "boundary accepted", draws: []uint64{maxOK}, want: "zzzzzzz", wantBytes: 8},
		{name: "just over boundary rejected", draws: []uint64{maxOK + 1, 5}, want: "0000005", wantBytes: 16},
		{name: "max uint64 rejected", draws: []uint64{math.MaxUint64, 61}, want: "000000z", wantBytes: 16},
		{name: "several rejections", draws: []uint64{maxOK + 1, math.MaxUint64, maxOK + 2, 10}, want: "000000A", wantBytes: 32},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := newDraws(tt.draws...)
			g, err := shortcode.New(7, src)
			require.NoError(t, err)

			got, err := g.Next()

			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantBytes, src.read)
		})
	}
}

func TestNextLengths(t *testing.T) {
	for length := shortcode.MinLength; length <= shortcode.MaxLength; length++ {
		t.Run(fmt.Sprintf("length %d", length), func(t *testing.T) {
			chunks := (length + 9) / 10
			// Every draw is the chunk's largest value, so each digit is 'z'.
			var vs []uint64
			for pos := 0; pos < length; pos += 10 {
				vs = append(vs, pow62(min(10, length-pos))-1)
			}
			require.Len(t, vs, chunks)
			src := newDraws(vs...)
			g, err := shortcode.New(length, src)
			require.NoError(t, err)
			require.Equal(t, length, g.Length())

			got, err := g.Next()

			require.NoError(t, err)
			assert.Equal(t, strings.Repeat("z", length), got)
			assert.Equal(t, 8*chunks, src.read, "one 64-bit draw per chunk of up to 10 digits")
			assert.True(t, g.Valid(got))
		})
	}
}

func TestNextChunksAreIndependent(t *testing.T) {
	// A 16-char code is a 10-digit chunk then a 6-digit chunk, each from its own draw.
	tests := []struct {
		name   string
		length int
		draws  []uint64
		want   string
	}{
		{name: "16: first chunk 1, second 2", length: 16, draws: []uint64{1, 2}, want: "0000000001" + "000002"},
		{name: "16: first chunk max, second 0", length: 16, draws: []uint64{pow62(10) - 1, 0}, want: "zzzzzzzzzz" + "000000"},
		{name: "11: chunk of 10 then 1", length: 11, draws: []uint64{62, 35}, want: "0000000010" + "Z"},
		{name: "16: second chunk rejects once", length: 16, draws: []uint64{0, math.MaxUint64, 61}, want: "0000000000" + "00000z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := shortcode.New(tt.length, newDraws(tt.draws...))
			require.NoError(t, err)

			got, err := g.Next()

			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestNewLength(t *testing.T) {
	tests := []struct {
		name    string
		length  int
		wantErr bool
	}{
		{name: "negative", length: -1, wantErr: true},
		{name: "zero", length: 0, wantErr: true},
		{name: "five", length: 5, wantErr: true},
		{name: "six", length: 6},
		{name: "default", length: shortcode.DefaultLength},
		{name: "sixteen", length: 16},
		{name: "seventeen", length: 17, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := shortcode.New(tt.length, nil)
			if tt.wantErr {
				require.Error(t, err)
				assert.Nil(t, g)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.length, g.Length())
		})
	}
}

func TestNextReaderError(t *testing.T) {
	boom := errors.New("entropy pool on fire")
	tests := []struct {
		name    string
		length  int
		src     io.Reader
		wantErr error
	}{
		{name: "error on first read", length: 7, src: errReader{err: boom}, wantErr: boom},
		{name: "empty source", length: 7, src: newDraws(), wantErr: io.EOF},
		{name: "short read", length: 7, src: &draws{buf: []byte{1, 2, 3}}, wantErr: io.ErrUnexpectedEOF},
		{name: "runs out while rejecting", length: 7, src: newDraws(math.MaxUint64), wantErr: io.EOF},
		{name: "runs out on second chunk", length: 12, src: newDraws(0), wantErr: io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := shortcode.New(tt.length, tt.src)
			require.NoError(t, err)

			got, err := g.Next()

			require.Error(t, err)
			assert.ErrorIs(t, err, tt.wantErr)
			assert.Empty(t, got)
		})
	}
}

func TestNextCryptoRandDistinct(t *testing.T) {
	// 10,000 draws from 62^7 ≈ 3.5e12 codes collide with probability ≈ 1.4e-5.
	g, err := shortcode.New(7, rand.Reader)
	require.NoError(t, err)
	seen := make(map[string]struct{}, 10_000)
	for range 10_000 {
		c, err := g.Next()
		require.NoError(t, err)
		require.Len(t, c, 7)
		require.True(t, shortcode.IsCode(c, 7), "not a code: %q", c)
		seen[c] = struct{}{}
	}
	assert.Len(t, seen, 10_000)
}

func TestNilSourceUsesCryptoRand(t *testing.T) {
	g, err := shortcode.New(8, nil)
	require.NoError(t, err)
	c, err := g.Next()
	require.NoError(t, err)
	assert.True(t, shortcode.IsCode(c, 8), "not a code: %q", c)
}

func TestIsCode(t *testing.T) {
	tests := []struct {
		name   string
		s      string
		length int
		want   bool
	}{
		{name: "digits", s: "0123456", length: 7, want: true},
		{name: "mixed case", s: "aZ9bY8c", length: 7, want: true},
		{name: "whole alphabet", s: shortcode.Alphabet, length: 62, want: true},
		{name: "too short", s: "abc123", length: 7},
		{name: "too long", s: "abc12345", length: 7},
		{name: "empty", s: "", length: 7},
		{name: "empty zero length", s: "", length: 0, want: true},
		{name: "dash", s: "abc-123", length: 7},
		{name: "underscore", s: "abc_123", length: 7},
		{name: "dot", s: "abc.123", length: 7},
		{name: "slash", s: "abc/123", length: 7},
		{name: "space", s: "abc 123", length: 7},
		{name: "non-ascii letter", s: "abcdéf", length: 7}, // 7 bytes
		{name: "byte after z", s: "abcdef{", length: 7},
		{name: "byte before 0", s: "/abcdef", length: 7},
		{name: "byte after 9", s: ":abcdef", length: 7},
		{name: "byte before A", s: "@abcdef", length: 7},
		{name: "byte after Z", s: "[abcdef", length: 7},
		{name: "byte before a", s: "`abcdef", length: 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, shortcode.IsCode(tt.s, tt.length))
		})
	}
}

// TestIsAnyCode: every length the configuration allows, and only those,
// since a code drawn under any of them may still be live after the length
// changes.
func TestIsAnyCode(t *testing.T) {
	tests := []struct {
		name string
		s    string
		want bool
	}{
		{name: "shortest allowed", s: "aB3dE5", want: true},
		{name: "default", s: "aB3dE5g", want: true},
		{name: "eight", s: "aB3dE5gH", want: true},
		{name: "twelve", s: "aB3dE5gH9jK1", want: true},
		{name: "longest allowed", s: "aB3dE5gH9jK1mN0p", want: true},
		{name: "lower case", s: "promo2024", want: true},
		{name: "one too short", s: "aB3dE"},
		{name: "one too long", s: "aB3dE5gH9jK1mN0pQ"},
		{name: "dash", s: "summer-sale"},
		{name: "underscore", s: "aB3_E5g"},
		{name: "non-ascii", s: "aB3dé5g"},
		{name: "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, shortcode.IsAnyCode(tt.s))
		})
	}
	for n := shortcode.MinLength; n <= shortcode.MaxLength; n++ {
		g, err := shortcode.New(n, nil)
		require.NoError(t, err)
		c, err := g.Next()
		require.NoError(t, err)
		assert.True(t, shortcode.IsAnyCode(c), "a code drawn at length %d: %q", n, c)
	}
}

func TestAlphabet(t *testing.T) {
	require.Len(t, shortcode.Alphabet, 62)
	seen := map[rune]bool{}
	for _, c := range shortcode.Alphabet {
		assert.False(t, seen[c], "duplicate %q", c)
		seen[c] = true
	}
	assert.True(t, shortcode.IsCode(shortcode.Alphabet, 62))
}

func TestSpace(t *testing.T) {
	tests := []struct {
		length int
		want   float64
	}{
		{length: 1, want: 62},
		{length: 7, want: float64(pow62(7))},
		{length: 10, want: float64(pow62(10))},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("length %d", tt.length), func(t *testing.T) {
			assert.Equal(t, tt.want, shortcode.Space(tt.length))
		})
	}
}
