package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/spf13/cobra"

	"github.com/shortlink-dev/shortener/internal/emulator"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/workspace"
)

// Settings of the keys commands, which talk to the keys table, not to the
// API: they need the operator's AWS credentials (or DynamoDB Local).
const (
	envKeysTable        = "SHORTENER_KEYS_TABLE"
	envDynamoDBEndpoint = "SHORTENER_DYNAMODB_ENDPOINT"
	// localKeysTable is the local run's keys table (KEYS_TABLE's default
	// in shortener-local).
	localKeysTable = "shortener-keys"
)

const keysLong = `keys adds, rotates, revokes and lists API keys in the keys table, which maps
each key (stored as its SHA-256, never the key) to its owner. The owner, not
the key, owns links: a rotated key's links stay with the owner's new key,
one owner may hold several keys, and an owner is the same in every Region.

These commands write the table directly with your AWS credentials (the usual
AWS_PROFILE, AWS_REGION, ...), not through the API:
  table     --keys-table, $SHORTENER_KEYS_TABLE: the Data stack's KeysTableName
            output (docs/deploy.md); shortener-keys with --dynamodb-endpoint
  DynamoDB  --dynamodb-endpoint, $SHORTENER_DYNAMODB_ENDPOINT: DynamoDB Local,
            such as the local run's http://127.0.0.1:8000; AWS when unset

On AWS a key also needs to be in the API's usage plan (throttling and quota),
as docs/deploy.md shows. A revoked key stops working within the functions'
key cache TTL (SHORTENER_KEY_CACHE_TTL, 30s by default).`

func (a *app) keysCommand() *cobra.Command {
	var table, endpoint string
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "Add, rotate, revoke and list API keys (operators)",
		Long:  keysLong,
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown keys command %q; see 'shortener keys --help'", args[0])
			}
			_ = cmd.Help()
			return usagef("no keys command given")
		},
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&table, "keys-table", "", "keys table name (default: $"+envKeysTable+")")
	pf.StringVar(&endpoint, "dynamodb-endpoint", "", "DynamoDB Local endpoint (default: $"+envDynamoDBEndpoint+"; AWS when empty)")
	store := func(ctx context.Context) (apikey.Store, error) {
		return a.keyStore(ctx, table, endpoint)
	}
	cmd.AddCommand(a.keysAddCommand(store), a.keysRotateCommand(store), a.keysRevokeCommand(store), a.keysLsCommand(store))
	return cmd
}

// keyStore opens the keys table named by the flags or the environment.
func (a *app) keyStore(ctx context.Context, table, endpoint string) (apikey.Store, error) {
	if endpoint == "" {
		endpoint = a.getenv(envDynamoDBEndpoint)
	}
	if table == "" {
		table = a.getenv(envKeysTable)
	}
	if table == "" && endpoint != "" {
		table = localKeysTable
	}
	if table == "" {
		return nil, usagef("no keys table: set --keys-table or $%s (the Data stack's KeysTableName output)", envKeysTable)
	}
	db, err := a.dynamoDB(ctx, endpoint)
	if err != nil {
		return nil, err
	}
	// Strongly consistent: an operator reads what they just wrote.
	return dynamo.NewKeyStore(db, dynamo.KeyConfig{Table: table, Timeout: a.tableTimeout(), ConsistentReads: true}), nil
}

// dynamoDB is a client of DynamoDB Local at endpoint, or of AWS with the
// operator's configuration when endpoint is empty.
func (a *app) dynamoDB(ctx context.Context, endpoint string) (*dynamodb.Client, error) {
	if endpoint != "" {
		return emulator.NewDynamoDBClient(endpoint), nil
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, usagef("AWS configuration: %v", err)
	}
	return dynamodb.NewFromConfig(cfg), nil
}

// tableTimeout bounds each call of the operator commands to the tables.
func (a *app) tableTimeout() time.Duration {
	if a.timeout <= 0 {
		return 60 * time.Second
	}
	return a.timeout
}

