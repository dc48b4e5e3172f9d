package cmd

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/mcp"
)

// mcpHTTPOptions are ws mcp --http's.
type mcpHTTPOptions struct {
	addr, tokenFile string
	maxBody         int64
	maxRequests     int
	maxSessions     int
	progressEvery   time.Duration
}

func newMCPCmd(app *App) *cobra.Command {
	var o mcpHTTPOptions
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the workspace's tools over MCP (stdio, or streamable HTTP with --http)",
		Long: `Run a Model Context Protocol server on stdin/stdout offering every enabled tool,
under the same names, schemas and results as 'ws call'. Tools that require approval
are asked about through the client's elicitation, or need --yes.

With --http ADDR, serve MCP's streamable HTTP transport at http://ADDR/mcp instead,
to any number of sessions at once. Every request needs the bearer token: the
value of WS_MCP_TOKEN, or the first line of --token-file; without either, ws makes
one and prints it on stderr. ADDR is 127.0.0.1:PORT by default (a bare PORT, or
:PORT for every interface); an address beyond loopback is refused unless the token
is set. SIGTERM or SIGINT stops taking requests, lets the calls in flight finish
and answer, and exits.

On stdio, SIGTERM or SIGINT stops the calls in flight (their commands get the
signal), sends their answers and exits 0, as the end of stdin does. Stdout
carries JSON-RPC only: a failure of the server itself (a bad config, say) is
told on stderr, with or without --json.`,
		Example: `  ws --root ~/project mcp
  # in an MCP client config: {"command": "ws", "args": ["--root", "/path/to/project", "mcp"]}
  WS_MCP_TOKEN=$(openssl rand -hex 32) ws --root ~/project mcp --http 8080
  ws mcp --http 0.0.0.0:8080 --token-file /run/secrets/mcp-token`,
		// A signal ends the session in order (the calls in flight finish).
		Annotations: map[string]string{interruptibleKey: "true"},
		Args:        exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			app.noPrompt = true
			longRun() // a server: it may run for days
			if !changed(cmd.Flags(), "http") {
				app.stdoutIsProtocol, app.opts.json = true, false
				for _, f := range []string{"token-file", "max-body-bytes", "max-requests", "max-sessions"} {
					if changed(cmd.Flags(), f) {
						return usagef("--%s goes with --http", f)
					}
				}
				ws, err := app.Workspace()
				if err != nil {
					return err
				}
				// A client that stops reading must not end ws by SIGPIPE,
				// which would leave the commands of its calls running: the
				// write fails instead, and Serve stops them.
				signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
				return mcp.Serve(cmd.Context(), ws, version, app.IO.In, app.IO.Out, o.options())
			}
			return app.serveMCPHTTP(cmd, o)
		},
	}
	f := c.Flags()
	f.StringVar(&o.addr, "http", "", "serve streamable HTTP at ADDR (host:port, :port or port; default host 127.0.0.1)")
	f.StringVar(&o.tokenFile, "token-file", "", "read the bearer token from this file (default: env WS_MCP_TOKEN)")
	o.maxBody, o.maxRequests, o.maxSessions = mcp.DefaultMaxBodyBytes, 64, 256
	f.Var(positive[int64]{&o.maxBody}, "max-body-bytes", "refuse a request body larger than this (413)")
	f.Var(positive[int]{&o.maxRequests}, "max-requests", "requests handled at once; as many more may wait up to 1s for a place, the rest get 429")
	f.Var(positive[int]{&o.maxSessions}, "max-sessions", "open sessions; a new one beyond gets 503")
	o.progressEvery = mcp.DefaultProgressEvery
	f.Var(interval{&o.progressEvery}, "progress-every",
		"seconds between the progress notifications that tell a client which asked for them (a progressToken) that its call still runs; 0 = never; or a duration: 90s, 2m, 500ms")
	return c
}

// options are the two transports' options the flags give.
func (o mcpHTTPOptions) options() mcp.Options {
	if o.progressEvery <= 0 {
		return mcp.Options{ProgressEvery: -1} // never
	}
	return mcp.Options{ProgressEvery: o.progressEvery}
}

// serveMCPHTTP checks the address and the token, listens and serves.
func (a *App) serveMCPHTTP(cmd *cobra.Command, o mcpHTTPOptions) error {
	addr := o.addr
	if addr == "" {
		return usagef("--http needs an address: host:port, :port or port")
	}
	if !strings.Contains(addr, ":") {
		addr = "127.0.0.1:" + addr
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("--http %q: %v", o.addr, err)
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || n > 65535 {
		return usagef("--http %s: the port must be a number from 0 to 65535 (0: any free port)", o.addr)
	}
	token, err := mcpToken(o.tokenFile)
	if err != nil {
		return err
	}
	generated := token == ""
	if generated && !mcp.Loopback(addr) {
		return usagef("--http %s is reachable beyond this machine: set the token (WS_MCP_TOKEN or --token-file)", o.addr)
	}
	if generated {
		b := make([]byte, 32)
		rand.Read(b)
		token = hex.EncodeToString(b)
	}
	ws, err := a.Workspace()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return errs.Listen(o.addr, err)
	}
	fmt.Fprintf(a.IO.Err, "ws mcp: serving http://%s%s\n", ln.Addr(), mcp.Path)
	if generated {
		fmt.Fprintf(a.IO.Err, "ws mcp: bearer token %s (set WS_MCP_TOKEN or --token-file to choose it)\n", token)
	}
	return mcp.ServeHTTP(cmd.Context(), ws, version, ln, mcp.HTTPOptions{
		Options:        o.options(),
		Token:          token,
		MaxBodyBytes:   o.maxBody,
		MaxRequests:    o.maxRequests,
		MaxSessions:    o.maxSessions,
		SessionTimeout: time.Hour,
		InitTimeout:    30 * time.Second,
		Grace:          2 * time.Second,
	})
}

// mcpToken is the token of --token-file (its first line), else of
// WS_MCP_TOKEN, else "".
func mcpToken(file string) (string, error) {
	if file == "" {
		return strings.TrimSpace(os.Getenv("WS_MCP_TOKEN")), nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return "", usagef("--token-file: %s", errs.Errno(err))
	}
	line, _, _ := strings.Cut(string(data), "\n")
	if line = strings.TrimSpace(line); line == "" {
		return "", usagef("--token-file %s: the first line is empty", file)
	}
	return line, nil
}
