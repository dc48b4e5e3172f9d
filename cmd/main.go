package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/procstate"
	"github.com/wstools/ws/pkg/render"
	"github.com/wstools/ws/pkg/runner"
)

// Exit statuses.
const (
	exitOK       = 0
	exitFailure  = 1 // the tool did not do what was asked
	exitUsage    = 2 // bad flags, arguments, JSON or config
	exitApproval = 3 // approval refused
)

// exitCodes maps error codes to exit statuses; any other code is a failure.
var exitCodes = map[errs.Code]int{
	errs.InvalidArgument: exitUsage,
	errs.InvalidConfig:   exitUsage,
	errs.ApprovalRefused: exitApproval,
}

// usageError is a problem with the command line itself: Main prints it
// with the command's name and where its help is, and exits 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// ranError marks an error returned by a command's RunE: anything else
// Execute returns comes from cobra itself (an unknown command, a
// misplaced argument) and is a usage error.
type ranError struct{ err error }

func (r *ranError) Error() string { return r.err.Error() }
func (r *ranError) Unwrap() error { return r.err }

// reported wraps an error that has already been printed (as a JSON
// envelope or on stderr); Main only turns it into an exit status.
type reported struct{ err error }

func (r *reported) Error() string { return r.err.Error() }
func (r *reported) Unwrap() error { return r.err }

// exitStatusError ends ws with a status of its own choosing and nothing
// more printed (exec passes its command's status on).
type exitStatusError struct{ code int }

func (e *exitStatusError) Error() string { return "exit status " + strconv.Itoa(e.code) }

// batchGC is the GC percent of a run (Go's default is 100): a command
// that is over in milliseconds gains from collecting less often.
const batchGC = 400

// longRun gives back Go's default GC percent to a command that runs long
// with a small heap that turns over (a stream of results, a server, a
// supervisor): at batchGC it would hold five times its live heap, which
// --jsonl over a tree of logs took to 300 MB where 100 holds 140.
func longRun() { debug.SetGCPercent(100) }

// Main runs ws with os.Args and returns the exit status.
func Main() int {
	// ws is a short-lived batch process: trade some memory for less GC work
	// (longRun puts the default back for a command that runs long).
	debug.SetGCPercent(batchGC)
	stdio := &render.IO{
		In:     os.Stdin,
		Out:    os.Stdout,
		Err:    os.Stderr,
		InTTY:  isTerminal(os.Stdin),
		OutTTY: isTerminal(os.Stdout),
	}
	app := newApp(stdio)
	app.lastRun = true
	defer app.close()
	code := app.run(context.Background(), os.Args[1:])
	stopping.Lock() // not while a second signal ends ws: it has the status
	defer stopping.Unlock()
	return code
}

// stopping is taken for good by the second signal's path, which kills
// the foreground commands' process groups and then ws itself: a command
// killed so ends at once, and without the lock ws could exit with that
// command's status (137) before its own signal came.
var stopping sync.Mutex

// run executes one command line and returns the exit status: the one place
// that tells usage from failure and maps errors to statuses.
func (a *App) run(ctx context.Context, args []string) int {
	a.argv = args
	root := newRootFor(a, args)
	cmd, err, remote := a.remoteRun(ctx, root, args)
	if remote {
		return a.exitStatus(root, cmd, args, err)
	}
	if a.remoteAsked(args) {
		root = newRootFor(a, args) // the line was parsed once: afresh
	}
	// The first SIGINT/SIGTERM/SIGQUIT/SIGHUP cancels the running tool (exec stops its
	// command's process group, patch and undo finish or take back what they
	// wrote); handling then returns to the default, so a second signal ends
	// ws at once even if a tool is stuck. The same signal again within
	// runner.RepeatWindow is not a second one (timeout(1) sends it twice).
	// The context's cause names the signal (a *runner.SignalError), so
	// exec passes that very signal on to its command.
	if interruptible(root, args) {
		sctx, cancel := context.WithCancelCause(ctx)
		sigc := make(chan os.Signal, 1)
		runner.NotifyStops(sigc)
		// In the process's last run the watch lasts until it exits (a
		// first signal while ws finishes up is taken, a second ends it):
		// taking the handler off waits on os/signal's thread, ~0.15 ms.
		var done, finished <-chan struct{}
		finish := func() {}
		if !a.lastRun {
			done = sctx.Done()
			f := make(chan struct{})
			finished, finish = f, func() { close(f) }
		}
		go func() {
			select {
			case s := <-sigc:
				cancel(&runner.SignalError{Signal: s.(syscall.Signal)})
				passRepeats(sigc, s.(syscall.Signal), finished)
			case <-done:
			}
		}()
		defer func() {
			if !a.lastRun {
				signal.Stop(sigc)
			}
			finish()
			cancel(nil)
		}()
		ctx = sctx
	}
	root.SetArgs(args)
	root.SetIn(a.IO.In)
	root.SetOut(a.IO.Out)
	root.SetErr(a.IO.Err)
	cmd, err = root.ExecuteContextC(ctx)
	if err == nil && a.helpInRun != nil {
		err = a.helpInRun
	}
	return a.exitStatus(root, cmd, args, err)
}

