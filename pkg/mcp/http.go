package mcp

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wstools/ws/pkg/internal/jsonenc"
	"github.com/wstools/ws/pkg/workspace"
)

// HTTPOptions set up ServeHTTP.
type HTTPOptions struct {
	Options
	// Token is the bearer token every request must carry.
	Token string
	// MaxBodyBytes bounds a request's body (413 beyond it; 0:
	// DefaultMaxBodyBytes).
	MaxBodyBytes int64
	// MaxRequests bounds the POST requests handled at once. One beyond
	// waits up to a second for a place, then gets 429; as many may wait
	// as are handled, the rest get 429 at once. A POST that carries no
	// request (the client's answer to a question of the server's, a
	// notification) runs nothing and needs no place.
	MaxRequests int
	// MaxSessions bounds the open sessions (503 for a new one beyond). A
	// session counts from its initialize until it closes.
	MaxSessions int
	// InitTimeout closes a session whose client has not sent
	// notifications/initialized that long after its initialize (0: never).
	InitTimeout time.Duration
	// SessionTimeout closes a session idle that long (0: never): no POST
	// of the session in flight whose client is still connected, none
	// begun. Closing it cancels the calls its gone clients left.
	SessionTimeout time.Duration
	// Grace is how long, once the calls in flight have answered, the
	// server waits for their responses to be written before it closes.
	Grace time.Duration
}

// DefaultMaxBodyBytes bounds a request's body when HTTPOptions leave it
// 0: 4 MiB, the bound the official Go SDK's server has.
const DefaultMaxBodyBytes = 4 << 20

// connIdle is how long a connection may sit idle between requests
// before the server closes it: longer than the clients' own (Go's is 90 s,
// Node's 4 s), so that a client does not send on a connection being
// closed, but finite, so that idle connections do not pile up.
var connIdle = 2 * time.Minute

// bodyRead bounds the time a request's body may take to arrive (net/http
// bounds only the header's): a client that trickles a body would hold its
// connection for ever, even when refused unread (net/http reads up to 256
// KiB of a body it did not need, to reuse the connection). net/http lifts
// it once the body is in, as it starts watching for the client going
// away; so a call runs on past it.
var bodyRead = time.Minute

// Path is where ServeHTTP serves MCP.
const Path = "/mcp"

// The transport's headers.
const (
	sessionHeader = "Mcp-Session-Id"
	versionHeader = "Mcp-Protocol-Version"
)

// ServeHTTP serves the workspace's tools over MCP's streamable HTTP
// transport at Path on ln, until ctx is done; then it takes no new
// request, lets the tool calls in flight finish and answer, and returns.
//
// An initialize POSTed without a session id opens a session, named by
// the random Mcp-Session-Id its answer carries, which every later request
// of the session sends. Each session has a Handler of its own, the stdio
// server's: the same tools and the same calls, so the two transports
// cannot drift apart. A POST carries one JSON-RPC message (a batch, for a
// session of a revision before 2025-06-18). A request that runs a tool is
// answered on an SSE stream, which first carries the questions the call
// asks the client (elicitation, for approval); the client's answer comes
// in a POST of its own. Any other request is answered with JSON;
// notifications and responses get 202. DELETE ends a session. GET offers
// no stream (405): the server sends nothing outside a call.
func ServeHTTP(ctx context.Context, ws *workspace.Workspace, version string, ln net.Listener, opts HTTPOptions) error {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	s := &httpServer{ws: ws, version: version, opts: opts, sessions: map[string]*session{}}
	// Requests in flight: the POSTs, which carry the calls; a DELETE holds
	// nothing up.
	posts := &gate{max: opts.MaxRequests}
	mux := http.NewServeMux()
	// The body has its deadline; then a web page's request is refused
	// (MCP: 403 for a bad Origin, whatever else the request lacks), and
	// one without the token. None of these reads the body.
	mux.Handle(Path, readBy(sameHost(bearer(opts.Token, limitPosts(posts, opts.MaxBodyBytes, s)))))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: connIdle, MaxHeaderBytes: 64 << 10}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		s.each((*session).close)
		return err
	case <-ctx.Done():
	}
	// Drain: no new connection or request; the calls in flight finish
	// (their contexts are their sessions', not the server's), answer, and
	// the server closes. A call waiting for its client's answer gets none:
	// that answer would come in a POST, which is refused now.
	idle := posts.close()
	s.each(func(ss *session) { ss.h.endInput() })
	shut := make(chan error, 1)
	go func() {
		sctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() { <-idle; time.Sleep(opts.Grace); cancel() }()
		shut <- hs.Shutdown(sctx)
	}()
	<-shut
	hs.Close() // the connections of answers still being written
	s.each((*session).close)
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// httpServer is the MCP endpoint: the sessions and their requests.
type httpServer struct {
	ws      *workspace.Workspace
	version string
	opts    HTTPOptions

	mu       sync.Mutex
	sessions map[string]*session // by id
	opening  int                 // initialize requests being answered, each with a session slot
}

