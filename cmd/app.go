package cmd

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/remote"
	"github.com/wstools/ws/pkg/render"
	"github.com/wstools/ws/pkg/workspace"
)

// App is what the commands share: the streams, the global options and the
// workspace they open (once, on first use).
type App struct {
	IO   *render.IO
	Now  func() time.Time
	opts globalOpts
	ws   *workspace.Workspace
	// noPrompt: never ask for approval on the terminal (ws mcp: a client
	// is waiting on the other end of stdio).
	noPrompt bool
	// stdoutIsProtocol: stdout carries JSON-RPC (ws mcp on stdio), so a
	// failure is told on stderr in text, --json or not: an envelope there
	// would be a message no client expects.
	stdoutIsProtocol bool
	// session is the remote session this ws serves (ws __remote): the
	// caller's local input files come from it.
	session *remote.Session
	// lastRun: the process ends once run returns (Main), so run leaves
	// its signal handling in place rather than taking it off.
	lastRun bool
	// helpInRun is the usage error of an -h that came inside a run of
	// short flags (see helpFunc): no help was shown.
	helpInRun error
	// argv is the command line being run (after ws), for the errors of
	// flags that want its words as typed (see flagError).
	argv []string
}

type globalOpts struct {
	root, config, stateDir, thread, remote string
	json, yes                              bool
}

func newApp(stdio *render.IO) *App {
	return &App{IO: stdio, Now: clock()}
}

// clock is the wall clock, or under tests a fixed time from WS_TEST_NOW
// (RFC 3339), so goldens don't depend on the day they run.
func clock() func() time.Time {
	if testing.Testing() {
		if v := os.Getenv("WS_TEST_NOW"); v != "" {
			if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
				return func() time.Time { return t }
			}
		}
	}
	return time.Now
}

func (a *App) close() {
	if a.ws != nil {
		a.ws.Close()
	}
}

// bindGlobalFlags declares the flags every subcommand takes, defaulting to
// their environment variables.
func (a *App) bindGlobalFlags(cmd *cobra.Command) {
	f := cmd.PersistentFlags()
	f.StringVar(&a.opts.root, "root", os.Getenv("WS_ROOT"), "workspace root (env WS_ROOT; default: the current directory)")
	f.StringVar(&a.opts.config, "config", os.Getenv("WS_CONFIG"), "JSON config file (env WS_CONFIG)")
	f.StringVar(&a.opts.stateDir, "state-dir", os.Getenv("WS_STATE_DIR"), "state directory (env WS_STATE_DIR; default under $XDG_STATE_HOME/ws)")
	f.StringVar(&a.opts.thread, "thread", os.Getenv("WS_THREAD"), "thread id: scopes the read tracker and names the upload directory (env WS_THREAD)")
	f.StringVar(&a.opts.remote, "remote", os.Getenv("WS_REMOTE"), "run the command in a remote workspace: ssh://[user@]host[:port]/path or exec:PREFIX (env WS_REMOTE)")
	f.BoolVar(&a.opts.json, "json", false, "print one JSON envelope instead of text")
	f.BoolVar(&a.opts.yes, "yes", false, "approve tools that require approval without asking")
}

// Workspace opens the workspace the global options describe.
func (a *App) Workspace() (*workspace.Workspace, error) {
	if a.ws != nil {
		return a.ws, nil
	}
	cfg := config.Default()
	if a.opts.config != "" {
		c, err := config.Load(a.opts.config, workspace.ConfigKeys())
		if err != nil {
			return nil, errs.Config(err)
		}
		cfg = c
	}
	root := a.opts.root
	if root == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, errs.NoWorkingDir(err)
		}
		root = wd
	}
	home, _ := os.UserHomeDir()
	stateDir := a.opts.stateDir
	if stateDir == "" {
		stateDir = workspace.DefaultStateDir(root, os.Getenv("XDG_STATE_HOME"), home, os.TempDir())
		if err := workspace.CheckDefaultStateDir(stateDir, os.TempDir()); err != nil {
			return nil, err
		}
	} else if abs, err := filepath.Abs(stateDir); err == nil {
		stateDir = abs
	}
	ws, err := workspace.New(workspace.Options{
		Root:       root,
		Home:       home,
		Config:     cfg,
		ConfigFile: a.opts.config,
		StateDir:   stateDir,
		Thread:     a.opts.thread,
		Now:        a.Now,
		HostEnv:    os.Environ(),
		Supervisor: supervisorArgv(),
		Launcher:   launcherArgv(),
		Approve:    a.approver(),
		Warn:       func(msg string) { render.Error(a.IO, errors.New("warning: "+msg)) },
	})
	if err != nil {
		return nil, err
	}
	a.ws = ws
	return ws, nil
}

// supervisorArgv runs this same binary as `ws __supervise`: the path of
// the executable, then argv (whose first word stays "ws", which is also how
// the test binary knows to act as ws).
func supervisorArgv() []string {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	return []string{exe, "ws", "__supervise"}
}

// launcherArgv runs this same binary as `ws __landlock`, the launcher that
// confines itself with Landlock and then executes the command. Its argv[0]
// is the executable's path (a test binary acts as ws on seeing
// __landlock as its first argument).
func launcherArgv() []string {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	return []string{exe, "__landlock"}
}

// runTool runs one tool by id with req, the request its subcommand's
// flags filled, and prints the outcome. Its hints name the flags.
func (a *App) runTool(ctx context.Context, id string, req any) error {
	_, err := a.runToolResult(ctx, id, req)
	return err
}

// runToolResult is runTool that also hands back the result.
func (a *App) runToolResult(ctx context.Context, id string, req any) (workspace.Result, error) {
	ws, err := a.Workspace()
	if err != nil {
		return nil, a.fail(id, err)
	}
	ctx = workspace.WithDialect(ctx, workspace.CLIFlags)
	if a.session != nil {
		ctx = workspace.ServedRemotely(ctx)
	}
	res, err := ws.Run(ctx, id, req)
	return res, a.printRun(id, res, err)
}

// printRun prints the outcome of a tool its subcommand ran, as print does,
// except that an argument the tool refused is a usage error: told as a
// bad flag is, with the command's name and where its help is (exit 2).
func (a *App) printRun(tool string, res workspace.Result, err error) error {
	if err != nil && errs.CodeOf(err) == errs.InvalidArgument {
		return &usageError{msg: err.Error()}
	}
	return a.print(tool, res, err)
}

// print renders an outcome; an error comes back marked as reported, so
// Main only maps it to an exit status.
func (a *App) print(tool string, res workspace.Result, err error) error {
	if perr := render.Result(a.IO, a.opts.json, tool, res, err); perr != nil {
		return perr
	}
	if err != nil {
		return &reported{err}
	}
	return nil
}

// fail reports an error that happened before a tool could run (a bad config,
// an unusable root) in the output mode asked for.
func (a *App) fail(tool string, err error) error {
	return a.print(tool, nil, err)
}

// openFile opens a file the command line names as a local input (upload
// FILE, --old-file …). Under ws __remote it is the caller's file, sent
// over the session.
func (a *App) openFile(path string) (io.ReadCloser, error) {
	if r, ok, err := a.session.Open(path); ok {
		return r, err
	}
	return os.Open(path)
}

// readFile reads a local input file whole, as os.ReadFile does.
func (a *App) readFile(path string) ([]byte, error) {
	if _, ok, _ := a.session.Open(path); !ok {
		return os.ReadFile(path)
	}
	r, err := a.openFile(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}
