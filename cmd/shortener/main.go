// Command shortener is the command line client of the shortener's /v1 API:
// it creates, lists, changes and deletes short links, shows their click
// statistics with a terminal chart, writes QR codes, exports links and
// clicks, and imports links in bulk from CSV, from its own export or from
// the exports of Bitly, Shlink, YOURLS, Kutt and Dub. It speaks the same HTTP API to the local run and to a
// deployed stack. Its keys commands, for operators, issue, rotate and
// revoke API keys in the keys table directly (docs/cli.md).
//
//	shortener shorten https://example.com/landing --alias Summer-Sale --ttl 30d
//	shortener ls --all
//	shortener import links.csv
//	shortener export -o links.csv
//	shortener import --from shlink --dry-run short_urls.csv
//
// The endpoint and API key come from --endpoint and --api-key, else
// SHORTENER_ENDPOINT and SHORTENER_API_KEY, else the config file
// ($XDG_CONFIG_HOME/shortener/config.json or ~/.config/shortener/config.json).
// Exit codes (docs/cli.md): 0 ok, 1 the API refused or some rows failed,
// 2 usage, 3 the API could not be reached or was unavailable.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := newApp(os.Stdin, os.Stdout, os.Stderr, os.Getenv).run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
