package password_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shortlink-dev/shortener/shared/password"
)

// reference is the Argon2id vector of the reference implementation's
// tests (github.com/P-H-C/phc-winner-argon2, src/test.c): password
// "password", salt "somesalt", m=65536, t=2, p=1.
const reference = "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc"

func TestVerifyReferenceVector(t *testing.T) {
	ok, err := password.Verify(reference, "password")
	require.NoError(t, err)
	assert.True(t, ok)
	ok, err = password.Verify(reference, "passwore")
	require.NoError(t, err)
	assert.False(t, ok)
}

func TestHashRoundTrip(t *testing.T) {
	enc, err := password.Hash("correct horse")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(enc, "$argon2id$v=19$m=19456,t=2,p=1$"), enc)
	assert.NotContains(t, enc, "correct horse")

	ok, err := password.Verify(enc, "correct horse")
	require.NoError(t, err)
	assert.True(t, ok)
	for _, wrong := range []string{"", "correct hors", "correct horse ", "Correct horse"} {
		ok, err := password.Verify(enc, wrong)
		require.NoError(t, err)
		assert.False(t, ok, "%q verified", wrong)
	}

	p, err := password.Decode(enc)
	require.NoError(t, err)
	assert.Equal(t, password.Default, p)
}

func TestHashIsSalted(t *testing.T) {
	a, err := password.Hash("same password")
	require.NoError(t, err)
	b, err := password.Hash("same password")
	require.NoError(t, err)
	assert.NotEqual(t, a, b, "two hashes of one password must differ by their salt")
}

func TestVerifyMalformed(t *testing.T) {
	salt, key := "c29tZXNhbHQ", "CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc"
	tests := []struct{ name, enc string }{
		{"empty", ""},
		{"argon2i", "$argon2i$v=19$m=65536,t=2,p=1$" + salt + "$" + key},
		{"old version", "$argon2id$v=16$m=65536,t=2,p=1$" + salt + "$" + key},
		{"params out of order", "$argon2id$v=19$t=2,m=65536,p=1$" + salt + "$" + key},
		{"missing parallelism", "$argon2id$v=19$m=65536,t=2$" + salt + "$" + key},
		{"extra param", "$argon2id$v=19$m=65536,t=2,p=1,x=1$" + salt + "$" + key},
		{"zero time", "$argon2id$v=19$m=65536,t=0,p=1$" + salt + "$" + key},
		{"memory too small for lanes", "$argon2id$v=19$m=8,t=2,p=4$" + salt + "$" + key},
		{"memory past the cap", "$argon2id$v=19$m=4194304,t=2,p=1$" + salt + "$" + key},
		{"time past the cap", "$argon2id$v=19$m=65536,t=1000,p=1$" + salt + "$" + key},
		{"negative", "$argon2id$v=19$m=-1,t=2,p=1$" + salt + "$" + key},
		{"short salt", "$argon2id$v=19$m=65536,t=2,p=1$c29t$" + key},
		{"padded base64", "$argon2id$v=19$m=65536,t=2,p=1$" + salt + "=$" + key},
		{"bad base64", "$argon2id$v=19$m=65536,t=2,p=1$" + salt + "$!!!!"},
		{"short key", "$argon2id$v=19$m=65536,t=2,p=1$" + salt + "$c29tZXNhbHQ"},
		{"trailing field", reference + "$x"},
		{"plain text", "password"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, err := password.Verify(tt.enc, "password")
			assert.ErrorIs(t, err, password.ErrMalformed)
			assert.False(t, ok)
		})
	}
}

func FuzzVerify(f *testing.F) {
	f.Add(reference, "password")
	f.Add("$argon2id$v=19$m=8,t=1,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc", "x")
	f.Add("$argon2id$v=19$m=65536,t=2,p=1$$", "")
	f.Fuzz(func(t *testing.T, enc, pw string) {
		// Keep each run cheap: the fuzzer may not choose the costs.
		if p, err := password.Decode(enc); err == nil && (p.Memory > 1024 || p.Time > 2) {
			return
		}
		ok, err := password.Verify(enc, pw)
		if err != nil && ok {
			t.Fatalf("Verify(%q, %q) = true with error %v", enc, pw, err)
		}
	})
}

func BenchmarkHashDefault(b *testing.B) {
	for b.Loop() {
		if _, err := password.Hash("a link password"); err != nil {
			b.Fatal(err)
		}
	}
}
