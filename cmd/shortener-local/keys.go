package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/shortlink-dev/shortener/internal/localgw"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/tableschema"
)

// seedKeys creates the keys table and puts the SHORTENER_API_KEYS pairs in
// it, each an active key of its owner, as an operator's `shortener keys
// add` does on AWS. A key the table has already (a DynamoDB Local of
// yours) is left as it is, revoked or not, unless it belongs to another
// owner: that is an error rather than a silent change of owner.
func seedKeys(ctx context.Context, db *dynamodb.Client, table string, keys map[string]string, log *slog.Logger) error {
	if err := localtable.Create(ctx, db, table, tableschema.Keys()); err != nil {
		return err
	}
	store := dynamo.NewKeyStore(db, dynamo.KeyConfig{Table: table, ConsistentReads: true})
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	slices.Sort(names)
	now := time.Now().UTC()
	for _, key := range names {
		owner := keys[key]
		if err := apikey.CheckOwner(owner); err != nil {
			return fmt.Errorf("SHORTENER_API_KEYS: owner %q: %w", owner, err)
		}
		rec := apikey.Record{Hash: apikey.Hash(key), Owner: owner, Status: apikey.StatusActive, CreatedAt: now, Note: "SHORTENER_API_KEYS"}
		err := store.Add(ctx, rec)
		if !errors.Is(err, apikey.ErrExists) {
			if err != nil {
				return fmt.Errorf("seed the keys table: %w", err)
			}
			continue
		}
		had, err := store.Get(ctx, rec.Hash)
		if err != nil {
			return fmt.Errorf("seed the keys table: %w", err)
		}
		if had.Owner != owner {
			return fmt.Errorf("SHORTENER_API_KEYS: the key of owner %q belongs to owner %q in the keys table %s", owner, had.Owner, table)
		}
		if had.Status != apikey.StatusActive {
			log.Warn("a key of SHORTENER_API_KEYS was revoked in the keys table and stays revoked", "owner", owner, "key_hash", rec.Hash)
		}
	}
	return nil
}

// tableKeys are the keys the local gateway accepts: every key in the keys
// table, revoked or not. On AWS `shortener keys add` puts a key in the
// table and the operator adds the same key to the usage plan; locally the
// table is both. A revoked key therefore passes the gateway and is refused
// by the function, with the same 403 problem as API Gateway's own.
//
// A key once found is remembered, as API Gateway does not look its keys up
// per request either: the CLI never deletes a key from the table, it only
// revokes it, so the answer cannot change. Unknown keys are asked again,
// so a key added while the local run is up works at once.
type tableKeys struct {
	keys  apikey.Getter
	known *sync.Map // key hash -> key ID
}

var _ localgw.APIKeys = tableKeys{}

func newTableKeys(keys apikey.Getter) tableKeys {
	return tableKeys{keys: keys, known: &sync.Map{}}
}

func (t tableKeys) KeyID(ctx context.Context, key string) (string, error) {
	h := apikey.Hash(key)
	if id, ok := t.known.Load(h); ok {
		return id.(string), nil
	}
	_, err := t.keys.Get(ctx, h)
	switch {
	case errors.Is(err, apikey.ErrUnknown):
		return "", nil
	case err != nil:
		return "", err
	}
	id := localgw.KeyID(key)
	t.known.Store(h, id)
	return id, nil
}
