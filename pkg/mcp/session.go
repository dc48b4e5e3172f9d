package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// session is one session of the HTTP transport: a Handler of its own,
// which answers the messages its POSTs carry.
type session struct {
	id  string // random: knowing it is what makes a request the session's
	h   *Handler
	srv *httpServer
	// ctx is the calls' context: not a request's (a client whose
	// connection drops has not cancelled its call, MCP says; it sends
	// notifications/cancelled), not the server's (the calls in flight
	// finish when the server stops). Closing the session cancels it.
	ctx    context.Context
	cancel context.CancelFunc

	mu        sync.Mutex
	active    int // POSTs being served
	timeout   time.Duration
	idleSince time.Time   // when active last fell to 0
	idle      *time.Timer // closes the session once idle for timeout
	init      *time.Timer // closes it when not initialized in time
	closed    bool
}

func newSession(s *httpServer) *session {
	id := rand.Text()
	ws := s.ws
	if ws.Thread() == "" {
		// Each client is an agent of its own: one that has not read a
		// file may not overwrite it on the strength of another's read.
		// A --thread given to ws mcp is shared, as asked.
		ws = ws.ForThread("mcp-session:" + id)
	}
	ss := &session{id: id, h: NewHandler(ws, s.version), srv: s}
	ss.h.progressEvery = s.opts.progressEvery()
	ss.ctx, ss.cancel = context.WithCancel(context.Background())
	ss.h.setSender(sendOnStream)
	return ss
}

// start runs the session's clocks, once its initialize is answered.
func (ss *session) start(initTimeout, idleTimeout time.Duration) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if initTimeout > 0 {
		ss.init = time.AfterFunc(initTimeout, func() {
			if !ss.h.initialized() {
				ss.close()
			}
		})
	}
	if idleTimeout > 0 {
		ss.timeout = idleTimeout
		ss.idleSince = time.Now()
		ss.idle = time.AfterFunc(idleTimeout, ss.expire)
	}
}

// expire is the idle timer's: it closes the session if it has been idle
// for the whole timeout. The timer may fire late: after a request has
// entered (its Stop came too late), or from before it was set again.
func (ss *session) expire() {
	ss.closeIf(func() bool { return ss.active == 0 && time.Since(ss.idleSince) >= ss.timeout })
}

func (ss *session) isClosed() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.closed
}

// enter counts a request in the session (false: it is closed); the
// session is not idle until the request leaves.
func (ss *session) enter() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.closed {
		return false
	}
	ss.active++
	if ss.idle != nil {
		ss.idle.Stop()
	}
	return true
}

func (ss *session) leave() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.active--
	if ss.active == 0 && ss.idle != nil && !ss.closed {
		ss.idleSince = time.Now()
		ss.idle.Reset(ss.timeout)
	}
}

// close ends the session: its id is unknown from now on, its calls are
// cancelled (they still answer, on their POSTs' streams), and a call
// waiting for the client's answer gets none.
func (ss *session) close() { ss.closeIf(func() bool { return true }) }

// closeIf is close when cond, which runs with ss.mu held, is true.
func (ss *session) closeIf(cond func() bool) {
	ss.mu.Lock()
	if ss.closed || !cond() {
		ss.mu.Unlock()
		return
	}
	ss.closed = true
	for _, t := range []*time.Timer{ss.idle, ss.init} {
		if t != nil {
			t.Stop()
		}
	}
	ss.mu.Unlock()
	ss.srv.remove(ss.id)
	ss.cancel()
	ss.h.endInput()
}