// passRepeats takes the signals that come on sigc within
// runner.RepeatWindow of first and lets those that repeat it pass; the
// next signal ends ws at once, with that signal's default action, once the
// foreground commands' process groups are killed: they are not ws's, so
// without that what a command started would run on unwatched (ws mcp
// --http lets its calls finish on the first signal; a command may ignore
// the TERM of its grace period). It returns when finished is closed (nil:
// never).
func passRepeats(sigc chan os.Signal, first syscall.Signal, finished <-chan struct{}) {
	at, within := time.Now(), repeatWindow()
	for {
		select {
		case s := <-sigc:
			if s == first && time.Since(at) < within {
				continue
			}
			stopping.Lock() // for good: ws ends here
			procstate.KillForeground()
			signal.Stop(sigc)
			syscall.Kill(os.Getpid(), s.(syscall.Signal))
			return
		case <-finished:
			return
		}
	}
}

// repeatWindow is runner.RepeatWindow, or under tests the duration in
// WS_TEST_REPEAT_WINDOW: a script can then send the repeat once it sees the
// first signal arrive, however slow the machine, instead of racing 250 ms.
func repeatWindow() time.Duration {
	if testing.Testing() {
		if d, err := time.ParseDuration(os.Getenv("WS_TEST_REPEAT_WINDOW")); err == nil {
			return d
		}
	}
	return runner.RepeatWindow
}

// exitStatus reports err, what running cmd of the line args ended with,
// and returns the exit status: the one place that tells usage from failure
// and maps errors to statuses.
func (a *App) exitStatus(root, cmd *cobra.Command, args []string, err error) int {
	if err == nil {
		return exitOK
	}
	if cmd == nil {
		cmd = root
	}
	var st *exitStatusError
	if errors.As(err, &st) {
		return st.code
	}
	var ue *usageError
	var ran *ranError
	usage := errors.As(err, &ue) || !errors.As(err, &ran)
	code := exitFailure
	var sig *runner.SignalError
	switch c, ok := exitCodes[errs.CodeOf(err)]; {
	case usage:
		code = exitUsage
	case errors.As(err, &sig):
		code = 128 + int(sig.Signal) // as if the signal had ended ws
	case ok:
		code = c
	}
	var rep *reported
	if errors.As(err, &rep) {
		return code
	}
	if !usage {
		a.fail(commandTool(cmd), err)
		return code
	}
	msg := cmd.CommandPath() + ": " + err.Error()
	if (a.opts.json || jsonAsked(args)) && !a.stdoutIsProtocol {
		// --json promises one envelope on stdout, whatever happened.
		render.JSON(a.IO.Out, render.Envelope{Tool: commandTool(cmd), Output: msg,
			Error: &render.ErrorBody{Code: errs.InvalidArgument, Message: msg}})
		return code
	}
	fmt.Fprintf(a.IO.Err, "%s\nrun '%s --help'\n", msg, cmd.CommandPath())
	return code
}

// jsonAsked reports --json on a command line whose parsing failed before
// it reached the flag: the arguments are parsed again for that one flag.
func jsonAsked(args []string) bool {
	f := pflag.NewFlagSet("json", pflag.ContinueOnError)
	f.ParseErrorsAllowlist.UnknownFlags = true
	f.SetOutput(discard{})
	asked := f.Bool("json", false, "")
	_ = f.Parse(args)
	return *asked
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// commandTool is the tool a command runs, for envelopes: the table's id,
// else the name ws's own commands give their results ("ps", "history",
// "remote install"), so a usage error's envelope names what the same
// command's success does. The root and call (whose envelopes name the
// tool called) have none.
func commandTool(cmd *cobra.Command) string {
	if t := cmd.Annotations["tool"]; t != "" || !cmd.HasParent() || cmd.Name() == "call" {
		return t
	}
	return strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
}

func isTerminal(f *os.File) bool {
	if v := os.Getenv("WS_FORCE_TTY"); v != "" {
		return v == "1" || v == "true"
	}
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// interruptibleKey is the annotation of a command that must not simply
// die on a signal: one whose tool watches its context (a shell command, a
// wait, a long walk or upload, an MCP session; see ToolSpec.Cancellable),
// or one that changes several files and takes back its writes when it
// cannot finish. Tool commands get it from their table entry, the others
// where they are made. The rest keep the default SIGINT and SIGTERM:
// os/signal's goroutines and the thread they hold cost every run about
// 0.4 ms of start-up, and a read, a stat or one atomic write gains nothing
// from being cancelled instead of ended.
const interruptibleKey = "interruptible"

// interruptible reports whether args run a command marked (or below a
// command marked) with interruptibleKey.
func interruptible(root *cobra.Command, args []string) bool {
	c, _, err := root.Find(args)
	if err != nil {
		return false
	}
	for ; c != nil && c != root; c = c.Parent() {
		if c.Annotations[interruptibleKey] != "" {
			return true
		}
	}
	return false
}
