package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/workspace"
)

const testToken = "t0ken"

// startHTTP serves ws over HTTP on a free loopback port until the test
// ends (or stop is called); it returns the URL and stop, which waits for
// ServeHTTP to return and gives its error.
func startHTTP(t testing.TB, ws *workspace.Workspace, opts HTTPOptions) (string, func() error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	if opts.Token == "" {
		opts.Token = testToken
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeHTTP(ctx, ws, "test", ln, opts) }()
	var once sync.Once
	var serr error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case serr = <-done:
			case <-time.After(20 * time.Second):
				serr = fmt.Errorf("ServeHTTP did not return")
			}
		})
		return serr
	}
	t.Cleanup(func() { stop() })
	return "http://" + ln.Addr().String() + Path, stop
}

// withToken adds the bearer token to every request.
type withToken struct{ token string }

func (w withToken) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+w.token)
	return http.DefaultTransport.RoundTrip(r)
}

// connect opens an SDK client session to url.
func connect(t testing.TB, url string) (*sdk.ClientSession, error) {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: withToken{testToken}}, DisableStandaloneSSE: true}, nil)
	if err == nil {
		t.Cleanup(func() { s.Close() })
	}
	return s, err
}

// stdioAnswer is the stdio handler's result for one request, after
// initialize.
func stdioAnswer(t *testing.T, ws *workspace.Workspace, method string, params any) json.RawMessage {
	t.Helper()
	h := NewHandler(ws, "test")
	h.Handle(context.Background(), []byte(initialize))
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	var resp struct {
		Result json.RawMessage
		Error  *rpcError
	}
	must(t, json.Unmarshal(h.Handle(context.Background(), msg), &resp))
	if resp.Error != nil {
		t.Fatalf("stdio %s: %v", method, resp.Error.Message)
	}
	return resp.Result
}

// canonical is v as compact JSON with sorted keys, for comparisons.
func canonical(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	must(t, err)
	var x any
	must(t, json.Unmarshal(data, &x))
	data, err = json.Marshal(x)
	must(t, err)
	return string(data)
}

// TestHTTPSameSurface: the tools over HTTP are the stdio server's: the
// same list and the same results.
func TestHTTPSameSurface(t *testing.T) {
	ws, _ := newTestWorkspace(t)
	url, _ := startHTTP(t, ws, HTTPOptions{})
	s, err := connect(t, url)
	must(t, err)
	ctx := context.Background()
	if got := s.InitializeResult().Instructions; got != ws.Instructions() {
		t.Errorf("instructions %q, want %q", got, ws.Instructions())
	}
	list, err := s.ListTools(ctx, nil)
	must(t, err)
	var want struct {
		Tools []struct {
			Name, Description string
			InputSchema       json.RawMessage
			Annotations       toolAnnotations
		}
	}
	must(t, json.Unmarshal(stdioAnswer(t, ws, "tools/list", nil), &want))
	if len(list.Tools) != len(want.Tools) || len(want.Tools) == 0 {
		t.Fatalf("%d tools over HTTP, %d over stdio", len(list.Tools), len(want.Tools))
	}
	for i, got := range list.Tools {
		w := want.Tools[i]
		if got.Name != w.Name || got.Description != w.Description || canonical(t, got.InputSchema) != canonical(t, w.InputSchema) ||
			got.Annotations == nil || got.Annotations.ReadOnlyHint != w.Annotations.ReadOnlyHint {
			t.Errorf("tool %d: HTTP %s differs from stdio %s", i, canonical(t, got), canonical(t, w))
		}
	}
	for _, call := range []struct {
		name string
		args map[string]any
	}{
		{"mastra_workspace_read_file", map[string]any{"path": "a.txt"}},
		{"mastra_workspace_read_file", map[string]any{"path": "nope.txt"}},
		{"mastra_workspace_read_file", map[string]any{"path": "a.txt", "offset": 0}},
		{"mastra_workspace_grep", map[string]any{"pattern": "wor"}},
		{"mastra_workspace_list_files", nil},
	} {
		got, err := s.CallTool(ctx, &sdk.CallToolParams{Name: call.name, Arguments: call.args})
		must(t, err)
		want := stdioAnswer(t, ws, "tools/call", map[string]any{"name": call.name, "arguments": call.args})
		var w any
		must(t, json.Unmarshal(want, &w))
		if a, b := canonical(t, got), canonical(t, w); a != b {
			t.Errorf("%s %v:\nHTTP  %s\nstdio %s", call.name, call.args, a, b)
		}
	}
}

