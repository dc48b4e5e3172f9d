package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/js"
	"github.com/wstools/ws/pkg/procstate"
)

// SendInputResult is the outcome of send.
type SendInputResult struct {
	PID    int  `json:"pid"`
	Bytes  int  `json:"bytes"`  // written to the process's stdin
	Closed bool `json:"closed"` // its stdin is closed now
	// TTY: the process runs on a terminal, which eof does not close: it
	// sends the terminal's end-of-file character, ^D, after the input.
	TTY bool `json:"tty,omitempty"`
	textOut
}

// sendTimeout is how long a send waits, by default, for the process to
// take a write (or for another send to finish).
const sendTimeout = 10 * time.Second

// SendInput writes text to the stdin of a background process started
// with a stdin pipe, and with eof closes it afterwards (the process reads
// end of file once it has read what was sent). To a process on a
// terminal (tty) it writes the same way, and eof sends ^D after the
// text, in the same write: the terminal stays open. req.Source (ws send -) is
// streamed as it is read, until its end. A write the process does not
// take within the timeout (default 10 s) fails, saying how much went in.
func (w *Workspace) SendInput(ctx context.Context, req SendInputRequest) (*SendInputResult, error) {
	e, err := w.processOf(req.PID)
	if err != nil {
		return nil, err
	}
	if e.Exit != nil {
		return nil, exitedStdin(e)
	}
	if !e.Record.SupervisorRunning() {
		return nil, w.stdinGone(e)
	}
	dir := w.procStore().Dir(e.Record.ID)
	eof := req.EOF != nil && *req.EOF
	stall := sendTimeout
	if req.Timeout != nil {
		stall = time.Duration(*req.Timeout * float64(time.Second))
	}
	res := &SendInputResult{PID: e.Record.PID, TTY: e.Record.TTY}
	if src := req.source(); src != nil || !eof || e.Record.TTY {
		if src == nil {
			src = strings.NewReader("")
		}
		// On a terminal the ^D goes after the input, under the same lock,
		// and does not count as input. With the text it is one write: a
		// line-editing program (readline) that reads the text then sets
		// the terminal back to its cooked mode while it runs the line,
		// and a ^D that came after that would be taken as the cooked
		// mode's end of file, which the program, reading raw again, never
		// sees (a ^D written with the text stays a byte for it to read).
		ttyEOF := eof && e.Record.TTY
		if ttyEOF && req.Source == nil {
			src = strings.NewReader(req.Input + procstate.EOFChar)
		} else if ttyEOF {
			src = io.MultiReader(src, strings.NewReader(procstate.EOFChar))
		}
		n, err := procstate.SendInput(ctx, dir, src, stall)
		if ttyEOF && err == nil {
			n-- // the ^D, the last byte, went in too
		}
		res.Bytes = int(n)
		if errors.Is(err, procstate.ErrStdinClosed) && !e.Record.SupervisorRunning() {
			return nil, w.stdinGone(e) // it went while the send ran
		}
		if err != nil {
			return nil, w.sendError(ctx, req.PID, n, stall, err)
		}
	}
	if eof && !e.Record.TTY {
		if err := w.closeStdin(ctx, e, dir); err != nil {
			return nil, err
		}
		res.Closed = true
	}
	switch {
	case eof && e.Record.TTY && req.Input == "" && req.Source == nil:
		res.text = fmt.Sprintf("Sent EOF (^D) to the terminal of process %s.", req.PID)
	case eof && e.Record.TTY:
		res.text = fmt.Sprintf("Sent %d bytes to process %s, then EOF (^D) to its terminal.", res.Bytes, req.PID)
	case eof && req.Input == "" && req.Source == nil:
		res.text = fmt.Sprintf("Closed the stdin of process %s.", req.PID)
	case eof:
		res.text = fmt.Sprintf("Sent %d bytes to process %s and closed its stdin.", res.Bytes, req.PID)
	default:
		res.text = fmt.Sprintf("Sent %d bytes to process %s.", res.Bytes, req.PID)
	}
	return res, nil
}

