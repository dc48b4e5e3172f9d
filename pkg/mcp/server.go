package mcp

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"sync"

	"github.com/wstools/ws/pkg/workspace"
)

// Serve runs an MCP session on a stdio pair (ws's stdin and stdout): one
// JSON-RPC message per line each way. A line that is not JSON is
// answered with a parse error and the session goes on. Tool calls are
// answered as they finish, so a long command holds up neither the
// messages after it nor their cancellation; everything else is answered
// in order. Serve returns when in ends, once every answer is written.
func Serve(ctx context.Context, ws *workspace.Workspace, version string, in io.Reader, out io.Writer) error {
	h := NewHandler(ws, version)
	w := &lineWriter{w: out}
	r := bufio.NewReaderSize(in, 64<<10)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		line, err := r.ReadBytes('\n')
		if msg := bytes.TrimSpace(line); len(msg) > 0 {
			j := h.accept(ctx, msg)
			if j.slow {
				wg.Go(func() { w.write(j.answer()) })
			} else {
				w.write(j.answer())
			}
		}
		if werr := w.failed(); werr != nil {
			cancel() // nobody is reading the answers
			return werr
		}
		if err == io.EOF {
			wg.Wait()
			return w.failed()
		}
		if err != nil {
			return err
		}
	}
}

// lineWriter writes whole messages, one per line, from any goroutine;
// after a failed write it writes nothing more.
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

func (l *lineWriter) write(msg []byte) {
	if msg == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		_, l.err = l.w.Write(append(msg, '\n'))
	}
}

func (l *lineWriter) failed() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}