// post sends one raw request to url.
func post(t *testing.T, url, token, session, body string) *http.Response {
	t.Helper()
	resp, err := sendPost(url, token, session, body)
	must(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// sendPost is post for any goroutine: it returns its error.
func sendPost(url, token, session, body string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	return http.DefaultClient.Do(req)
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// TestHTTPLimits: the token, the body size, the requests at once and the
// sessions are all bounded.
func TestHTTPLimits(t *testing.T) {
	ws, root := newTestWorkspace(t)
	url, _ := startHTTP(t, ws, HTTPOptions{MaxBodyBytes: 1 << 10, MaxRequests: 2, MaxSessions: 1})
	for _, tc := range []struct {
		name, token, body string
		want              int
	}{
		{"no token", "", initBody, http.StatusUnauthorized},
		{"wrong token", "t0ke", initBody, http.StatusUnauthorized},
		{"body too large", testToken, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("x", 2<<10) + `"}}`, http.StatusRequestEntityTooLarge},
	} {
		if resp := post(t, url, tc.token, "", tc.body); resp.StatusCode != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, resp.StatusCode, tc.want)
		} else if tc.want == http.StatusUnauthorized && resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: 401 without WWW-Authenticate", tc.name)
		}
	}

	// One session: a second one is refused. (A fresh server: a refused
	// request of the cases above may leave a session the SDK closes later.)
	url, _ = startHTTP(t, ws, HTTPOptions{MaxRequests: 2, MaxSessions: 1})
	s, err := connect(t, url)
	must(t, err)
	if _, err := connect(t, url); err == nil || !strings.Contains(err.Error(), "503") && !strings.Contains(err.Error(), "Service Unavailable") {
		t.Errorf("a second session: %v, want 503", err)
	}

	// Two requests at once: another POST while two calls run gets 429
	// once its wait for a place is over. (A request of the session's own
	// still leaving when the calls start only makes one of them wait.)
	// Each call runs until the file "go" exists (or 20 s).
	done := make(chan error, 2)
	for i := range 2 {
		go func() {
			_, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: "mastra_workspace_execute_command", Arguments: map[string]any{
				"command": fmt.Sprintf(`touch running.%d; i=0; while [ ! -e go ] && [ $i -lt 400 ]; do i=$((i+1)); sleep 0.05; done`, i)}})
			done <- err
		}()
	}
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		_, err0 := os.Stat(filepath.Join(root, "running.0"))
		_, err1 := os.Stat(filepath.Join(root, "running.1"))
		if err0 == nil && err1 == nil {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the two calls did not start")
		}
	}
	if resp := post(t, url, testToken, s.ID(), `{"jsonrpc":"2.0","id":9,"method":"ping"}`); resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a request beyond the bound: status %d, want 429 with Retry-After", resp.StatusCode)
	}
	must(t, os.WriteFile(filepath.Join(root, "go"), nil, 0o644))
	must(t, <-done)
	must(t, <-done)
}

// TestHTTPConcurrentSessions: sessions are served at the same time. Each
// call waits until all n have started (or 20 s), so calls served one after
// another would each see only themselves; the wall clock is not used, as
// it depends on the machine's load.
func TestHTTPConcurrentSessions(t *testing.T) {
	ws, _ := newTestWorkspace(t)
	url, _ := startHTTP(t, ws, HTTPOptions{})
	const n = 6
	var wg sync.WaitGroup
	outs := make([]string, n)
	for i := range n {
		wg.Go(func() {
			s, err := connect(t, url)
			if err != nil {
				outs[i] = err.Error()
				return
			}
			res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: "mastra_workspace_execute_command",
				Arguments: map[string]any{"command": fmt.Sprintf(`touch started.%d; i=0; while [ $(ls started.* | wc -l) -lt %d ] && [ $i -lt 400 ]; do i=$((i+1)); sleep 0.05; done; echo session %d saw $(ls started.* | wc -l)`, i, n, i)}})
			if err != nil {
				outs[i] = err.Error()
				return
			}
			outs[i] = res.Content[0].(*sdk.TextContent).Text
		})
	}
	wg.Wait()
	for i, out := range outs {
		if out != fmt.Sprintf("session %d saw %d\n", i, n) {
			t.Errorf("session %d: %q (not served at the same time as the others)", i, out)
		}
	}
}

