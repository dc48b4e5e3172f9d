package cmd

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/render"
	"github.com/wstools/ws/pkg/workspace"
)

// exitWSFailed is `ws exec`'s status when ws itself failed, as timeout(1)
// and env(1) use it.
const exitWSFailed = 125

func newExecCmd(app *App, runF func(context.Context, *workspace.ExecRequest) error) *cobra.Command {
	if runF == nil {
		runF = func(ctx context.Context, req *workspace.ExecRequest) error { return app.exec(ctx, req) }
	}
	return toolCmd(app, workspace.ExecuteCommand, runF, &cobra.Command{
		Use:   "exec [flags] -- COMMAND",
		Short: "Run a shell command in the workspace (or in the background)",
		Long: `Run COMMAND with /bin/sh -c in the workspace root, stdin from /dev/null (ws's own
stdin with --stdin), and print its output as the model sees it. One word after -- is a
shell command ('npm ci && npm test | tail'); several words are a program and its
arguments, each quoted for the shell where it needs it, so they reach the program as
given (ws exec -- grep -r "foo bar" .; FOO=1 make still sets FOO). ws exits with the
command's status: 124 on timeout, 128+N when killed by signal N (a SIGINT, SIGTERM,
SIGQUIT or SIGHUP to ws is passed on to the command), 125 when ws itself failed. --background starts it under a supervisor and prints its PID; with
--stdin-pipe its stdin stays open for 'ws send'.

--tty (with --background) runs it on a pseudo-terminal of its own, 80x24, as its
stdin, stdout, stderr and controlling terminal, for programs that behave otherwise off
a terminal (a REPL's prompt, line-buffered output). 'ws send' types into it, and the
terminal's echo puts what is sent in the output; 'ws send --eof' sends ^D. The terminal
has one stream: 'ws ps-output' shows it as stdout, its CR LF line ends as LF.`,
		Example: `  ws exec -- go test ./...
  ws exec -- grep -rn "TODO: fix" src
  ws exec --cwd web --timeout 60 -- 'npm ci && npm test | tail -20'
  echo hi | ws exec --stdin -- cat
  ws exec --background -- python3 -u -m http.server 8000
  ws exec --background --stdin-pipe -- python3 -iq
  ws exec --background --tty -- python3 -q`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("needs a COMMAND (after --)")
			}
			return nil
		},
	}, func(b *binder, req *workspace.ExecRequest) {
		b.seconds(&req.Timeout, "timeout", "timeout", "", "seconds before the command is stopped, fractions kept to the nanosecond (0.0005 = 500µs); 0 = no limit (default: config sandbox.timeout, else 300; with --background: sandbox.backgroundTimeout, else none)")
		stringVar(b.f, &req.Cwd, "cwd", "working directory, inside the workspace")
		b.int(&req.Tail, "tail", "", "tail", "200", "show the last N lines of each stream; 0 = all")
		b.bool(&req.Background, "background", "", false, "start in the background and print the PID")
		b.bool(&req.StdinPipe, "stdin-pipe", "", false, "with --background: keep the command's stdin open for ws send")
		b.bool(&req.TTY, "tty", "", false, "with --background: run the command on a pseudo-terminal (80x24) that ws send types into")
		b.f.Var(&stdinFlag{req: req, app: app}, "stdin", "pass ws's stdin to the (foreground) command")
		b.f.Lookup("stdin").NoOptDefVal = "true"
		b.list(&req.Env, "env", "NAME=value", "NAME=value", func(kv string) bool {
			k, _, ok := strings.Cut(kv, "=")
			return ok && k != ""
		}, "set an environment variable for the command (repeatable)")
	}, func(cmd *cobra.Command, args []string, req *workspace.ExecRequest) error {
		req.Command = workspace.CommandLine(args)
		if strings.TrimSpace(req.Command) == "" {
			return usagef("the COMMAND after -- is empty")
		}
		return nil
	})
}

// exec runs the command and passes its exit status on.
func (a *App) exec(ctx context.Context, req *workspace.ExecRequest) error {
	res, err := a.runToolResult(ctx, workspace.ExecuteCommand, *req)
	if err != nil {
		// Usage, config and approval keep their statuses (2, 2, 3);
		// anything else is ws failing to run the command: 125.
		var ue *usageError
		if _, ok := exitCodes[errs.CodeOf(err)]; ok || errors.As(err, &ue) {
			return err
		}
		// tools.operationTimeout: a timeout, as timeout(1) reports one.
		var we *errs.Error
		if errors.As(err, &we) && we.Op == workspace.OperationTimeoutOp {
			return &exitStatusError{124}
		}
		// Not told yet: the result could not be printed (stdout is a full
		// disk). Said on stderr, as every other command says it: the 125
		// alone told nothing.
		var rep *reported
		if !errors.As(err, &rep) {
			render.Error(a.IO, err)
		}
		return &exitStatusError{exitWSFailed}
	}
	if r, ok := res.(*workspace.ExecResult); ok && r.ExitStatus() != 0 {
		return &exitStatusError{r.ExitStatus()}
	}
	return nil
}

// stdinFlag is --stdin: the command reads ws's own stdin.
type stdinFlag struct {
	req *workspace.ExecRequest
	app *App
	on  bool
}

func (f *stdinFlag) String() string   { return strconv.FormatBool(f.on) }
func (f *stdinFlag) Type() string     { return "bool" }
func (f *stdinFlag) IsBoolFlag() bool { return true }

func (f *stdinFlag) Set(s string) error {
	on, err := strconv.ParseBool(s)
	if err != nil {
		return &badValue{"true or false"}
	}
	f.on, f.req.Stdin = on, nil
	if on {
		f.req.Stdin = f.app.IO.In
	}
	return nil
}
