package cmd

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/render"
	"github.com/wstools/ws/pkg/workspace"
)

// Exit statuses.
const (
	exitOK       = 0
	exitFailure  = 1 // the tool did not do what was asked
	exitUsage    = 2 // bad flags, arguments, JSON or config
	exitApproval = 3 // approval refused
)

// exitCodes maps error codes to exit statuses; any other code is a failure.
var exitCodes = map[workspace.Code]int{
	workspace.InvalidArgument: exitUsage,
	workspace.InvalidConfig:   exitUsage,
	workspace.ApprovalRefused: exitApproval,
}

// usageError is a problem with the command line itself.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(msg string) error { return &usageError{msg: msg} }

// reported wraps an error that has already been printed (as a JSON
// envelope or on stderr); Main only turns it into an exit status.
type reported struct{ err error }

func (r *reported) Error() string { return r.err.Error() }
func (r *reported) Unwrap() error { return r.err }

// Main runs ws with os.Args and returns the exit status.
func Main() int {
	// ws is a short-lived batch process: trade some memory for less GC work.
	debug.SetGCPercent(400)
	stdio := &render.IO{
		In:     os.Stdin,
		Out:    os.Stdout,
		Err:    os.Stderr,
		InTTY:  isTerminal(os.Stdin),
		OutTTY: isTerminal(os.Stdout),
	}
	app := newApp(stdio)
	root := newRootCmd(app)
	// The first SIGINT/SIGTERM cancels the running tool (exec stops its
	// command's process group); handling then returns to the default, so a
	// second signal ends ws at once even if a tool is stuck.
	ctx := context.Background()
	if interruptible(root, os.Args[1:]) {
		sctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
		context.AfterFunc(sctx, stop)
		ctx = sctx
	}
	defer app.close()
	root.SetArgs(os.Args[1:])
	root.SetIn(stdio.In)
	root.SetOut(stdio.Out)
	root.SetErr(stdio.Err)
	cmd, err := root.ExecuteContextC(ctx)
	if cmd != nil {
		app.tool = cmd.Annotations["tool"]
	}
	return exitStatus(stdio, app, err)
}

// interruptible reports whether args run a command whose tool watches its
// context (a shell command, a wait, a long walk or upload, an MCP session),
// so that a signal should cancel the tool rather than end ws. The others
// keep the default SIGINT and SIGTERM: os/signal's goroutines and the
// thread they hold cost every run about 0.4 ms of start-up, and a read or
// a stat gains nothing from being cancelled instead of ended.
func interruptible(root *cobra.Command, args []string) bool {
	c, _, err := root.Find(args)
	if err != nil {
		return false
	}
	for c.HasParent() && c.Parent() != root {
		c = c.Parent()
	}
	switch c.Name() {
	case "exec", "ps-output", "kill", "call", "mcp", "grep", "search", "index", "skill", "upload":
		return true
	}
	return false
}

// exitStatus prints err unless it was already reported, and maps it to an
// exit status with the one table above.
func exitStatus(stdio *render.IO, app *App, err error) int {
	if err == nil {
		return exitOK
	}
	var st *exitStatusError
	if errors.As(err, &st) {
		return st.code
	}
	var ue *usageError
	usage := errors.As(err, &ue) || !app.ran // errors before any RunE are cobra's: flags, arguments
	code := exitFailure
	switch c, ok := exitCodes[workspace.CodeOf(err)]; {
	case usage:
		code = exitUsage
	case ok:
		code = c
	}
	var rep *reported
	if errors.As(err, &rep) {
		return code
	}
	if wantsJSON(app) {
		// --json promises one envelope on stdout, whatever happened.
		wcode := workspace.CodeOf(err)
		if usage {
			wcode = workspace.InvalidArgument
		}
		render.JSON(stdio.Out, render.Envelope{Tool: app.tool, Output: err.Error(),
			Error: &render.ErrorBody{Code: wcode, Message: err.Error()}})
		return code
	}
	render.Error(stdio, err)
	if usage {
		render.Error(stdio, errors.New("run 'ws --help' for usage"))
	}
	return code
}

// wantsJSON reports --json, also when flag parsing failed before reaching it.
func wantsJSON(app *App) bool {
	if app.opts.json {
		return true
	}
	for _, a := range os.Args[1:] {
		if a == "--" {
			break
		}
		if a == "--json" || a == "--json=true" || a == "--json=1" {
			return true
		}
	}
	return false
}

func isTerminal(f *os.File) bool {
	if v := os.Getenv("WS_FORCE_TTY"); v != "" {
		return v == "1" || v == "true"
	}
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}
