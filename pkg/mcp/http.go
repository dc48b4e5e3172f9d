package mcp

import (
	"bytes"
	"cmp"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wstools/ws/pkg/workspace"
)

// HTTPOptions set up ServeHTTP.
type HTTPOptions struct {
	// Token is the bearer token every request must carry.
	Token string
	// MaxBodyBytes bounds a request's body (413 beyond it).
	MaxBodyBytes int64
	// MaxRequests bounds the POST requests handled at once. One beyond
	// waits up to a second for a place, then gets 429; as many may wait
	// as are handled, the rest get 429 at once.
	MaxRequests int
	// MaxSessions bounds the open sessions (503 for a new one beyond). A
	// session counts from the POST that opens it until it closes.
	MaxSessions int
	// InitTimeout closes a session whose client has not sent
	// notifications/initialized that long after its initialize (0: never).
	InitTimeout time.Duration
	// SessionTimeout closes a session idle that long (0: never).
	SessionTimeout time.Duration
	// Grace is how long, once the calls in flight have answered, the
	// server waits for their responses to be written before it closes.
	Grace time.Duration
}

// Path is where ServeHTTP serves MCP.
const Path = "/mcp"

// ServeHTTP serves the workspace's tools over MCP's streamable HTTP
// transport (the official Go SDK's) at Path on ln, until ctx is done;
// then it takes no new request, lets the tool calls in flight finish and
// answer, and returns.
//
// The tools are the stdio server's: the same list (names, descriptions,
// schemas, annotations, from NewHandler) and the same call (runTool, with
// approval through elicitation), so the two transports cannot drift
// apart; the SDK does the protocol and the HTTP sessions.
func ServeHTTP(ctx context.Context, ws *workspace.Workspace, version string, ln net.Listener, opts HTTPOptions) error {
	h := NewHandler(ws, version)
	bound := &sessionBound{max: opts.MaxSessions, initTimeout: opts.InitTimeout, initialized: map[string]bool{}}
	srv := sdk.NewServer(&sdk.Implementation{Name: h.result.ServerInfo.Name, Title: h.result.ServerInfo.Title, Version: version},
		&sdk.ServerOptions{
			Instructions:       h.result.Instructions,
			Capabilities:       &sdk.ServerCapabilities{Logging: &sdk.LoggingCapabilities{}, Tools: &sdk.ToolCapabilities{}},
			InitializedHandler: func(_ context.Context, req *sdk.InitializedRequest) { bound.markInitialized(req.Session.ID()) },
		})
	for _, t := range h.tools {
		schema, err := json.Marshal(t.InputSchema)
		if err != nil {
			return err
		}
		name := t.Name
		srv.AddTool(&sdk.Tool{
			Name:        t.Name,
			Description: t.Description,
			InputSchema: json.RawMessage(schema),
			Annotations: &sdk.ToolAnnotations{ReadOnlyHint: t.Annotations.ReadOnlyHint, IdempotentHint: t.Annotations.IdempotentHint},
		}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			res := h.runTool(ctx, name, req.Params.Arguments, sessionApprover(ctx, req.Session))
			data, err := marshal(res)
			if err != nil {
				return nil, err
			}
			out := &sdk.CallToolResult{}
			return out, json.Unmarshal(data, out)
		})
	}
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv },
		&sdk.StreamableHTTPOptions{MaxRequestBodyBytes: opts.MaxBodyBytes, SessionTimeout: opts.SessionTimeout})

	// Requests in flight: the POSTs, which carry the calls; a GET is a
	// stream for server messages and holds nothing up.
	posts := &gate{max: opts.MaxRequests}
	mux := http.NewServeMux()
	mux.Handle(Path, bearer(opts.Token, limits(posts, bound, srv, opts.MaxBodyBytes, mcpHandler)))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	// Drain: no new connection or request; the calls in flight finish
	// (their contexts are not the server's), answer, and the server closes.
	idle := posts.close()
	shut := make(chan error, 1)
	go func() {
		sctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() { <-idle; time.Sleep(opts.Grace); cancel() }()
		shut <- hs.Shutdown(sctx)
	}()
	<-shut
	hs.Close() // the GET streams left
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// sessionBound counts the open sessions, up to max (0: no bound). A slot
// is reserved before the SDK opens a session, so concurrent POSTs cannot
// overshoot, and released when the session closes (or was never opened).
type sessionBound struct {
	max         int
	initTimeout time.Duration

	mu          sync.Mutex
	n           int
	initialized map[string]bool // by session id, while the session is open
}

func (b *sessionBound) reserve() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.max > 0 && b.n >= b.max {
		return false
	}
	b.n++
	return true
}

func (b *sessionBound) release(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n--
	delete(b.initialized, id)
}

