package mcp

import (
	"context"
	"io"
	"sync"

	"github.com/wstools/ws/pkg/internal/jsonenc"
	"github.com/wstools/ws/pkg/workspace"
)

// Serve runs an MCP session on a stdio pair (ws's stdin and stdout): one
// JSON-RPC message per line each way. A line that is not JSON is
// answered with a parse error and the session goes on. Tool calls are
// answered as they finish, so a long command holds up neither the
// messages after it nor their cancellation; everything else is answered
// in order. Serve returns when in ends, once every answer is written, or
// when ctx is cancelled (a signal: the session ends as it would on EOF,
// and nil is returned), once the calls it stops have answered. Its error
// is that of a write, when the client stopped reading, or errReaderGone
// when out (a pipe or a socket) lost its reader: then too the calls in
// flight are stopped.
func Serve(ctx context.Context, ws *workspace.Workspace, version string, in io.Reader, out io.Writer, opts Options) error {
	h := NewHandler(ws, version)
	h.progressEvery = opts.progressEvery()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// An answer that cannot be written (the client stopped reading)
	// stops the calls still running at once: nobody will read theirs.
	w := &lineWriter{w: out, failed: cancel}
	// Nor can a client that has gone read them, even if nothing is
	// written until a long call ends.
	defer watchReader(out, func() { w.fail(errReaderGone) })()
	h.setSender(func(_ context.Context, msg []byte) error { return w.send(msg) })
	// Reading has a goroutine of its own: a read of stdin cannot be
	// interrupted, and a cancelled ctx must not wait for the next line.
	lines := make(chan inLine)
	readErr := make(chan error, 1)
	go func() {
		lr := newLineReader(in)
		for {
			msg, tooLong, err := lr.next()
			if err != nil {
				readErr <- err
				return
			}
			select {
			case lines <- inLine{msg, tooLong}:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case <-ctx.Done():
			return w.err()
		case err := <-readErr:
			// Calls waiting for an answer of the client get none.
			h.endInput()
			if err != io.EOF {
				return err
			}
			wg.Wait()
			return w.err()
		case l := <-lines:
			msg := l.msg
			if msg == nil {
				w.write(l.tooLong)
				continue
			}
			if v := h.negotiated(); msg[0] == '[' && !hasBatches(v) {
				// MCP 2025-06-18 dropped batches, as the HTTP transport
				// says too; nothing of the array is run.
				b, _ := jsonenc.Marshal(errorResponse(nullID, errorf(codeInvalidRequest,
					"Invalid Request: MCP %s has no batches: send one message per line", v)))
				w.write(b)
				continue
			}
			j := h.accept(ctx, msg)
			if j.slow {
				wg.Go(func() { w.write(j.answer()) })
			} else {
				w.write(j.answer())
			}
			if err := w.err(); err != nil {
				return err // the calls are stopped (failed)
			}
		}
	}
}

// inLine is a line of input: a message, or the answer to a line too long
// to read.
type inLine struct {
	msg, tooLong []byte
}

// lineWriter writes whole messages, one per line, from any goroutine;
// after a failed write it writes nothing more, and calls failed once.
type lineWriter struct {
	mu     sync.Mutex
	w      io.Writer
	failed func()
	werr   error
}

func (l *lineWriter) write(msg []byte) {
	if msg == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.werr != nil {
		return
	}
	if _, l.werr = l.w.Write(append(msg, '\n')); l.werr != nil && l.failed != nil {
		l.failed()
	}
}

// fail makes the writer fail with err, as a write that failed would.
func (l *lineWriter) fail(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.werr == nil {
		l.werr = err
		if l.failed != nil {
			l.failed()
		}
	}
}

// send writes msg and says whether the writer still works.
func (l *lineWriter) send(msg []byte) error {
	l.write(msg)
	return l.err()
}

// err is the error of the write that failed, if one did.
func (l *lineWriter) err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.werr
}

// hasBatches reports whether the negotiated MCP revision v has JSON-RPC
// batches ("" before initialize: JSON-RPC's own rules); 2025-06-18 dropped
// them.
func hasBatches(v string) bool { return v == "" || v < "2025-06-18" }