// TestHTTPDrain: when the server is stopped, a call in flight finishes
// and answers; then the server is gone.
func TestHTTPDrain(t *testing.T) {
	ws, root := newTestWorkspace(t)
	url, stop := startHTTP(t, ws, HTTPOptions{Grace: 100 * time.Millisecond})
	s, err := connect(t, url)
	must(t, err)
	type answer struct {
		res *sdk.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: "mastra_workspace_execute_command",
			Arguments: map[string]any{"command": "touch started; sleep 1; echo finished"}})
		done <- answer{res, err}
	}()
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(root, "started")); err == nil {
			break
		}
		if time.Now().After(end) {
			t.Fatal("the call did not start")
		}
	}
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	a := <-done
	if a.err != nil || a.res.IsError || a.res.Content[0].(*sdk.TextContent).Text != "finished\n" {
		t.Fatalf("the call in flight: %+v, %v", a.res, a.err)
	}
	must(t, <-stopped)
	if _, err := http.Post(url, "application/json", bytes.NewReader([]byte(initBody))); err == nil {
		t.Errorf("the server still answers after it stopped")
	}
}

func TestLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:80": true, "127.1.2.3:80": true, "[::1]:80": true, "localhost:80": true, "LOCALHOST:1": true,
		":80": false, "0.0.0.0:80": false, "[::]:80": false, "10.0.0.1:80": false, "example.com:80": false, "80": false,
	} {
		if got := Loopback(addr); got != want {
			t.Errorf("Loopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

// initSession sends a raw initialize (and no initialized notification)
// with JSON-RPC id id; it returns the status, the session id and the body.
func initSession(t *testing.T, url string, id int) (int, string, string) {
	t.Helper()
	body := strings.Replace(initBody, `"id":1`, fmt.Sprintf(`"id":%d`, id), 1)
	resp, err := sendPost(url, testToken, "", body)
	if err != nil {
		t.Errorf("initialize %d: %v", id, err)
		return 0, "", ""
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(data)
}

// initWithin retries a raw initialize until it is accepted, for up to d;
// it returns the session id, or "" when every try was refused.
func initWithin(t *testing.T, url string, d time.Duration) string {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if status, id, _ := initSession(t, url, 1); status == http.StatusOK {
			return id
		}
	}
	return ""
}

// wantRefused checks that a new session is refused with the JSON-RPC error.
func wantRefused(t *testing.T, what string, status int, body string, id int) {
	t.Helper()
	var resp struct {
		ID    int
		Error struct {
			Code    int
			Message string
		}
	}
	if status != http.StatusServiceUnavailable || json.Unmarshal([]byte(body), &resp) != nil || resp.ID != id ||
		resp.Error.Code != -32000 || !strings.Contains(resp.Error.Message, "too many sessions") {
		t.Errorf("%s: status %d, body %q; want 503 with a JSON-RPC error for id %d", what, status, body, id)
	}
}

// TestHTTPSessionBound: concurrent initialize POSTs open no more sessions
// than the bound, and the slots come back when the sessions close.
func TestHTTPSessionBound(t *testing.T) {
	ws, _ := newTestWorkspace(t)
	const max, n = 3, 24
	url, _ := startHTTP(t, ws, HTTPOptions{MaxSessions: max})
	type answer struct {
		status    int
		session   string
		body      string
		requestID int
	}
	answers := make([]answer, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			a := &answers[i]
			a.requestID = 100 + i
			a.status, a.session, a.body = initSession(t, url, a.requestID)
		})
	}
	close(start)
	wg.Wait()
	var sessions []string
	for _, a := range answers {
		switch {
		case a.status == http.StatusOK && a.session != "":
			sessions = append(sessions, a.session)
		default:
			wantRefused(t, fmt.Sprintf("initialize %d", a.requestID), a.status, a.body, a.requestID)
		}
	}
	if len(sessions) != max {
		t.Fatalf("%d of %d concurrent initialize requests opened a session, want %d", len(sessions), n, max)
	}
	// The uninitialized sessions still hold their slots.
	status, _, body := initSession(t, url, 7)
	wantRefused(t, "initialize with every slot taken", status, body, 7)

	// Closing the sessions gives their slots back, and only theirs.
	for _, id := range sessions {
		req, err := http.NewRequest(http.MethodDelete, url, nil)
		must(t, err)
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Mcp-Session-Id", id)
		resp, err := http.DefaultClient.Do(req)
		must(t, err)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			t.Fatalf("DELETE session: status %d", resp.StatusCode)
		}
	}
	for i := range max {
		if initWithin(t, url, 10*time.Second) == "" {
			t.Fatalf("slot %d did not come back after its session closed", i+1)
		}
	}
	status, _, body = initSession(t, url, 8)
	wantRefused(t, "initialize beyond the bound again", status, body, 8)
}