func (s *httpServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		s.post(w, r)
	case http.MethodDelete:
		s.delete(w, r)
	default:
		w.Header().Set("Allow", "POST, DELETE")
		httpError(w, http.StatusMethodNotAllowed, "Method Not Allowed: POST a JSON-RPC message, or DELETE a session (there is no stream to GET)")
	}
}

// post answers a POST: one JSON-RPC message for the session its header
// names, or an initialize that opens one.
func (s *httpServer) post(w http.ResponseWriter, r *http.Request) {
	if t, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); t != "application/json" {
		httpError(w, http.StatusUnsupportedMediaType, "Unsupported Media Type: the body must be application/json")
		return
	}
	if !acceptsBoth(r.Header.Values("Accept")) {
		httpError(w, http.StatusNotAcceptable, "Not Acceptable: Accept must allow both application/json and text/event-stream")
		return
	}
	var ss *session
	if id := r.Header.Get(sessionHeader); id != "" {
		if ss = s.enter(w, r, id); ss == nil {
			return
		}
		// A POST whose client has gone (its connection closed) no longer
		// keeps the session from idling. Its call goes on (a disconnection
		// is no cancellation, MCP says), but its answer has nowhere to go,
		// and a question it asks cannot be answered: the idle timeout ends
		// the session, and the call, unless the client comes back.
		leave := sync.OnceFunc(ss.leave)
		defer leave()
		defer context.AfterFunc(r.Context(), leave)()
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	if err != nil {
		if errors.As(err, new(*http.MaxBytesError)) {
			httpError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("Request Entity Too Large: the body exceeds %d bytes", s.opts.MaxBodyBytes))
		} else {
			httpError(w, http.StatusBadRequest, "Bad Request: reading the body: "+err.Error())
		}
		return
	}
	if ss == nil {
		s.open(w, body)
		return
	}
	ss.serve(w, body)
}

// enter finds the session a request names and counts the request in it.
// It answers the request itself, and returns nil, when the session is
// unknown (404: it ended, or never was) or the request's protocol version
// header names a version this server does not speak (400).
func (s *httpServer) enter(w http.ResponseWriter, r *http.Request, id string) *session {
	s.mu.Lock()
	ss := s.sessions[id]
	s.mu.Unlock()
	if ss == nil || !ss.enter() {
		httpError(w, http.StatusNotFound, "Not Found: no such session (it ended, or never began): initialize a new one")
		return nil
	}
	// Without the header the version is the one negotiated at initialize.
	if v := r.Header.Get(versionHeader); v != "" && !slices.Contains(protocolVersions, v) {
		ss.leave()
		httpError(w, http.StatusBadRequest, fmt.Sprintf("Bad Request: unsupported %s %q (this server speaks %s)", versionHeader, v, strings.Join(protocolVersions, ", ")))
		return nil
	}
	return ss
}

// open answers a POST without a session id. It must be an initialize
// request (400 otherwise: nothing else can be answered outside a
// session), which opens a session when there is room for one (503
// otherwise) and the handler accepts it; the session's id goes out in
// the answer's header. The protocol version header is not checked: the
// initialize negotiates the version.
func (s *httpServer) open(w http.ResponseWriter, body []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if err := json.Unmarshal(body, &m); err != nil || m.Method != "initialize" || !validID(m.ID) {
		if err != nil || !validID(m.ID) {
			m.ID = nullID
		}
		writeRPCError(w, http.StatusBadRequest, m.ID, codeInvalidRequest,
			"Bad Request: a message without the "+sessionHeader+" header must be an initialize request")
		return
	}
	if !s.reserve() {
		w.Header().Set("Retry-After", "1")
		writeRPCError(w, http.StatusServiceUnavailable, m.ID, -32000,
			fmt.Sprintf("too many sessions: %d are open (--max-sessions); close one or retry later", s.opts.MaxSessions))
		return
	}
	ss := newSession(s)
	answer := ss.h.Handle(ss.ctx, body)
	if ss.h.negotiated() == "" { // the initialize failed: no session
		s.settle(nil)
		ss.close()
		writeJSON(w, http.StatusOK, answer)
		return
	}
	s.settle(ss)
	w.Header().Set(sessionHeader, ss.id)
	writeJSON(w, http.StatusOK, answer)
}

// delete ends the session the request names.
func (s *httpServer) delete(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get(sessionHeader)
	if id == "" {
		httpError(w, http.StatusBadRequest, "Bad Request: DELETE needs the "+sessionHeader+" header of the session to end")
		return
	}
	ss := s.enter(w, r, id)
	if ss == nil {
		return
	}
	ss.leave()
	ss.close()
	w.WriteHeader(http.StatusNoContent)
}

// reserve takes a session slot for an initialize, if one is free.
func (s *httpServer) reserve() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.opts.MaxSessions > 0 && len(s.sessions)+s.opening >= s.opts.MaxSessions {
		return false
	}
	s.opening++
	return true
}

