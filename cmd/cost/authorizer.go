package main

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/shortlink-dev/shortener/functions/apiauth/apiauthfn"
	"github.com/shortlink-dev/shortener/internal/localtable"
	"github.com/shortlink-dev/shortener/shared/apikey"
	"github.com/shortlink-dev/shortener/shared/authn"
	"github.com/shortlink-dev/shortener/shared/dynamo"
	"github.com/shortlink-dev/shortener/shared/tableschema"
	"github.com/shortlink-dev/shortener/shared/workspace"
)

// authorizerFigures are the read units one /v1 authorizer call consumes
// (functions/apiauth, built as its Lambda builds it), by credential.
type authorizerFigures struct {
	// KeyMiss is an API key the authorizer's key cache does not hold
	// (one eventually consistent GetItem of the keys table); KeyCached
	// the same key again within the cache's TTL.
	KeyMiss, KeyCached float64
	// Token is a signed-in user's call without X-Workspace, a member of
	// one workspace (a Query of the members table's by-user index, Limit
	// 2); TokenNamed one with X-Workspace naming that workspace (a
	// GetItem); TokenNoMember a user with no membership (the Query finds
	// nothing: the personal workspace).
	Token, TokenNamed, TokenNoMember float64
}

// The JWKS issuer's app client, and the team the members belong to.
const (
	costClientID = "cost-console"
	costTeam     = "cost-team"
)

// authorizer measures the /v1 authorizer on its own keys and members
// tables: opt.Creates calls of each kind, each checked to be allowed as
// the caller it names. Its tokens are RS256 JWTs signed here and checked
// by the deployed verifier (apiauthfn.Tokens) against a JWKS served on
// 127.0.0.1, so a token call does what the Lambda does; verifying reads
// nothing from DynamoDB.
func (c *costRun) authorizer() error {
	n := c.opt.Creates
	cfg := c.cfg
	cfg.KeysTable, cfg.MembersTable = "cost-keys-"+c.suffix, "cost-members-"+c.suffix
	if err := localtable.Create(c.ctx, c.db, cfg.KeysTable, tableschema.Keys()); err != nil {
		return err
	}
	if err := localtable.Create(c.ctx, c.db, cfg.MembersTable, tableschema.Members()); err != nil {
		return err
	}
	issuer, sign, stop, err := costIssuer()
	if err != nil {
		return err
	}
	defer stop()
	h, err := apiauthfn.Build(cfg, c.fn, apiauthfn.Settings{UsageKey: "cost-usage-key", Issuer: issuer, ClientID: costClientID}, apiauthfn.Tokens)
	if err != nil {
		return err
	}

	keys := dynamo.NewKeyStore(c.db, dynamo.KeyConfig{Table: cfg.KeysTable, Timeout: 10 * time.Second})
	members := dynamo.NewMemberStore(c.db, dynamo.Config{Table: cfg.MembersTable, Timeout: 10 * time.Second}, true)
	now := time.Now()
	var keyList, members1, loners []string
	for i := range n {
		key, _, err := apikey.IssueRole(c.ctx, keys, nil, owner, "cost-authorizer-key-"+strconv.Itoa(1000+i), "cost", workspace.RoleEditor, now)
		if err != nil {
			return fmt.Errorf("issue a key: %w", err)
		}
		keyList = append(keyList, key)
		sub := "cost-member-" + strconv.Itoa(i)
		if err := members.Put(c.ctx, workspace.Member{Workspace: costTeam, User: sub, Role: workspace.RoleEditor, AddedAt: now, AddedBy: "operator"}); err != nil {
			return fmt.Errorf("add a member: %w", err)
		}
		members1 = append(members1, sub)
		loners = append(loners, "cost-loner-"+strconv.Itoa(i))
	}

	call := func(headers map[string]string, wantOwner string) error {
		req := events.APIGatewayCustomAuthorizerRequestTypeRequest{
			Type: "REQUEST", MethodArn: "arn:aws:execute-api:us-east-1:123456789012:costapi/prod/GET/v1/links",
			HTTPMethod: "GET", Resource: "/v1/links", Path: "/v1/links", Headers: headers,
		}
		resp, err := h.Handle(c.ctx, req)
		if err != nil {
			return fmt.Errorf("authorizer: %w", err)
		}
		if len(resp.PolicyDocument.Statement) != 1 || resp.PolicyDocument.Statement[0].Effect != "Allow" || resp.Context["owner"] != wantOwner {
			return fmt.Errorf("authorizer: %+v for owner %s, want an Allow", resp, wantOwner)
		}
		return nil
	}
	bearer := func(sub string) (string, error) {
		t, err := sign(sub)
		return "Bearer " + t, err
	}
	token := func(subs []string, ws func(sub string) (string, string)) func(int) error {
		return func(i int) error {
			b, err := bearer(subs[i])
			if err != nil {
				return err
			}
			named, want := ws(subs[i])
			headers := map[string]string{"Authorization": b}
			if named != "" {
				headers[apiauthfn.WorkspaceHeader] = named
			}
			return call(headers, want)
		}
	}
	f := &authorizerFigures{}
	byKey := func(i int) error { return call(map[string]string{"x-api-key": keyList[i]}, owner) }
	for _, m := range []struct {
		dst *float64
		f   func(int) error
	}{
		{&f.KeyMiss, byKey},
		{&f.KeyCached, byKey},
		{&f.Token, token(members1, func(string) (string, string) { return "", costTeam })},
		{&f.TokenNamed, token(members1, func(string) (string, string) { return costTeam, costTeam })},
		{&f.TokenNoMember, token(loners, func(sub string) (string, string) { return "", apiauthfn.UserOwner(sub) })},
	} {
		if _, *m.dst, err = c.measure(n, m.f); err != nil {
			return err
		}
	}
	c.r.Authorizer = f
	return nil
}

// costIssuer serves a JWKS on 127.0.0.1 and answers its issuer URL, a
// function signing an access token of costClientID for a subject, and
// one that stops the server.
func costIssuer() (string, func(sub string) (string, error), func(), error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", nil, nil, err
	}
	const kid = "cost"
	doc, err := json.Marshal(authn.JWKSet{Keys: []authn.JWK{authn.PublicJWK(kid, &key.PublicKey)}})
	if err != nil {
		return "", nil, nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/jwks.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(doc)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	issuer := "http://" + l.Addr().String()
	sign := func(sub string) (string, error) {
		now := time.Now().Unix()
		return authn.SignRS256(key, kid, map[string]any{
			"iss": issuer, "sub": sub, "client_id": costClientID, "token_use": authn.UseAccess,
			"iat": now, "exp": now + 3600, "username": sub,
		})
	}
	return issuer, sign, func() { _ = srv.Close() }, nil
}