// TestHTTPSessionStray: a POST without a session id that is no initialize
// opens no lasting session, so it takes no slot for good.
func TestHTTPSessionStray(t *testing.T) {
	ws, _ := newTestWorkspace(t)
	url, _ := startHTTP(t, ws, HTTPOptions{MaxSessions: 1})
	for range 5 {
		post(t, url, testToken, "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		post(t, url, testToken, "", `not json`)
	}
	if initWithin(t, url, 10*time.Second) == "" {
		t.Fatal("stray requests kept the only slot")
	}
}

// TestHTTPLimitsBeforeAnswer: with one POST at a time and one session,
// the SDK's client connects again and again: it sends server/discover
// (refused: it is no initialize, so it takes no session slot), and at
// once initialize and notifications/initialized, while the handler of
// the answer before may still be returning (its place comes back then,
// and the POST after waits for it); closing the session (DELETE) gives
// its slot back before the answer.
func TestHTTPLimitsBeforeAnswer(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		maxRequests, maxSessions int
	}{
		{"requests", 1, 0},
		{"sessions", 0, 1},
		{"both", 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, _ := newTestWorkspace(t)
			url, _ := startHTTP(t, ws, HTTPOptions{MaxRequests: tc.maxRequests, MaxSessions: tc.maxSessions})
			for i := range 20 {
				s, err := connect(t, url)
				if err != nil {
					t.Fatalf("connection %d: %v", i, err)
				}
				if _, err := s.ListTools(context.Background(), nil); err != nil {
					t.Fatalf("connection %d: tools/list: %v", i, err)
				}
				must(t, s.Close())
			}
		})
	}
}

// TestHTTPSessionInitTimeout: a session whose client never sends
// notifications/initialized is closed after InitTimeout and its slot comes
// back; an initialized session stays.
func TestHTTPSessionInitTimeout(t *testing.T) {
	ws, _ := newTestWorkspace(t)
	const timeout = 300 * time.Millisecond
	url, _ := startHTTP(t, ws, HTTPOptions{MaxSessions: 1, InitTimeout: timeout})
	began := time.Now()
	if status, _, body := initSession(t, url, 1); status != http.StatusOK {
		t.Fatalf("initialize: %d %s", status, body)
	}
	status, _, body := initSession(t, url, 2)
	wantRefused(t, "a second session", status, body, 2)
	if initWithin(t, url, 10*time.Second) == "" {
		t.Fatal("an uninitialized session kept its slot")
	}
	if d := time.Since(began); d < timeout {
		t.Errorf("the slot came back after %v, before the %v timeout", d, timeout)
	}

	// The session just opened expires too; then a real client connects,
	// initializes, and outlives the timeout.
	var s *sdk.ClientSession
	for end := time.Now().Add(10 * time.Second); s == nil && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		s, _ = connect(t, url)
	}
	if s == nil {
		t.Fatal("no client session after the raw one expired")
	}
	time.Sleep(3 * timeout)
	if _, err := s.ListTools(context.Background(), nil); err != nil {
		t.Fatalf("an initialized session after the init timeout: %v", err)
	}
	status, _, body = initSession(t, url, 3)
	wantRefused(t, "a session beside the initialized one", status, body, 3)
}