func (b *sessionBound) markInitialized(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.initialized[id] = true
}

func (b *sessionBound) isInitialized(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.initialized[id]
}

// limits bounds the POSTs in flight (429 beyond) and the sessions (503
// for a new one beyond) in front of next, the SDK's handler.
//
// A POST without a session id may open a session. Its session slot is
// reserved before next sees the request and settled when the response
// starts, before the client can read it: the session the response names
// adopts the slot, or the slot comes back, and with it the POST's place
// among those in flight, as the SDK has then answered and only throws
// away the session it made for the request. So a client that has its
// answer is not refused its next request: the SDK's client sends
// server/discover first, which opens no session, then initialize and
// notifications/initialized, which may arrive while the discover's
// handler is still closing that session.
//
// This holds because the server is stateful with generated session ids:
// a request without a session id can only initialize (or be refused), it
// never runs a tool. A stateless server, or one whose GetSessionID gives
// "", would answer a sessionless tools/call with a header before the tool
// runs, and the bound on POSTs in flight would no longer bound tool calls.
func limits(posts *gate, bound *sessionBound, srv *sdk.Server, maxBody int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		// A POST that has to wait reads its body meanwhile: once the body
		// is read, the server notices a client that goes away (it cancels
		// the request's context), so the client's place among the waiting
		// comes back at once, not when the wait is over.
		gone, cancel := context.WithCancel(r.Context())
		defer cancel()
		readAhead := func() { r.Body = newAheadBody(r.Body, maxBody, cancel) }
		if status, msg := posts.enter(gone, readAhead); status != 0 {
			if status == http.StatusTooManyRequests {
				w.Header().Set("Retry-After", "1")
			}
			httpError(w, status, msg)
			return
		}
		leave := sync.OnceFunc(posts.leave)
		defer leave()
		if r.Header.Get("Mcp-Session-Id") != "" {
			next.ServeHTTP(w, r)
			return
		}
		if !bound.reserve() {
			refuseSession(w, r, bound.max)
			return
		}
		sw := &slotWriter{ResponseWriter: w, settle: func() {
			id := w.Header().Get("Mcp-Session-Id")
			bound.adopt(srv, id)
			if id == "" {
				leave()
			}
		}}
		defer sw.settled() // when the handler wrote nothing
		next.ServeHTTP(sw, r)
	})
}

// slotWriter runs settle once, when the response's header goes out (its
// WriteHeader, first Write or Flush) or, failing that, when told to.
type slotWriter struct {
	http.ResponseWriter
	once   sync.Once
	settle func()
}

func (w *slotWriter) settled() { w.once.Do(w.settle) }

