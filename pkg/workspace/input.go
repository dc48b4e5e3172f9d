package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/procstate"
)

// SendInputResult is the outcome of send.
type SendInputResult struct {
	PID    int  `json:"pid"`
	Bytes  int  `json:"bytes"`  // written to the process's stdin
	Closed bool `json:"closed"` // its stdin is closed now
	textOut
}

// SendInput writes text to the stdin of a background process started
// with a stdin pipe, and with eof closes it afterwards (the process reads
// end of file once it has read what was sent).
func (w *Workspace) SendInput(ctx context.Context, req SendInputRequest) (*SendInputResult, error) {
	e, err := w.findProcess(req.PID)
	if err != nil {
		return nil, err
	}
	if e == nil {
		return nil, noProcess(req.PID)
	}
	if e.Exit != nil {
		return nil, errs.StdinClosed(req.PID, "the process has exited, exit code "+strconv.Itoa(e.Exit.ExitCode))
	}
	dir := w.procStore().Dir(e.Record.ID)
	eof := req.EOF != nil && *req.EOF
	if req.Input != "" || !eof {
		if err := procstate.SendInput(ctx, dir, []byte(req.Input)); err != nil {
			return nil, w.sendError(ctx, req.PID, err)
		}
	}
	res := &SendInputResult{PID: e.Record.PID, Bytes: len(req.Input)}
	if eof {
		if err := w.closeStdin(ctx, e, dir); err != nil {
			return nil, err
		}
		res.Closed = true
	}
	switch {
	case eof && req.Input == "":
		res.text = fmt.Sprintf("Closed the stdin of process %s.", req.PID)
	case eof:
		res.text = fmt.Sprintf("Sent %d bytes to process %s and closed its stdin.", res.Bytes, req.PID)
	default:
		res.text = fmt.Sprintf("Sent %d bytes to process %s.", res.Bytes, req.PID)
	}
	return res, nil
}

func (w *Workspace) sendError(ctx context.Context, pid string, err error) error {
	switch {
	case errors.Is(err, procstate.ErrNoStdin):
		how := "stdinPipe=true (and background=true)"
		if dialectOf(ctx) == CLIFlags {
			how = "ws exec --background --stdin-pipe"
		}
		return errs.NoStdinPipe(pid, how)
	case errors.Is(err, procstate.ErrStdinClosed):
		return errs.StdinClosed(pid, "it was closed with eof, or the process stopped reading it")
	case ctx.Err() != nil:
		return errs.Interrupted("writing to the stdin of process " + pid)
	}
	return errs.IOFailed("send", "the stdin of process "+pid, err)
}

// closeStdin asks the supervisor to close the process's stdin once what
// was sent has been passed on, and waits until it has.
func (w *Workspace) closeStdin(ctx context.Context, e *procstate.Entry, dir string) error {
	pid := strconv.Itoa(e.Record.PID)
	if _, err := os.Lstat(filepath.Join(dir, procstate.StdinName)); err != nil {
		return w.sendError(ctx, pid, procstate.ErrNoStdin)
	}
	mark := filepath.Join(dir, procstate.StdinClosed)
	if _, err := os.Stat(mark); err == nil {
		return nil // already closed
	}
	if !e.Record.SupervisorRunning() {
		return errs.StdinClosed(pid, "its supervisor is gone")
	}
	_ = syscall.Kill(e.Record.SupervisorPID, procstate.SignalCloseStdin)
	for deadline := time.Now().Add(10 * time.Second); ; {
		if _, err := os.Stat(mark); err == nil {
			return nil
		}
		if time.Now().After(deadline) || !e.Record.SupervisorRunning() {
			if _, err := os.Stat(mark); err == nil {
				return nil
			}
			return errs.StdinClosed(pid, "the supervisor did not close it in time")
		}
		select {
		case <-ctx.Done():
			return errs.Interrupted("closing the stdin of process " + pid)
		case <-time.After(10 * time.Millisecond):
		}
	}
}
