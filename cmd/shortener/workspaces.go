package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/workspace"
)

// Settings of the members and migrate commands, which talk to the members
// table (and the keys table) directly, as the keys commands do.
const (
	envMembersTable = "SHORTENER_MEMBERS_TABLE"
	// localMembersTable is the local run's members table (MEMBERS_TABLE's
	// default in shortener-local).
	localMembersTable = "shortener-members"
	// operatorActor is who the CLI's changes are by.
	operatorActor = "operator"
)

const membersLong = `members adds and lists the members of a workspace in the members table: the
way to give a workspace its first admin, who then manages the others through
the API (PUT /v1/members/{user}, docs/teams.md). A member is a signed-in
user, named by their subject (the sub of their token).

These commands write the table directly with your AWS credentials, as the keys
commands do:
  table     --members-table, $SHORTENER_MEMBERS_TABLE: the Data stack's
            MembersTableName output; shortener-members with --dynamodb-endpoint
  DynamoDB  --dynamodb-endpoint, $SHORTENER_DYNAMODB_ENDPOINT`

// memberStore opens the members table named by the flag or the
// environment.
func (a *app) memberStore(ctx context.Context, table, endpoint string) (workspace.Store, error) {
	if endpoint == "" {
		endpoint = a.getenv(envDynamoDBEndpoint)
	}
	if table == "" {
		table = a.getenv(envMembersTable)
	}
	if table == "" && endpoint != "" {
		table = localMembersTable
	}
	if table == "" {
		return nil, usagef("no members table: set --members-table or $%s (the Data stack's MembersTableName output)", envMembersTable)
	}
	db, err := a.dynamoDB(ctx, endpoint)
	if err != nil {
		return nil, err
	}
	// Strongly consistent: an operator reads what they just wrote. The
	// primary Region's replica is the one to write (docs/teams.md).
	return dynamo.NewMemberStore(db, dynamo.Config{Table: table, Timeout: a.tableTimeout()}, true), nil
}

func (a *app) membersCommand() *cobra.Command {
	var table, endpoint string
	cmd := &cobra.Command{
		Use:   "members",
		Short: "Add and list a workspace's members (operators)",
		Long:  membersLong,
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown members command %q; see 'shortener members --help'", args[0])
			}
			_ = cmd.Help()
			return usagef("no members command given")
		},
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&table, "members-table", "", "members table name (default: $"+envMembersTable+")")
	pf.StringVar(&endpoint, "dynamodb-endpoint", "", "DynamoDB Local endpoint (default: $"+envDynamoDBEndpoint+"; AWS when empty)")
	store := func(ctx context.Context) (workspace.Store, error) { return a.memberStore(ctx, table, endpoint) }
	cmd.AddCommand(a.membersAddCommand(store), a.membersLsCommand(store))
	return cmd
}

func (a *app) membersAddCommand(store func(context.Context) (workspace.Store, error)) *cobra.Command {
	var ws, user, role string
	cmd := &cobra.Command{
		Use:   "add --workspace W --user SUB [--role viewer|editor|admin]",
		Short: "Add a member to a workspace, or change their role",
		Args:  args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			m := workspace.Member{Workspace: ws, User: user, Role: role, AddedAt: a.now().UTC().Truncate(time.Millisecond), AddedBy: operatorActor}
			if err := m.Check(); err != nil {
				return usagef("%v", err)
			}
			s, err := store(cmd.Context())
			if err != nil {
				return err
			}
			if err := s.Put(cmd.Context(), m); err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(map[string]any{"workspace": m.Workspace, "user": m.User, "role": m.Role})
			}
			fmt.Fprintf(a.stderr, "%s is %s of workspace %s.\n", m.User, m.Role, m.Workspace)
			return nil
		},
	}
	cmd.Flags().StringVar(&ws, "workspace", "", "the workspace: its owner ID, such as team-a (required)")
	cmd.Flags().StringVar(&user, "user", "", "the user's subject, the sub of their token (required)")
	cmd.Flags().StringVar(&role, "role", workspace.RoleAdmin, "viewer, editor or admin")
	return cmd
}

