package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// app is one run of the CLI: its streams, environment and HTTP client,
// all injectable so tests run commands in-process.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	now            func() time.Time
	// httpClient sends every request; tests wrap its transport.
	httpClient *http.Client
	// isTerminal reports whether w is a terminal (progress bars, binary
	// output refusal).
	isTerminal func(w io.Writer) bool

	// Global flags.
	endpoint, apiKey, configFile string
	jsonOut                      bool
	timeout                      time.Duration
}

func newApp(stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) *app {
	return &app{
		stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv,
		now:        time.Now,
		httpClient: &http.Client{},
		isTerminal: func(w io.Writer) bool {
			f, ok := w.(*os.File)
			return ok && term.IsTerminal(int(f.Fd()))
		},
	}
}

// run executes the command line and returns the exit code.
func (a *app) run(ctx context.Context, args []string) int {
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	code := exitCode(err)
	a.reportError(err)
	return code
}

// reportError tells what went wrong on stderr: as a line for a person,
// or, under --json, as a JSON object a script can read.
func (a *app) reportError(err error) {
	var api *apiError
	var rows *rowsFailedError
	if errors.As(err, &rows) {
		return // the import's report has said it all
	}
	if a.jsonOut {
		out := map[string]any{"error": err.Error(), "exit_code": exitCode(err)}
		if errors.As(err, &api) && api.Problem.Status != 0 {
			out["problem"] = api.Problem
		}
		b, _ := json.Marshal(out) // strings, an int and a struct of strings
		fmt.Fprintln(a.stderr, string(b))
		return
	}
	fmt.Fprintln(a.stderr, "shortener:", err)
	var usage *usageError
	if errors.As(err, &usage) && strings.HasPrefix(usage.msg, "unknown") {
		fmt.Fprintln(a.stderr, "Run 'shortener --help' for usage.")
	}
}

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// client returns an API client for the resolved settings. Every command
// but the ones that need no key requires one.
func (a *app) client() (*client, error) {
	s, err := resolve(a.endpoint, a.apiKey, a.configFile, a.getenv)
	if err != nil {
		return nil, err
	}
	if err := s.requireKey(); err != nil {
		return nil, err
	}
	hc := *a.httpClient
	if a.timeout > 0 {
		hc.Timeout = a.timeout
	}
	// Short links redirect; the API never does, so never follow.
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &client{endpoint: s.endpoint, apiKey: s.apiKey, http: &hc, userAgent: "shortener-cli/" + version()}, nil
}

// printJSON writes v as indented JSON on stdout.
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// printRaw writes a JSON body as the API sent it, indented.
func (a *app) printRaw(body []byte) error {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return err
	}
	return a.printJSON(v)
}

const rootLong = `shortener creates and manages short links through the shortener's /v1 API,
on the local run (make dev) or on a deployed stack alike.

Settings, first found wins:
  endpoint  --endpoint, $SHORTENER_ENDPOINT, the config file's "endpoint",
            else http://127.0.0.1:8080 (the local run)
  API key   --api-key, $SHORTENER_API_KEY, the config file's "api_key"
  config    --config, $SHORTENER_CONFIG, $XDG_CONFIG_HOME/shortener/config.json,
            ~/.config/shortener/config.json: {"endpoint": "...", "api_key": "..."}

--json prints the API's JSON on stdout, and errors as JSON on stderr.

Exit codes:
  0  success
  1  the API refused the request (4xx), or some import rows failed
  2  usage: wrong flags or arguments, missing API key, unreadable file
  3  the API could not be reached, timed out, or answered 5xx or 429: retry later`

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "shortener",
		Short:         "Create and manage short links",
		Long:          rootLong,
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown command %q", args[0])
			}
			_ = cmd.Help()
			return usagef("no command given")
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&a.endpoint, "endpoint", "", "API origin, such as https://sho.rt (default: $SHORTENER_ENDPOINT, the config file, http://127.0.0.1:8080)")
	pf.StringVar(&a.apiKey, "api-key", "", "API key (default: $SHORTENER_API_KEY, the config file)")
	pf.StringVar(&a.configFile, "config", "", "config file (default: $SHORTENER_CONFIG, $XDG_CONFIG_HOME/shortener/config.json, ~/.config/shortener/config.json)")
	pf.BoolVar(&a.jsonOut, "json", false, "print JSON for scripts")
	pf.DurationVar(&a.timeout, "timeout", 60*time.Second, "bound on each request")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{msg: err.Error()} })
	root.AddCommand(
		a.shortenCommand(),
		a.lsCommand(),
		a.getCommand(),
		a.editCommand(),
		a.rmCommand(),
		a.statsCommand(),
		a.qrCommand(),
		a.importCommand(),
		a.exportCommand(),
		a.keysCommand(),
		a.membersCommand(),
		a.migrateCommand(),
	)
	return root
}

// args checks the number of positional arguments as a usage error.
func args(n int, names string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, got []string) error {
		if len(got) != n {
			return usagef("%s takes %s; see 'shortener %s --help'", cmd.Name(), names, cmd.Name())
		}
		return nil
	}
}