// printKey prints a new key alone on stdout (so KEY=$(shortener keys add
// ...) works), or with its record under --json, and tells on stderr whose it
// is and what is left to do on AWS. The key is shown this once: the table
// keeps only its hash.
func (a *app) printKey(key string, rec apikey.Record, verb string) error {
	if a.jsonOut {
		return a.printJSON(map[string]any{"key": key, "owner": rec.Owner, "key_hash": rec.Hash, "status": rec.Status,
			"created_at": rec.CreatedAt.Format(time.RFC3339), "note": rec.Note, "role": rec.RoleOrAdmin()})
	}
	fmt.Fprintln(a.stdout, key)
	fmt.Fprintf(a.stderr, "%s a key of owner %s (hash %s, role %s). It is shown this once.\n", verb, rec.Owner, rec.Hash[:12], rec.RoleOrAdmin())
	fmt.Fprintln(a.stderr, `On AWS, add it to the API's usage plan too (docs/deploy.md), with the key in $KEY:
  aws apigateway create-api-key --name <name> --value "$KEY" --enabled --query id --output text
  aws apigateway create-usage-plan-key --usage-plan-id <UsagePlanId> --key-type API_KEY --key-id <that id>`)
	return nil
}

func (a *app) keysAddCommand(store func(context.Context) (apikey.Store, error)) *cobra.Command {
	var owner, note, key, role string
	cmd := &cobra.Command{
		Use:   "add --owner OWNER [--role viewer|editor|admin] [--note N] [--key K]",
		Short: "Issue a new key for an owner and print it",
		Args:  args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if owner == "" {
				return usagef("keys add needs --owner")
			}
			if err := apikey.CheckOwner(owner); err != nil {
				return usagef("--owner: %v", err)
			}
			if err := checkKeyFlag(key); err != nil {
				return err
			}
			if err := workspace.CheckRole(role); err != nil {
				return usagef("--role: %v", err)
			}
			if role == workspace.RoleAdmin {
				// Stored as no role, as every key written before keys had
				// roles: one way to say admin in the table.
				role = ""
			}
			s, err := store(cmd.Context())
			if err != nil {
				return err
			}
			k, rec, err := apikey.IssueRole(cmd.Context(), s, nil, owner, key, note, role, a.now())
			if err != nil {
				return err
			}
			return a.printKey(k, rec, "Added")
		},
	}
	cmd.Flags().StringVar(&owner, "owner", "", "the owner the key belongs to, such as team-a (required)")
	cmd.Flags().StringVar(&note, "note", "", "a label for the key, such as ci or laptop")
	cmd.Flags().StringVar(&key, "key", "", "use this key (20-128 printable characters) instead of a generated one")
	cmd.Flags().StringVar(&role, "role", workspace.RoleAdmin, "the key's role in the owner's workspace: viewer, editor or admin (docs/teams.md)")
	return cmd
}

// checkKeyFlag checks --key, which is optional: a key the caller chose
// instead of a generated one.
func checkKeyFlag(key string) error {
	if key == "" {
		return nil
	}
	if err := apikey.CheckKey(key); err != nil {
		return usagef("--key: %v", err)
	}
	return nil
}

// oldKeyHash is the hash of the key named by the KEY argument or --hash.
func oldKeyHash(args []string, hash string) (string, error) {
	switch {
	case len(args) == 1 && hash == "":
		return apikey.Hash(args[0]), nil
	case len(args) == 0 && hash != "":
		if err := apikey.CheckHash(hash); err != nil {
			return "", usagef("--hash: %v", err)
		}
		return hash, nil
	}
	return "", usagef("name the key by its value (KEY) or by --hash, one of the two")
}

