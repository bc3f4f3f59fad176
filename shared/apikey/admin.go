package apikey

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/shortlink-dev/shortener/shared/workspace"
)

// Store is what key administration (the CLI's keys commands and the
// manage function's keys API) needs of the keys table. The other functions
// only read it (Getter).
type Store interface {
	Getter
	Add(ctx context.Context, rec Record) error
	Revoke(ctx context.Context, hash string, at time.Time) (Record, error)
	// List returns every record, of one owner when owner is not empty;
	// DynamoDB answers an owner's from its by-owner index, eventually
	// consistent.
	List(ctx context.Context, owner string) ([]Record, error)
}

var (
	_ Store = (*Memory)(nil)
)

// Issue adds an active key for owner and returns it with its record. An
// empty key is generated from random (crypto/rand when nil); a given key is
// checked with CheckKey.
func Issue(ctx context.Context, s Store, random io.Reader, owner, key, note string, now time.Time) (string, Record, error) {
	return IssueRole(ctx, s, random, owner, key, note, "", now)
}

// IssueRole is Issue for a key with role in owner's workspace
// (workspace.Roles; "" is admin).
func IssueRole(ctx context.Context, s Store, random io.Reader, owner, key, note, role string, now time.Time) (string, Record, error) {
	return IssueExpiring(ctx, s, random, owner, key, note, role, now, time.Time{})
}

// IssueExpiring is IssueRole for a key that stops working at expires
// (zero: never).
func IssueExpiring(ctx context.Context, s Store, random io.Reader, owner, key, note, role string, now, expires time.Time) (string, Record, error) {
	if err := CheckOwner(owner); err != nil {
		return "", Record{}, err
	}
	if role != "" {
		if err := workspace.CheckRole(role); err != nil {
			return "", Record{}, err
		}
	}
	if key == "" {
		var err error
		if key, err = Generate(random); err != nil {
			return "", Record{}, err
		}
	} else if err := CheckKey(key); err != nil {
		return "", Record{}, err
	}
	rec := Record{Hash: Hash(key), Owner: owner, Status: StatusActive, CreatedAt: now.UTC(), Note: note, Role: role}
	if !expires.IsZero() {
		if !expires.After(now) {
			return "", Record{}, fmt.Errorf("a key's expiry %s is not after its creation %s", expires.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
		}
		rec.ExpiresAt = expires.UTC()
	}
	if err := s.Add(ctx, rec); err != nil {
		return "", Record{}, fmt.Errorf("add key for %q: %w", owner, err)
	}
	return key, rec, nil
}

// Rotate replaces the active key whose hash is oldHash: it issues a new
// key for the same owner (as Issue does), then revokes the old one. The
// new key is added first, so a failure in between leaves the owner with
// two working keys, never with none; the error says so. A key with an
// expiry is replaced by one with the same lifetime, counted from now.
func Rotate(ctx context.Context, s Store, random io.Reader, oldHash, newKey, note string, now time.Time) (string, Record, error) {
	old, err := s.Get(ctx, oldHash)
	if err != nil {
		return "", Record{}, fmt.Errorf("read the old key: %w", err)
	}
	if old.Status != StatusActive {
		return "", Record{}, fmt.Errorf("the old key: %w (issue a new key for %q instead)", ErrRevoked, old.Owner)
	}
	if note == "" {
		note = old.Note
	}
	var expires time.Time
	if !old.ExpiresAt.IsZero() {
		expires = now.Add(old.ExpiresAt.Sub(old.CreatedAt))
	}
	// The new key keeps the old one's role.
	key, rec, err := IssueExpiring(ctx, s, random, old.Owner, newKey, note, old.Role, now, expires)
	if err != nil {
		return "", Record{}, err
	}
	if _, err := s.Revoke(ctx, oldHash, now.UTC()); err != nil {
		return key, rec, fmt.Errorf("the new key works, but revoking the old one failed; revoke it again: %w", err)
	}
	return key, rec, nil
}
