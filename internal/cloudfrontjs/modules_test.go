package cloudfrontjs

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCryptoModule(t *testing.T) {
	sha := sha256.Sum256([]byte("abc"))
	md := md5.Sum([]byte("abc"))
	s1 := sha1.Sum([]byte("héllo"))
	mac := hmac.New(sha256.New, []byte("key"))
	mac.Write([]byte("message"))
	tests := []struct {
		name    string
		expr    string
		want    string
		wantErr error
	}{
		{"sha256 hex", "crypto.createHash('sha256').update('abc').digest('hex')", hex.EncodeToString(sha[:]), nil},
		{"sha256 in two updates", "crypto.createHash('sha256').update('a').update('bc').digest('hex')", hex.EncodeToString(sha[:]), nil},
		{"md5 base64", "crypto.createHash('md5').update('abc').digest('base64')", base64.StdEncoding.EncodeToString(md[:]), nil},
		{"sha1 of UTF-8 text, base64url", "crypto.createHash('sha1').update('héllo').digest('base64url')", base64.RawURLEncoding.EncodeToString(s1[:]), nil},
		{"hmac sha256", "crypto.createHmac('sha256', 'key').update('message').digest('hex')", hex.EncodeToString(mac.Sum(nil)), nil},
		{"digest without encoding is a Buffer", "crypto.createHash('sha256').update('abc').digest()", "", ErrUnsupported},
		{"unknown algorithm", "crypto.createHash('sha512')", "", ErrExecution},
		{"unknown encoding", "crypto.createHash('md5').digest('latin1')", "", ErrExecution},
		{"digest twice", "(function () { const h = crypto.createHash('md5'); h.digest('hex'); return h.digest('hex'); })()", "", ErrExecution},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := run(t, "import crypto from 'crypto';\n"+header("const s = "+tt.expr+";"))
			if tt.wantErr != nil {
				assert.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, out(t, res))
		})
	}
}

func TestQuerystringModule(t *testing.T) {
	tests := []struct{ name, expr, want string }{
		{"parse", "JSON.stringify(qs.parse('a=1&b=x%20y&a=2&c=d+e&f'))", `{"a":["1","2"],"b":"x y","c":"d e","f":""}`},
		{"parse with separators", "JSON.stringify(qs.parse('a:1;b:2', ';', ':'))", `{"a":"1","b":"2"}`},
		{"parse keeps a malformed escape", "qs.parse('a=%zz%41').a", "%zzA"},
		{"parse maxKeys", "Object.keys(qs.parse('a=1&b=2&c=3', null, null, { maxKeys: 2 })).join(',')", "a,b"},
		{"decode is parse", "qs.decode('a=1').a", "1"},
		{"stringify", "qs.stringify({ a: ['1', '2'], b: 'x y', n: 3, t: true, o: {} })", "a=1&a=2&b=x%20y&n=3&t=true&o="},
		{"encode is stringify", "qs.encode({ 'k k': 'é' })", "k%20k=%C3%A9"},
		{"escape", "qs.escape(\"a b&c/é!~*'()\")", "a%20b%26c%2F%C3%A9!~*'()"},
		{"unescape", "qs.unescape('a%20b%2F')", "a b/"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := run(t, "const qs = require('querystring');\n"+header("const s = "+tt.expr+";"))
			require.NoError(t, err)
			assert.Equal(t, tt.want, out(t, res))
		})
	}
}