// serve answers a POST of the session: body is one JSON-RPC message, or
// a batch (only in a session of a revision before 2025-06-18, which
// dropped them).
//
// Notifications and responses are taken (202); when no message of the
// body could be read, the errors are the answer (400). Requests are
// answered with JSON, except those that run a tool: their answer is an
// SSE stream, which carries the call's questions to the client before
// the answer itself (none when the client cancelled the call).
func (ss *session) serve(w http.ResponseWriter, body []byte) {
	if v := ss.h.negotiated(); bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) && !hasBatches(v) {
		writeRPCError(w, http.StatusBadRequest, nullID, codeInvalidRequest,
			fmt.Sprintf("Invalid Request: MCP %s has no batches: send one message per POST", v))
		return
	}
	st := &stream{w: w}
	defer st.end()
	j := ss.h.accept(context.WithValue(ss.ctx, streamKey{}, st), body)
	if j.calls() == 0 {
		if answer := j.answer(); answer != nil {
			writeJSON(w, http.StatusBadRequest, answer)
		} else {
			w.WriteHeader(http.StatusAccepted)
		}
		return
	}
	if !j.slow {
		if answer := j.answer(); answer != nil {
			writeJSON(w, http.StatusOK, answer)
		} else {
			w.WriteHeader(http.StatusAccepted)
		}
		return
	}
	st.begin()
	st.send(j.answer())
}

// streamKey is the context key of the stream a call's messages go on.
type streamKey struct{}

var (
	errNoStream    = errors.New("the request has no stream to carry a question to the client")
	errStreamEnded = errors.New("the call's stream has ended")
)

// sendOnStream sends a message of the server's (a question, or its
// withdrawal) on the stream of the POST that carries the call; ctx is
// the call's (see serve).
func sendOnStream(ctx context.Context, msg []byte) error {
	st, _ := ctx.Value(streamKey{}).(*stream)
	if st == nil {
		return errNoStream
	}
	return st.send(msg)
}

// stream is the SSE answer of a POST: each message an event of type
// message whose data is the JSON (one line: the JSON ws writes is
// compact). Messages may come from any goroutine; none once the POST's
// handler has returned.
type stream struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	begun   bool
	ended   bool
	broken  error         // the write that failed
	stopped chan struct{} // closed when the stream ends: no more keep-alives
}

// keepAlive is how often a stream with nothing to say sends a comment
// (which clients ignore), so that a client or proxy that gives up on a
// silent response keeps a long call's: Node's fetch, which the official
// TypeScript client uses, waits 5 minutes at most.
var keepAlive = 25 * time.Second

// writeStall is how long a write of a stream may go without the client
// taking any of it before the stream is dropped as broken.
var writeStall = 30 * time.Second

// begin sends the response's header, at once: the client knows the
// answer is a stream while the call runs.
func (st *stream) begin() {
	st.mu.Lock()
	defer st.mu.Unlock()
	h := st.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	st.w.WriteHeader(http.StatusOK)
	st.broken = st.write()
	st.begun = true
	st.stopped = make(chan struct{})
	go st.keepAlive(keepAlive)
}

func (st *stream) keepAlive(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-st.stopped:
			return
		case <-t.C:
		}
		st.mu.Lock()
		if !st.ended && st.broken == nil {
			st.broken = st.write([]byte(": keep-alive\n\n"))
		}
		st.mu.Unlock()
	}
}

// send writes msg as an event (nil: nothing).
func (st *stream) send(msg []byte) error {
	if msg == nil {
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	switch {
	case !st.begun || st.ended:
		return errStreamEnded
	case st.broken != nil:
		return st.broken
	}
	st.broken = st.write([]byte("event: message\ndata: "), msg, []byte("\n\n"))
	return st.broken
}

// writeChunk is how much of a message goes out under one write deadline.
const writeChunk = 64 << 10

// write writes parts and flushes them; st.mu is held. The client must
// take writeChunk bytes (or the rest) within writeStall, or the write
// fails: a client that stops reading (asleep, or hostile) would otherwise
// hold the call's handler, its place at the gate and the server's drain
// for ever.
func (st *stream) write(parts ...[]byte) error {
	rc := http.NewResponseController(st.w)
	defer rc.SetWriteDeadline(time.Time{}) // the connection may serve more requests
	for _, p := range parts {
		for len(p) > 0 {
			n := min(len(p), writeChunk)
			rc.SetWriteDeadline(time.Now().Add(writeStall))
			if _, err := st.w.Write(p[:n]); err != nil {
				return err
			}
			p = p[n:]
		}
	}
	rc.SetWriteDeadline(time.Now().Add(writeStall))
	return rc.Flush()
}

// end closes the stream to messages: its POST's handler returns.
func (st *stream) end() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.ended = true
	if st.stopped != nil {
		close(st.stopped)
	}
}
