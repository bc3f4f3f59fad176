package localgw

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// APIKeys are the keys API Gateway accepts: the keys in the API's usage
// plan, there for throttling and quotas. They say nothing of owners: the
// functions resolve a key's owner in the keys table (shared/apikey), as
// they do on AWS.
type APIKeys interface {
	// KeyID returns key's ID (identity.apiKeyId), or "" for a key API
	// Gateway does not know (403).
	KeyID(ctx context.Context, key string) (string, error)
}

// KeyID is the ID the local gateway gives key: ten base-36 characters
// like API Gateway's key IDs, derived from the key, so one key always has
// the same ID and two keys never share one in practice.
func KeyID(key string) string {
	sum := sha256.Sum256([]byte("apiKeyId:" + key))
	id := new(big.Int).SetBytes(sum[:8]).Text(36)
	for len(id) < 10 {
		id = "0" + id
	}
	return id[:10]
}

// StaticKeys are a fixed set of keys, compared as keyring does.
func StaticKeys(keys ...string) APIKeys {
	m := make(map[string]string, len(keys))
	for _, k := range keys {
		m[k] = KeyID(k)
	}
	return newKeyring(m)
}

// KeyID implements APIKeys.
func (k *keyring) KeyID(_ context.Context, key string) (string, error) {
	return k.owner(key), nil
}

// ParseAPIKeys reads "key=owner" pairs separated by commas, such as
// "dev-key=dev, ci-key=ci": the local run's keys table, which it seeds
// with them (shortener-local). Space around entries, keys and owners is
// trimmed. An empty list, an empty entry, a pair without exactly one "=",
// an empty or non-printable key, an empty owner and a key listed twice are
// errors. One owner may have several keys.
func ParseAPIKeys(s string) (map[string]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("api keys: none given; want key=owner[,key=owner...]")
	}
	keys := map[string]string{}
	for i, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			return nil, fmt.Errorf("api keys: entry %d is empty", i+1)
		}
		if strings.Count(entry, "=") != 1 {
			return nil, fmt.Errorf("api keys: entry %d is not key=owner", i+1)
		}
		key, owner, _ := strings.Cut(entry, "=")
		key, owner = strings.TrimSpace(key), strings.TrimSpace(owner)
		switch {
		case key == "":
			return nil, fmt.Errorf("api keys: entry %d has an empty key", i+1)
		case owner == "":
			return nil, fmt.Errorf("api keys: entry %d has an empty owner", i+1)
		case !printableASCII(key):
			// The key travels in a header: no spaces, no control bytes.
			return nil, fmt.Errorf("api keys: entry %d: the key must be printable ASCII without spaces", i+1)
		}
		if _, dup := keys[key]; dup {
			return nil, fmt.Errorf("api keys: entry %d repeats a key", i+1)
		}
		keys[key] = owner
	}
	return keys, nil
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// keyring finds a key's value without leaking, through timing, how much of
// a guess was right: keys are compared as SHA-256 digests (so their lengths
// do not show either), in constant time, and every key is compared.
type keyring struct {
	digests [][sha256.Size]byte
	owners  []string
}

func newKeyring(keys map[string]string) *keyring {
	k := &keyring{}
	for key, owner := range keys {
		k.digests = append(k.digests, sha256.Sum256([]byte(key)))
		k.owners = append(k.owners, owner)
	}
	return k
}

// owner returns the key's value in the ring, or "" for an unknown key.
func (k *keyring) owner(key string) string {
	got := sha256.Sum256([]byte(key))
	found := -1
	for i, d := range k.digests {
		if subtle.ConstantTimeCompare(got[:], d[:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return ""
	}
	return k.owners[found]
}