// settle ends an initialize: its session (nil: none) takes the slot, or
// the slot comes back.
func (s *httpServer) settle(ss *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opening--
	if ss != nil {
		s.sessions[ss.id] = ss
		ss.start(s.opts.InitTimeout, s.opts.SessionTimeout)
	}
}

// remove forgets a closed session, whose slot comes back.
func (s *httpServer) remove(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sessions, id)
}

// each runs f on every open session.
func (s *httpServer) each(f func(*session)) {
	s.mu.Lock()
	all := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		all = append(all, ss)
	}
	s.mu.Unlock()
	for _, ss := range all {
		f(ss)
	}
}

// acceptsBoth reports whether Accept headers allow both a JSON answer
// and an SSE stream, as MCP requires of a POST.
func acceptsBoth(values []string) bool {
	return accepts(values, "application", "json") && accepts(values, "text", "event-stream")
}

// accepts reports whether Accept headers allow the media type typ/sub:
// the most specific range that matches it (typ/sub, typ/*, */*; the first
// of equals) has a q-value above 0.
func accepts(values []string, typ, sub string) bool {
	best, q := -1, 0.0
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			rng, params, _ := strings.Cut(part, ";")
			t, s, _ := strings.Cut(strings.ToLower(strings.TrimSpace(rng)), "/")
			rank := -1
			switch {
			case t == typ && s == sub:
				rank = 2
			case t == typ && s == "*":
				rank = 1
			case t == "*" && s == "*":
				rank = 0
			}
			if rank > best {
				best, q = rank, qValue(params)
			}
		}
	}
	return best >= 0 && q > 0
}

// qValue is the q parameter among a media range's parameters (1 when
// absent or unreadable).
func qValue(params string) float64 {
	for _, p := range strings.Split(params, ";") {
		k, v, _ := strings.Cut(p, "=")
		if strings.EqualFold(strings.TrimSpace(k), "q") {
			if q, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
				return q
			}
			break
		}
	}
	return 1
}

// writeJSON writes a JSON-RPC message as the response.
func writeJSON(w http.ResponseWriter, status int, msg []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(msg, '\n'))
}

// writeRPCError answers with a JSON-RPC error for the request id.
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int, msg string) {
	b, _ := jsonenc.Marshal(errorResponse(id, &rpcError{Code: code, Message: msg}))
	writeJSON(w, status, b)
}

// bearer lets through the requests that carry the token. The scheme's
// case does not matter (RFC 9110); the tokens are compared by their
// SHA-256, in constant time, so that not even the token's length shows
// in the time an answer takes.
func bearer(token string, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, got, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		sum := sha256.Sum256([]byte(strings.TrimLeft(got, " ")))
		if token == "" || !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="ws"`)
			httpError(w, http.StatusUnauthorized, "a bearer token is required")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// readBy sets the read deadline of a request's body (bodyRead). A request
// without one is left alone: net/http already watches its connection for
// the client going away, a read no deadline must cut short.
func readBy(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != http.NoBody {
			http.NewResponseController(w).SetReadDeadline(time.Now().Add(bodyRead))
		}
		next.ServeHTTP(w, r)
	})
}

// sameHost refuses (403) a request that a web page may have sent behind
// its user's back. On a loopback listener, the Host must be a loopback
// name: a page whose own name resolves to 127.0.0.1 (DNS rebinding) cannot
// talk to the server. And a request that carries an Origin (a browser's)
// must come from the server's own origin or, on a loopback listener, a
// loopback one: MCP asks servers to check the Origin of every request.
func sameHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		loopback := local != nil && Loopback(local.String())
		if loopback && !loopbackHost(r.Host) {
			httpError(w, http.StatusForbidden, fmt.Sprintf("Forbidden: Host %q is not a loopback name", r.Host))
			return
		}
		if origin, ok := r.Header["Origin"]; ok && !originAllowed(origin[0], r.Host, loopback) {
			httpError(w, http.StatusForbidden, fmt.Sprintf("Forbidden: a request from the web page of %q", origin[0]))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// originAllowed reports whether a request's Origin is the server's own
// (the request's Host) or, when the server listens on loopback, a
// loopback one. "null" (a sandboxed page, a file) is neither.
func originAllowed(origin, host string, loopback bool) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return false
	}
	return strings.EqualFold(u.Host, host) || loopback && loopbackHost(u.Host)
}

func httpError(w http.ResponseWriter, status int, msg string) {
	http.Error(w, msg, status)
}

// Loopback reports whether a listen address is on the loopback interface
// only: 127.0.0.0/8, ::1 or localhost. An empty host (every interface) is
// not.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && loopbackName(host)
}

// loopbackHost is Loopback for a Host header, whose port is optional.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return loopbackName(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
}

func loopbackName(host string) bool {
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") { // "localhost." is the absolute name
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