// TestHTTPSessionlessCallRunsNothing: a tools/call without a session id
// runs no tool. The bound on POSTs in flight gives a sessionless POST its
// place back as soon as its answer starts (see limits), which is sound
// only while such a request cannot run a tool.
func TestHTTPSessionlessCallRunsNothing(t *testing.T) {
	ws, root := newTestWorkspace(t)
	url, _ := startHTTP(t, ws, HTTPOptions{})
	call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"mastra_workspace_execute_command","arguments":{"command":"touch ran.txt"}}}`
	resp := post(t, url, testToken, "", call)
	io.Copy(io.Discard, resp.Body)
	time.Sleep(200 * time.Millisecond) // a tool that did start would have run by now
	if _, err := os.Stat(filepath.Join(root, "ran.txt")); err == nil {
		t.Fatalf("a sessionless tools/call ran the tool (status %d)", resp.StatusCode)
	}
}

// TestHTTPEagerClient: with one request at a time, a client that sends
// each call the moment it has the answer to the one before is never
// refused (the handler of that answer may still be returning).
func TestHTTPEagerClient(t *testing.T) {
	ws, _ := newTestWorkspace(t)
	url, _ := startHTTP(t, ws, HTTPOptions{MaxRequests: 1})
	s, err := connect(t, url)
	must(t, err)
	for i := range 100 {
		if _, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: "mastra_workspace_list_files", Arguments: map[string]any{"path": "."}}); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
}

func TestGate(t *testing.T) {
	const wait = 200 * time.Millisecond
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		// then runs while the one request let in holds the only place, with
		// a second one waiting (unless crowd); it returns what the second
		// should get.
		then  func(g *gate, cancel func()) int
		crowd bool // a third request arrives while the second waits
		waits bool // the second is answered only when its wait is over
	}{
		{"a place comes back: the waiting request gets it", func(g *gate, _ func()) int {
			g.leave()
			return 0
		}, false, false},
		{"none comes back: 429 after the wait", func(*gate, func()) int { return http.StatusTooManyRequests }, false, true},
		{"its client goes away: 429 at once", func(_ *gate, cancel func()) int {
			cancel()
			return http.StatusTooManyRequests
		}, false, false},
		{"the server shuts down: 503", func(g *gate, _ func()) int {
			g.close()
			return http.StatusServiceUnavailable
		}, false, false},
		{"only as many wait as are handled", func(g *gate, _ func()) int {
			g.leave()
			return 0
		}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &gate{max: 1, wait: wait}
			if _, status, _ := g.enter(ctx, nil); status != 0 {
				t.Fatalf("the first request: %d", status)
			}
			rctx, cancel := context.WithCancel(ctx)
			defer cancel()
			got := make(chan int, 1)
			start := time.Now()
			go func() { _, status, _ := g.enter(rctx, nil); got <- status }()
			for waiting(g) == 0 {
				time.Sleep(time.Millisecond)
			}
			if tc.crowd {
				if _, status, _ := g.enter(ctx, nil); status != http.StatusTooManyRequests {
					t.Errorf("a second waiter: %d, want 429 at once", status)
				}
			}
			want := tc.then(g, cancel)
			if status := <-got; status != want {
				t.Errorf("the waiting request: %d, want %d", status, want)
			}
			if took := time.Since(start); tc.waits != (took >= wait) {
				t.Errorf("answered after %v (the wait is %v)", took, wait)
			}
		})
	}
}

// Each HTTP session is a thread of its own, unless ws mcp was given one:
// a client that has not read a.txt may not overwrite it because another
// client read it (before, every session shared one read tracker).
func TestHTTPSessionThreads(t *testing.T) {
	for _, tc := range []struct {
		thread string
		want   string // what the second session's write answers
	}{
		{"", `File "a.txt" has not been read. You must read a file before writing to it.`},
		{"shared", "Wrote 1 bytes to a.txt"},
	} {
		t.Run("thread="+tc.thread, func(t *testing.T) {
			cfg, err := config.Parse([]byte(`{"tools":{"mastra_workspace_write_file":{"requireReadBeforeWrite":true}}}`), workspace.ConfigKeys())
			must(t, err)
			root := t.TempDir()
			must(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644))
			ws, err := workspace.New(workspace.Options{Root: root, Config: cfg, StateDir: t.TempDir(), Thread: tc.thread})
			must(t, err)
			t.Cleanup(func() { ws.Close() })
			url, _ := startHTTP(t, ws, HTTPOptions{})
			call := func(s *sdk.ClientSession, name string, args map[string]any) string {
				res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
				must(t, err)
				return res.Content[0].(*sdk.TextContent).Text
			}
			a, err := connect(t, url)
			must(t, err)
			b, err := connect(t, url)
			must(t, err)
			call(a, "mastra_workspace_read_file", map[string]any{"path": "a.txt"})
			if got := call(b, "mastra_workspace_write_file", map[string]any{"path": "a.txt", "content": "x"}); got != tc.want {
				t.Fatalf("second session's write: %q, want %q", got, tc.want)
			}
		})
	}
}
