package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/procstate"
	"github.com/wstools/ws/pkg/sandbox"
	"github.com/wstools/ws/pkg/statefile"
)

// startBackground starts the command under a supervisor (ws re-executing
// itself) in a new session, and returns as soon as the supervisor reports
// the command's pid. ws's own stdout and stderr are never passed on, so
// `$(ws exec --background …)` returns at once.
// backgroundGrace is the time a background command's supervisor gives
// it between TERM and KILL (a variable for tests).
var backgroundGrace = procstate.KillGrace

func (w *Workspace) startBackground(ctx context.Context, sb *sandbox.Sandbox, req ExecRequest, cwd string) (*ExecResult, error) {
	if len(w.superv) == 0 {
		return nil, errs.NoProcesses()
	}
	argv, err := sb.Argv(req.Command, cwd)
	if err != nil {
		return nil, sandboxError(err)
	}
	store := procstate.Open(w.stateDir)
	// Held until the record is made: see ws destroy, which holds it while
	// it stops the processes, as long as that takes; the wait is bounded
	// as a write lock's, and an interrupted ws starts nothing after it.
	ms := w.cfg.Tools.WriteLockTimeoutMs
	held, err := store.LockStart(ctx, time.Duration(ms)*time.Millisecond)
	switch {
	case errors.Is(err, statefile.ErrLockTimeout):
		return nil, errs.StartLockTimeout(ms)
	case err != nil && ctx.Err() != nil:
		return nil, errs.InterruptedBy(context.Cause(ctx), "waiting to start a background process")
	case err != nil:
		return nil, w.stateError(err)
	}
	defer held.Release()
	dir, err := store.NewDir()
	if err != nil {
		return nil, w.stateError(err)
	}
	spec := procstate.Spec{
		Argv: statefile.Strings(argv), Env: statefile.Strings(sb.Env(req.Env)), Dir: statefile.String(cwd),
		Command: statefile.String(req.Command), Root: statefile.String(w.fs.RealBase()), Thread: statefile.String(w.thread), TimeoutMs: procstate.Ms(w.backgroundTimeout(req.Timeout)),
		LogCap: procstate.DefaultLogCap, GraceMs: backgroundGrace.Milliseconds(),
		Stdin: req.StdinPipe != nil && *req.StdinPipe, TTY: req.TTY != nil && *req.TTY, SpareLeader: sb.Bwrapped(),
	}
	if n := w.cfg.Sandbox.BackgroundOutputBytes; n > 0 {
		spec.LogCap = n
	}
	var dispatcher []string
	if cb := w.cfg.Sandbox.BackgroundProcesses; cb.OnStdout != nil || cb.OnStderr != nil || cb.OnExit != nil {
		spec.Callbacks = &procstate.Callbacks{OnStdout: cb.OnStdout, OnStderr: cb.OnStderr, OnExit: cb.OnExit,
			Dir: statefile.String(w.base), Env: statefile.Strings(sb.Env(nil))}
		dispatcher = append(append([]string{}, w.superv[:len(w.superv)-1]...), "__callbacks")
	}
	if err := statefile.WriteJSON(filepath.Join(dir, "spec.json"), spec); err != nil {
		os.RemoveAll(dir)
		return nil, w.stateError(err)
	}
	pid, err := procstate.StartWith(w.superv, dispatcher, w.hostEnv, dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, errs.CommandFailed(err)
	}
	return &ExecResult{
		Command: Bytes(req.Command), Cwd: Bytes(cwd), Background: true, PID: pid,
		textOut: textOut{fmt.Sprintf("Started background process (PID: %d)", pid)},
	}, nil
}