func (a *app) keysRotateCommand(store func(context.Context) (apikey.Store, error)) *cobra.Command {
	var hash, note, key string
	cmd := &cobra.Command{
		Use:   "rotate KEY | --hash H",
		Short: "Issue a new key for the owner of KEY, revoke KEY, print the new key",
		Long: `rotate replaces a key (a leaked one, say): it issues a new key for the same
owner, which sees and changes all of the owner's links, then revokes the old
key. Name the old key by its value or by its hash (keys ls).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			old, err := oldKeyHash(args, hash)
			if err != nil {
				return err
			}
			if err := checkKeyFlag(key); err != nil {
				return err
			}
			s, err := store(cmd.Context())
			if err != nil {
				return err
			}
			k, rec, err := apikey.Rotate(cmd.Context(), s, nil, old, key, note, a.now())
			if err != nil && k == "" {
				return err
			}
			if err != nil {
				// The new key works and must not be lost: print it, then fail.
				if perr := a.printKey(k, rec, "Added"); perr != nil {
					return perr
				}
				return err
			}
			if err := a.printKey(k, rec, "Rotated: revoked the old key and added"); err != nil {
				return err
			}
			fmt.Fprintln(a.stderr, "On AWS, delete the old key's API Gateway key as well (aws apigateway delete-api-key).")
			return nil
		},
	}
	cmd.Flags().StringVar(&hash, "hash", "", "the old key's hash, as keys ls shows it, instead of its value")
	cmd.Flags().StringVar(&note, "note", "", "a label for the new key (default: the old key's)")
	cmd.Flags().StringVar(&key, "key", "", "use this new key instead of a generated one")
	return cmd
}

func (a *app) keysRevokeCommand(store func(context.Context) (apikey.Store, error)) *cobra.Command {
	var hash string
	cmd := &cobra.Command{
		Use:   "revoke KEY | --hash H",
		Short: "Revoke a key; its owner and links remain",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := oldKeyHash(args, hash)
			if err != nil {
				return err
			}
			s, err := store(cmd.Context())
			if err != nil {
				return err
			}
			rec, err := s.Revoke(cmd.Context(), h, a.now().UTC())
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(map[string]any{"owner": rec.Owner, "key_hash": rec.Hash, "status": rec.Status,
					"revoked_at": rec.RevokedAt.Format(time.RFC3339)})
			}
			fmt.Fprintf(a.stderr, "Revoked a key of owner %s (hash %s): refused within the key cache TTL (30s by default).\n", rec.Owner, rec.Hash[:12])
			fmt.Fprintln(a.stderr, "On AWS, delete its API Gateway key as well (aws apigateway delete-api-key).")
			return nil
		},
	}
	cmd.Flags().StringVar(&hash, "hash", "", "the key's hash, as keys ls shows it, instead of its value")
	return cmd
}

func (a *app) keysLsCommand(store func(context.Context) (apikey.Store, error)) *cobra.Command {
	var owner string
	cmd := &cobra.Command{
		Use:   "ls [--owner OWNER]",
		Short: "List keys (their hashes, owners and status), oldest first",
		Args:  args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := store(cmd.Context())
			if err != nil {
				return err
			}
			recs, err := s.List(cmd.Context(), owner)
			if err != nil {
				return err
			}
			if a.jsonOut {
				out := make([]map[string]any, 0, len(recs))
				for _, r := range recs {
					m := map[string]any{"key_hash": r.Hash, "owner": r.Owner, "status": r.Status,
						"created_at": r.CreatedAt.Format(time.RFC3339), "note": r.Note, "role": r.RoleOrAdmin()}
					if !r.RevokedAt.IsZero() {
						m["revoked_at"] = r.RevokedAt.Format(time.RFC3339)
					}
					out = append(out, m)
				}
				return a.printJSON(map[string]any{"keys": out})
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "HASH\tOWNER\tSTATUS\tCREATED\tNOTE\tROLE")
			for _, r := range recs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Hash, r.Owner, r.Status, r.CreatedAt.Format(time.RFC3339), r.Note, r.RoleOrAdmin())
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&owner, "owner", "", "only this owner's keys")
	return cmd
}
