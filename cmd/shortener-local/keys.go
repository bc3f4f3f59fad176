package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

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

// LocalUsageKey is the local run's usage-plan key: the one key of the
// local /v1 usage plan, which the local /v1 authorizer returns as
// usageIdentifierKey for every caller it allows, as each Region's
// deployed authorizer returns that Region's (infra/api).
const LocalUsageKey = "shortener-local-usage-plan-key"