// exitedStdin is the error of a send to a process that has exited.
func exitedStdin(e *procstate.Entry) error {
	return errs.StdinClosed(strconv.Itoa(e.Record.PID), "the process has exited, exit code "+strconv.Itoa(e.Exit.ExitCode))
}

// stdinGone is the error of a send to a process whose supervisor, which
// passes the input on, is gone. Read again, the record tells a
// supervisor that recorded the exit and left from one that was killed.
func (w *Workspace) stdinGone(e *procstate.Entry) error {
	cur, err := w.reload(e)
	switch {
	case err != nil:
		return err
	case cur.Exit != nil:
		return exitedStdin(cur)
	}
	return errs.StdinClosed(strconv.Itoa(e.Record.PID), "its supervisor is gone: it was killed, so nothing passes input on")
}

// source is what a send writes: req.Source, else req.Input (nil: nothing).
func (req SendInputRequest) source() io.Reader {
	switch {
	case req.Source != nil:
		return req.Source
	case req.Input != "":
		return strings.NewReader(req.Input)
	}
	return nil
}

// loaded is the request with a streamed input read in full, for what
// needs all of it at once (the arguments shown to hooks and an approver).
func (req SendInputRequest) loaded() (any, error) {
	if req.Source == nil {
		return req, nil
	}
	data, err := io.ReadAll(req.Source)
	req.Input, req.Source = string(data), nil
	return req, err
}

// sendError is the error of a send that wrote sent bytes and then failed
// with err; stall is the wait it had.
func (w *Workspace) sendError(ctx context.Context, pid string, sent int64, stall time.Duration, err error) error {
	timeout := "timeout"
	if dialectOf(ctx) == CLIFlags {
		timeout = "--timeout"
	}
	var src *procstate.SourceError
	switch {
	case errors.Is(err, procstate.ErrNoStdin):
		how := "stdinPipe=true or tty=true (and background=true)"
		if dialectOf(ctx) == CLIFlags {
			how = "ws exec --background --stdin-pipe (or --tty)"
		}
		return errs.NoStdinPipe(pid, how)
	case errors.Is(err, procstate.ErrStdinClosed) && sent > 0:
		return errs.StdinClosed(pid, fmt.Sprintf("the process stopped reading it after %d bytes went in", sent))
	case errors.Is(err, procstate.ErrStdinClosed):
		return errs.StdinClosed(pid, "it was closed with eof, or the process stopped reading it")
	case errors.Is(err, procstate.ErrStdinStalled):
		return errs.StdinStalled(pid, sent, js.FormatNumber(stall.Seconds()), timeout)
	case errors.Is(err, procstate.ErrStdinBusy):
		return errs.StdinBusy(pid, js.FormatNumber(stall.Seconds()), timeout)
	case errors.As(err, &src):
		return errs.IOFailed("read", "the input", src.Err)
	case ctx.Err() != nil:
		return errs.InterruptedBy(context.Cause(ctx), fmt.Sprintf("writing to the stdin of process %s (%d bytes went in)", pid, sent))
	}
	return errs.IOFailed("send", "the stdin of process "+pid, err)
}

// closeStdin asks the supervisor to close the process's stdin once what
// was sent has been passed on, and waits until it has.
func (w *Workspace) closeStdin(ctx context.Context, e *procstate.Entry, dir string) error {
	pid := strconv.Itoa(e.Record.PID)
	if _, err := os.Lstat(filepath.Join(dir, procstate.StdinName)); err != nil {
		return w.sendError(ctx, pid, 0, 0, procstate.ErrNoStdin)
	}
	mark := filepath.Join(dir, procstate.StdinClosed)
	if _, err := os.Stat(mark); err == nil {
		return nil // already closed
	}
	if !e.Record.SupervisorRunning() {
		return w.stdinGone(e)
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
			return errs.InterruptedBy(context.Cause(ctx), "closing the stdin of process "+pid)
		case <-time.After(10 * time.Millisecond):
		}
	}
}