func (w *slotWriter) WriteHeader(status int) {
	if status >= 200 { // an interim 1xx answer is not the response
		w.settled()
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *slotWriter) Write(p []byte) (int, error) {
	w.settled()
	return w.ResponseWriter.Write(p)
}

func (w *slotWriter) Flush() {
	w.settled()
	http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *slotWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// adopt ties the slot reserved for a POST without a session id to the
// session the SDK opened for it (id, from the response header): the slot
// comes back when that session closes, at once when the response names
// none (the request was refused, or was no initialize: the SDK closes the
// session it made for it, which the client cannot reach). A session not
// initialized within initTimeout is closed.
func (b *sessionBound) adopt(srv *sdk.Server, id string) {
	var ss *sdk.ServerSession
	if id != "" {
		for s := range srv.Sessions() {
			if s.ID() == id {
				ss = s
				break
			}
		}
	}
	if ss == nil {
		b.release(id)
		return
	}
	go func() {
		if b.initTimeout > 0 {
			t := time.AfterFunc(b.initTimeout, func() {
				if !b.isInitialized(id) {
					ss.Close()
				}
			})
			defer t.Stop()
		}
		ss.Wait()
		b.release(id)
	}()
}

// refuseSession answers a new session beyond the bound: 503 with a
// JSON-RPC error carrying the request's id when it can be read.
func refuseSession(w http.ResponseWriter, r *http.Request, max int) {
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	if body, err := io.ReadAll(io.LimitReader(r.Body, 64<<10)); err == nil {
		json.Unmarshal(body, &req)
	}
	if len(req.ID) == 0 {
		req.ID = json.RawMessage("null")
	}
	msg := fmt.Sprintf("too many sessions: %d are open (--max-sessions); close one or retry later", max)
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID,
		"error": map[string]any{"code": -32000, "message": msg}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", "1")
	w.WriteHeader(http.StatusServiceUnavailable)
	w.Write(append(body, '\n'))
}

// gate counts the requests in flight, up to max (0: no bound), and once
// closed lets none in. A request beyond the bound waits up to queueWait
// for a place before it is refused, and at most max requests wait: a
// client that sends its next request the moment it has an answer is not
// refused because the handler of that answer is still returning.
type gate struct {
	mu      sync.Mutex
	n, max  int
	wait    time.Duration // how long one beyond the bound waits (queueWait when 0)
	waiting int
	closed  bool
	freed   chan struct{} // closed (and replaced) when a place comes back or the gate closes
	idle    chan struct{} // closed when closed and n is 0
}

// queueWait is how long a request beyond the bound waits for a place.
const queueWait = time.Second

// enter lets a request in, or says with which HTTP status it is refused.
// A request that has to wait runs waiting (when not nil) first, once; it
// gives up when ctx is done.
func (g *gate) enter(ctx context.Context, waiting func()) (int, string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	var timeout <-chan time.Time
	for {
		switch {
		case g.closed:
			return http.StatusServiceUnavailable, "the server is shutting down"
		case g.max == 0 || g.n < g.max:
			g.n++
			return 0, ""
		case g.waiting >= g.max:
			return http.StatusTooManyRequests, "too many requests at once"
		}
		if timeout == nil {
			t := time.NewTimer(cmp.Or(g.wait, queueWait))
			defer t.Stop()
			timeout = t.C
		}
		if g.freed == nil {
			g.freed = make(chan struct{})
		}
		freed := g.freed
		g.waiting++
		g.mu.Unlock()
		if waiting != nil {
			waiting()
			waiting = nil
		}
		var gaveUp bool
		select {
		case <-freed:
		case <-timeout:
			gaveUp = true
		case <-ctx.Done():
			gaveUp = true
		}
		g.mu.Lock()
		g.waiting--
		if gaveUp && !g.closed && g.n >= g.max {
			return http.StatusTooManyRequests, "too many requests at once"
		}
	}
}

// aheadBody is a request body read ahead while its request waits for a
// place, up to a bound: the bytes read are handed on first, then the rest
// of the body as it comes (whoever reads it applies the body's own limit).
type aheadBody struct {
	body io.ReadCloser
	done chan struct{} // closed when the read ahead is over
	head []byte
	err  error
	rest io.Reader
}

// newAheadBody starts reading body ahead, at most max bytes (0: the SDK's
// default bound). failed is called when the body cannot be read (its
// client went away before sending all of it).
func newAheadBody(body io.ReadCloser, max int64, failed func()) *aheadBody {
	if max <= 0 {
		max = sdk.DefaultMaxRequestBodyBytes
	}
	b := &aheadBody{body: body, done: make(chan struct{})}
	go func() {
		defer close(b.done)
		b.head, b.err = io.ReadAll(io.LimitReader(body, max+1))
		if b.err != nil {
			failed()
		}
	}()
	return b
}

func (b *aheadBody) Read(p []byte) (int, error) {
	<-b.done
	if b.rest == nil {
		b.rest = io.MultiReader(bytes.NewReader(b.head), errReader{b.err}, b.body)
	}
	return b.rest.Read(p)
}

func (b *aheadBody) Close() error { return b.body.Close() }

// errReader fails with err, or is empty when err is nil.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	return 0, io.EOF
}

// wake tells the requests waiting that something changed; g.mu is held.
func (g *gate) wake() {
	if g.freed != nil {
		close(g.freed)
		g.freed = nil
	}
}

func (g *gate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n--
	g.wake()
	if g.closed && g.n == 0 {
		close(g.idle)
	}
}

// close lets no more requests in; the channel is closed once the last one
// has left.
func (g *gate) close() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	g.wake()
	g.idle = make(chan struct{})
	if g.n == 0 {
		close(g.idle)
	}
	return g.idle
}

// sessionApprover asks for approval through the SDK session's elicitation,
// as approver does over stdio.
func sessionApprover(ctx context.Context, ss *sdk.ServerSession) workspace.Approver {
	can := func() bool {
		p := ss.InitializeParams()
		if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil {
			return false
		}
		e := p.Capabilities.Elicitation
		return e.Form != nil || e.URL == nil
	}
	return approval(ctx, can, func(ctx context.Context, message string) (string, error) {
		res, err := ss.Elicit(ctx, &sdk.ElicitParams{Message: message, RequestedSchema: elicitSchema{Type: "object"}})
		if err != nil {
			return "", err
		}
		return res.Action, nil
	})
}

// bearer lets through the requests that carry the token.
func bearer(token string, next http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if token == "" || subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="ws"`)
			httpError(w, http.StatusUnauthorized, "a bearer token is required")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func httpError(w http.ResponseWriter, status int, msg string) {
	http.Error(w, msg, status)
}

// Loopback reports whether a listen address is on the loopback interface
// only: 127.0.0.0/8, ::1 or localhost. An empty host (every interface) is
// not.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