func (a *app) membersLsCommand(store func(context.Context) (workspace.Store, error)) *cobra.Command {
	var ws string
	cmd := &cobra.Command{
		Use:   "ls --workspace W",
		Short: "List a workspace's members",
		Args:  args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := workspace.CheckID("--workspace", ws); err != nil {
				return usagef("%v", err)
			}
			s, err := store(cmd.Context())
			if err != nil {
				return err
			}
			ms, err := s.List(cmd.Context(), ws)
			if err != nil {
				return err
			}
			if a.jsonOut {
				out := make([]map[string]any, 0, len(ms))
				for _, m := range ms {
					out = append(out, map[string]any{"user": m.User, "role": m.Role, "added_at": m.AddedAt.Format(time.RFC3339), "added_by": m.AddedBy})
				}
				return a.printJSON(map[string]any{"workspace": ws, "members": out})
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "USER\tROLE\tADDED\tBY")
			for _, m := range ms {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", m.User, m.Role, m.AddedAt.Format(time.RFC3339), m.AddedBy)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&ws, "workspace", "", "the workspace (required)")
	return cmd
}

const migrateLong = `migrate workspaces makes every owner of the keys table a workspace: for each
owner it writes the workspace's record in the members table unless there is
one, and checks that the owner's first active key is its admin. It rewrites
no link and no key: a workspace's ID is its owner ID, which every link
carries already, and a key written before keys had roles has none, which
means admin. Safe to run again: an existing workspace is left as it is.

It takes the keys commands' --keys-table and the members commands'
--members-table (or their environment variables) and --dynamodb-endpoint.`

// migrated is one owner's outcome.
type migrated struct {
	Workspace string `json:"workspace"`
	Created   bool   `json:"created"`
	Keys      int    `json:"keys"`
	// FirstKey is the hash prefix of the oldest active key and FirstRole
	// its role; empty when the owner has no active key.
	FirstKey  string `json:"first_key,omitempty"`
	FirstRole string `json:"first_role,omitempty"`
}

// errNoAdminKey: an owner's first active key is not its admin.
var errNoAdminKey = errors.New("the first active key is not the workspace's admin")

// migrateWorkspaces is the migration over keys and members.
func migrateWorkspaces(ctx context.Context, keys apikey.Store, members workspace.Store) ([]migrated, error) {
	recs, err := keys.List(ctx, "")
	if err != nil {
		return nil, err
	}
	byOwner := map[string][]apikey.Record{}
	for _, r := range recs {
		byOwner[r.Owner] = append(byOwner[r.Owner], r)
	}
	var out []migrated
	var errs []error
	for _, owner := range slices.Sorted(maps.Keys(byOwner)) {
		rs := byOwner[owner] // oldest first (List sorts)
		m := migrated{Workspace: owner, Keys: len(rs)}
		created := rs[0].CreatedAt
		if m.Created, err = members.Ensure(ctx, workspace.Workspace{ID: owner, CreatedAt: created, CreatedBy: "migration"}); err != nil {
			return out, fmt.Errorf("workspace %q: %w", owner, err)
		}
		if i := slices.IndexFunc(rs, func(r apikey.Record) bool { return r.Status == apikey.StatusActive }); i >= 0 {
			m.FirstKey, m.FirstRole = rs[i].Hash[:12], rs[i].RoleOrAdmin()
			if m.FirstRole != workspace.RoleAdmin {
				// Never raised here: a key an operator gave a lesser role
				// keeps it. The operator decides (keys add --role admin).
				errs = append(errs, fmt.Errorf("workspace %q, key %s (%s): %w", owner, m.FirstKey, m.FirstRole, errNoAdminKey))
			}
		}
		out = append(out, m)
	}
	return out, errors.Join(errs...)
}

func (a *app) migrateCommand() *cobra.Command {
	var keysTable, membersTable, endpoint string
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "One-off data migrations (operators)",
		Args:  cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown migration %q; see 'shortener migrate --help'", args[0])
			}
			_ = cmd.Help()
			return usagef("no migration given")
		},
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&keysTable, "keys-table", "", "keys table name (default: $"+envKeysTable+")")
	pf.StringVar(&membersTable, "members-table", "", "members table name (default: $"+envMembersTable+")")
	pf.StringVar(&endpoint, "dynamodb-endpoint", "", "DynamoDB Local endpoint (default: $"+envDynamoDBEndpoint+"; AWS when empty)")
	cmd.AddCommand(&cobra.Command{
		Use:   "workspaces",
		Short: "Make every owner of the keys table a workspace (safe to run again)",
		Long:  migrateLong,
		Args:  args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			keys, err := a.keyStore(cmd.Context(), keysTable, endpoint)
			if err != nil {
				return err
			}
			members, err := a.memberStore(cmd.Context(), membersTable, endpoint)
			if err != nil {
				return err
			}
			done, merr := migrateWorkspaces(cmd.Context(), keys, members)
			if a.jsonOut {
				if err := a.printJSON(map[string]any{"workspaces": done}); err != nil {
					return err
				}
				return merr
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "WORKSPACE\tRECORD\tKEYS\tFIRST KEY\tROLE")
			for _, m := range done {
				state := "existed"
				if m.Created {
					state = "created"
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", m.Workspace, state, m.Keys, m.FirstKey, m.FirstRole)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			return merr
		},
	})
	return cmd
}
