package mcp

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The transport's rules, by hand: raw requests, raw answers.

// rawRequest sends a request to url as a client of the session would
// (the token, JSON, an Accept allowing both answers); header changes
// those headers or adds others ("" removes one; "Host" sets the Host).
func rawRequest(t *testing.T, method, url, session string, header map[string]string, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	must(t, err)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	for k, v := range header {
		switch {
		case k == "Host":
			req.Host = v
		case v == "":
			req.Header.Del(k)
		default:
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	data, err := io.ReadAll(resp.Body)
	must(t, err)
	return string(data)
}

// rawSession opens a session by hand: initialize for version with the
// client capabilities caps, then notifications/initialized. It returns
// the session id.
func rawSession(t *testing.T, url, version, caps string) string {
	t.Helper()
	resp := rawRequest(t, http.MethodPost, url, "", nil, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":`+caps+`,"clientInfo":{"name":"raw","version":"1"}}}`)
	body := readAll(t, resp)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" || !strings.Contains(body, `"protocolVersion":"`+version+`"`) {
		t.Fatalf("initialize: %d, session %q, %s", resp.StatusCode, id, body)
	}
	if resp := rawRequest(t, http.MethodPost, url, id, nil, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d", resp.StatusCode)
	}
	return id
}

// sseReader reads the events of an SSE answer.
type sseReader struct {
	t        *testing.T
	r        *bufio.Reader
	comments int // the comment lines read
}

func newSSE(t *testing.T, resp *http.Response) *sseReader {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
		t.Fatalf("status %d, Content-Type %q, want a stream: %s", resp.StatusCode, ct, readAll(t, resp))
	}
	return &sseReader{t: t, r: bufio.NewReader(resp.Body)}
}

// next is the data of the next event, which must be a message; "" when
// the stream ends first (the test fails after a generous wait).
func (s *sseReader) next() string {
	s.t.Helper()
	type event struct {
		data string
		err  error
	}
	ch := make(chan event, 1)
	go func() {
		var kind, data string
		for {
			line, err := s.r.ReadString('\n')
			if err != nil {
				if err == io.EOF && line == "" && kind == "" && data == "" {
					err = nil
				}
				ch <- event{err: err}
				return
			}
			line = strings.TrimSuffix(line, "\n")
			switch {
			case line == "" && kind == "" && data == "":
				// nothing to dispatch (after a comment)
			case line == "":
				if kind != "message" {
					ch <- event{err: fmt.Errorf("an event of type %q", kind)}
				} else {
					ch <- event{data: data}
				}
				return
			case strings.HasPrefix(line, ":"):
				s.comments++
			case strings.HasPrefix(line, "event: "):
				kind = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				data += strings.TrimPrefix(line, "data: ")
			default:
				ch <- event{err: fmt.Errorf("a line %q", line)}
				return
			}
		}
	}()
	e := await(s.t, ch, 20*time.Second, "no event on the stream")
	if e.err != nil {
		s.t.Fatalf("the stream: %v", e.err)
	}
	return e.data
}

const pingBody = `{"jsonrpc":"2.0","id":5,"method":"ping"}`

// ping POSTs a ping in the session and returns the answer's status.
func ping(t *testing.T, url, session string) int {
	t.Helper()
	return rawRequest(t, http.MethodPost, url, session, nil, pingBody).StatusCode
}

// execCall POSTs in the session a tools/call (id 1) of
// execute_command running command, and returns the call's stream.
func execCall(t *testing.T, url, session, command string) *sseReader {
	t.Helper()
	args, err := json.Marshal(map[string]string{"command": command})
	must(t, err)
	return newSSE(t, rawRequest(t, http.MethodPost, url, session, nil,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mastra_workspace_execute_command","arguments":`+string(args)+`}}`))
}

// checkLongCall runs in the session a call that takes d, longer than a
// bound the test set (the idle timeout, the body's deadline): the call
// must answer, and the session still be open right after it.
func checkLongCall(t *testing.T, url, session string, d time.Duration) {
	t.Helper()
	s := execCall(t, url, session, fmt.Sprintf("sleep %g; echo done", d.Seconds()))
	if got := s.next(); !strings.Contains(got, `"text":"done\n"`) {
		t.Errorf("a call of %v: %s", d, got)
	}
	if got := ping(t, url, session); got != http.StatusOK {
		t.Errorf("the session right after a call of %v: %d", d, got)
	}
}

// TestHTTPTransport: the answers of the streamable HTTP transport to
// each kind of request, good and bad.
func TestHTTPTransport(t *testing.T) {
	ws, _ := newTestWorkspace(t)
	url, _ := startHTTP(t, ws, HTTPOptions{})
	live := rawSession(t, url, "2025-06-18", `{}`)
	old := rawSession(t, url, "2025-03-26", `{}`)
	deleted := rawSession(t, url, "2025-06-18", `{}`)
	if resp := rawRequest(t, http.MethodDelete, url, deleted, nil, ""); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	const (
		post = http.MethodPost
		json = "application/json"
		text = "text/plain; charset=utf-8"
	)
	for _, tc := range []struct {
		name        string
		method      string
		session     string
		header      map[string]string
		body        string
		status      int
		contentType string // of the answer ("": none)
		want        string // the answer's body, or (for text) what it begins with
	}{
		{"ping", post, live, nil, pingBody, 200, json, `{"jsonrpc":"2.0","id":5,"result":{}}` + "\n"},
		{"no session id", post, "", nil, pingBody, 400, json,
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"Bad Request: a message without the Mcp-Session-Id header must be an initialize request"}}` + "\n"},
		{"no session id, no id", post, "", nil, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 400, json,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: a message without the Mcp-Session-Id header must be an initialize request"}}` + "\n"},
		{"no session id, a batched initialize", post, "", nil, "[" + initBody + "]", 400, json,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: a message without the Mcp-Session-Id header must be an initialize request"}}` + "\n"},
		{"unknown session id", post, "n0pe", nil, pingBody, 404, text, "Not Found: no such session"},
		{"a deleted session", post, deleted, nil, pingBody, 404, text, "Not Found: no such session"},
		{"DELETE a deleted session", http.MethodDelete, deleted, nil, "", 404, text, "Not Found: no such session"},
		{"DELETE without a session id", http.MethodDelete, "", nil, "", 400, text, "Bad Request: DELETE needs the Mcp-Session-Id header"},
		{"GET", http.MethodGet, live, nil, "", 405, text, "Method Not Allowed"},
		{"PUT", http.MethodPut, live, nil, pingBody, 405, text, "Method Not Allowed"},
		{"Accept without SSE", post, live, map[string]string{"Accept": "application/json"}, pingBody, 406, text, "Not Acceptable"},
		{"Accept without JSON", post, live, map[string]string{"Accept": "text/event-stream"}, pingBody, 406, text, "Not Acceptable"},
		{"no Accept", post, live, map[string]string{"Accept": ""}, pingBody, 406, text, "Not Acceptable"},
		{"Accept */*", post, live, map[string]string{"Accept": "*/*"}, pingBody, 200, json, `{"jsonrpc":"2.0","id":5,"result":{}}` + "\n"},
		{"Accept with parameters", post, live, map[string]string{"Accept": "application/json;q=0.9, text/event-stream;q=0.8"}, pingBody, 200, json, `{"jsonrpc":"2.0","id":5,"result":{}}` + "\n"},
		{"Content-Type text/plain", post, live, map[string]string{"Content-Type": "text/plain"}, pingBody, 415, text, "Unsupported Media Type"},
		{"Content-Type with a charset", post, live, map[string]string{"Content-Type": "application/json; charset=utf-8"}, pingBody, 200, json, `{"jsonrpc":"2.0","id":5,"result":{}}` + "\n"},
		{"an unsupported protocol version", post, live, map[string]string{"Mcp-Protocol-Version": "1999-01-01"}, pingBody, 400, text,
			`Bad Request: unsupported Mcp-Protocol-Version "1999-01-01" (this server speaks 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)`},
		{"a version not the session's, on DELETE", http.MethodDelete, live, map[string]string{"Mcp-Protocol-Version": "2099-01-01"}, "", 400, text, "Bad Request: unsupported Mcp-Protocol-Version"},
		{"the negotiated version", post, live, map[string]string{"Mcp-Protocol-Version": "2025-06-18"}, pingBody, 200, json, `{"jsonrpc":"2.0","id":5,"result":{}}` + "\n"},
		{"another version the server speaks", post, live, map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, pingBody, 200, json, `{"jsonrpc":"2.0","id":5,"result":{}}` + "\n"},
		{"a notification", post, live, nil, `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`, 202, "", ""},
		{"a response nobody waits for", post, live, nil, `{"jsonrpc":"2.0","id":99,"result":{}}`, 202, "", ""},
		{"malformed JSON", post, live, nil, `{"jsonrpc":`, 400, json, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the message is not JSON"}}` + "\n"},
		{"not a message", post, live, nil, `42`, 400, json, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a message must be a JSON object"}}` + "\n"},
		{"a batch in a 2025-06-18 session", post, live, nil, "[" + pingBody + "]", 400, json,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: MCP 2025-06-18 has no batches: send one message per POST"}}` + "\n"},
		{"a batch in a 2025-03-26 session", post, old, nil, "[" + pingBody + `,{"jsonrpc":"2.0","method":"notifications/x"}]`, 200, json, `[{"jsonrpc":"2.0","id":5,"result":{}}]` + "\n"},
		{"a Host that is not loopback", post, live, map[string]string{"Host": "rebound.example:80"}, pingBody, 403, text, `Forbidden: Host "rebound.example:80" is not a loopback name`},
		{"Host localhost", post, live, map[string]string{"Host": "localhost"}, pingBody, 200, json, `{"jsonrpc":"2.0","id":5,"result":{}}` + "\n"},
		{"logging/setLevel", post, live, nil, `{"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{"level":"debug"}}`, 200, json, `{"jsonrpc":"2.0","id":6,"result":{}}` + "\n"},
		{"logging/setLevel, an unknown level", post, live, nil, `{"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{"level":"loud"}}`, 200, json,
			`{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Invalid params: unknown logging level \"loud\""}}` + "\n"},
		{"initialize again", post, live, nil, initBody, 200, json, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: initialize was already received"}}` + "\n"},
		{"an initialize that fails", post, "", nil, `{"jsonrpc":"2.0","id":3,"method":"initialize"}`, 200, json,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: initialize needs params"}}` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := rawRequest(t, tc.method, url, tc.session, tc.header, tc.body)
			body := readAll(t, resp)
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d (%s)", resp.StatusCode, tc.status, body)
			}
			if ct := resp.Header.Get("Content-Type"); ct != tc.contentType {
				t.Errorf("Content-Type %q, want %q", ct, tc.contentType)
			}
			if tc.contentType == text && !strings.HasPrefix(body, tc.want) || tc.contentType != text && body != tc.want {
				t.Errorf("body %q, want %q", body, tc.want)
			}
			if tc.session == "" && resp.Header.Get("Mcp-Session-Id") != "" {
				t.Errorf("a session was opened")
			}
			if tc.status == 405 && resp.Header.Get("Allow") != "POST, DELETE" {
				t.Errorf("Allow %q", resp.Header.Get("Allow"))
			}
		})
	}
}

// TestHTTPSessionIDs: each initialize opens a session of its own, under an
// id that is long, random and visible ASCII, as MCP asks.
func TestHTTPSessionIDs(t *testing.T) {
	ws, _ := newTestWorkspace(t)
	url, _ := startHTTP(t, ws, HTTPOptions{})
	seen := map[string]bool{}
	for range 20 {
		id := rawSession(t, url, "2025-11-25", `{}`)
		if seen[id] || len(id) < 22 || strings.IndexFunc(id, func(r rune) bool { return r < 0x21 || r > 0x7e }) >= 0 {
			t.Errorf("session id %q (seen before: %v)", id, seen[id])
		}
		seen[id] = true
	}
}

// TestHTTPToolCallStream: a tools/call is answered on an SSE stream: one
// message event, the answer, then the stream ends.
func TestHTTPToolCallStream(t *testing.T) {
	ws, _ := newTestWorkspace(t)
	url, _ := startHTTP(t, ws, HTTPOptions{})
	id := rawSession(t, url, "2025-06-18", `{}`)
	s := newSSE(t, rawRequest(t, http.MethodPost, url, id, nil, `{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"mastra_workspace_file_stat","arguments":{"path":"a.txt"}}}`))
	if got := s.next(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":"c1","result":{"content":[{"type":"text","text":"a.txt`) {
		t.Errorf("the answer: %s", got)
	}
	if got := s.next(); got != "" {
		t.Errorf("after the answer: %s", got)
	}
}

// TestHTTPElicit: a call that needs approval asks on its stream; the
// client's answer, POSTed on its own, reaches the waiting call, which
// answers on the same stream.
func TestHTTPElicit(t *testing.T) {
	for _, tc := range []struct {
		answer string // %ID% for the question's id
		want   string
		wrote  bool
	}{
		{`{"jsonrpc":"2.0","id":%ID%,"result":{"action":"accept","content":{}}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Wrote 1 bytes to new.txt"}]`, true},
		{`{"jsonrpc":"2.0","id":%ID%,"result":{"action":"decline"}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"the call of mastra_workspace_write_file was not approved"}],"isError":true}}`, false},
		{`{"jsonrpc":"2.0","id":%ID%,"error":{"code":-32601,"message":"no UI"}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"mastra_workspace_write_file requires approval, and asking the MCP client's user failed: no UI"}],"isError":true}}`, false},
	} {
		t.Run(tc.answer, func(t *testing.T) {
			ws, root := approvalWorkspace(t)
			url, _ := startHTTP(t, ws, HTTPOptions{})
			id := rawSession(t, url, "2025-06-18", `{"elicitation":{}}`)
			s := newSSE(t, rawRequest(t, http.MethodPost, url, id, nil, writeCall))
			var ask struct {
				ID     json.RawMessage
				Method string
				Params struct{ Message string }
			}
			must(t, json.Unmarshal([]byte(s.next()), &ask))
			if ask.Method != "elicitation/create" || ask.Params.Message != `Allow mastra_workspace_write_file {"content":"x","path":"new.txt"}?` {
				t.Fatalf("the question: %+v", ask)
			}
			if resp := rawRequest(t, http.MethodPost, url, id, nil, strings.ReplaceAll(tc.answer, "%ID%", string(ask.ID))); resp.StatusCode != http.StatusAccepted {
				t.Errorf("the client's answer: %d", resp.StatusCode)
			}
			if got := s.next(); !strings.HasPrefix(got, tc.want) {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if got := s.next(); got != "" {
				t.Errorf("after the answer: %s", got)
			}
			if _, err := os.Stat(filepath.Join(root, "new.txt")); (err == nil) != tc.wrote {
				t.Errorf("file written: %v, want %v", err == nil, tc.wrote)
			}
		})
	}
}

// TestHTTPElicitSDKClient: the SDK's client answers the question through
// its elicitation handler; a client without one is not asked.
func TestHTTPElicitSDKClient(t *testing.T) {
	ws, root := approvalWorkspace(t)
	url, _ := startHTTP(t, ws, HTTPOptions{})
	for _, tc := range []struct {
		name    string
		handler func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error)
		want    string
	}{
		{"accept", func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			if !strings.HasPrefix(req.Params.Message, "Allow mastra_workspace_write_file ") {
				return nil, errors.New("unexpected question " + req.Params.Message)
			}
			return &sdk.ElicitResult{Action: "accept"}, nil
		}, "Wrote 1 bytes to new.txt"},
		{"decline", func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return &sdk.ElicitResult{Action: "decline"}, nil
		}, "the call of mastra_workspace_write_file was not approved"},
		{"no elicitation", nil, "mastra_workspace_write_file requires approval, and this MCP client cannot ask its user"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(filepath.Join(root, "new.txt"))
			c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{ElicitationHandler: tc.handler})
			s, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: withToken{testToken}}}, nil)
			must(t, err)
			defer s.Close()
			res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: "mastra_workspace_write_file", Arguments: map[string]any{"path": "new.txt", "content": "x"}})
			must(t, err)
			if got := res.Content[0].(*sdk.TextContent).Text; !strings.HasPrefix(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if _, err := os.Stat(filepath.Join(root, "new.txt")); (err == nil) != (tc.name == "accept") {
				t.Errorf("file written: %v", err == nil)
			}
		})
	}
}

// waitFile waits until the file exists (the test fails after 20 s).
func waitFile(t *testing.T, path string) {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("%s did not appear", filepath.Base(path))
		}
	}
}

// runningCall is a call in progress in a session of its own: a command
// that marks its start, sleeps 10 s, then marks its end.
type runningCall struct {
	url, session, root string
	s                  *sseReader // the call's stream
}

// startCall serves a new workspace, opens a session and starts the call
// in it; it returns once the command runs.
func startCall(t *testing.T) runningCall {
	t.Helper()
	ws, root := newTestWorkspace(t)
	url, _ := startHTTP(t, ws, HTTPOptions{})
	id := rawSession(t, url, "2025-06-18", `{}`)
	c := runningCall{url: url, session: id, root: root, s: execCall(t, url, id, "touch started; sleep 10; touch late")}
	waitFile(t, filepath.Join(root, "started"))
	return c
}

// finished reports whether the command ran to its end.
func (c runningCall) finished() bool {
	_, err := os.Stat(filepath.Join(c.root, "late"))
	return err == nil
}

// TestHTTPCancel: notifications/cancelled, POSTed on its own, stops the
// call it names: the command is killed and the call's stream ends with
// no answer; a call waiting for the client's answer withdraws its
// question on its stream.
func TestHTTPCancel(t *testing.T) {
	t.Run("a running command", func(t *testing.T) {
		c := startCall(t)
		start := time.Now()
		if resp := rawRequest(t, http.MethodPost, c.url, c.session, nil, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`); resp.StatusCode != http.StatusAccepted {
			t.Errorf("the cancellation: %d", resp.StatusCode)
		}
		if got := c.s.next(); got != "" {
			t.Errorf("the cancelled call answered: %s", got)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("the stream ended %v after the cancellation", d)
		}
		if c.finished() {
			t.Error("the cancelled command ran to the end")
		}
	})
	t.Run("a call waiting for approval", func(t *testing.T) {
		ws, root := approvalWorkspace(t)
		url, _ := startHTTP(t, ws, HTTPOptions{})
		id := rawSession(t, url, "2025-06-18", `{"elicitation":{}}`)
		s := newSSE(t, rawRequest(t, http.MethodPost, url, id, nil, writeCall))
		var ask struct{ ID json.RawMessage }
		must(t, json.Unmarshal([]byte(s.next()), &ask))
		rawRequest(t, http.MethodPost, url, id, nil, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
		want := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"the tool call was cancelled","requestId":` + string(ask.ID) + `}}`
		if got := s.next(); got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
		if got := s.next(); got != "" {
			t.Errorf("the cancelled call answered: %s", got)
		}
		// The late answer is taken and dropped.
		if resp := rawRequest(t, http.MethodPost, url, id, nil, `{"jsonrpc":"2.0","id":`+string(ask.ID)+`,"result":{"action":"accept"}}`); resp.StatusCode != http.StatusAccepted {
			t.Errorf("the late answer: %d", resp.StatusCode)
		}
		if _, err := os.Stat(filepath.Join(root, "new.txt")); err == nil {
			t.Error("the cancelled call wrote its file")
		}
	})
	t.Run("the SDK client cancels", func(t *testing.T) {
		ws, root := newTestWorkspace(t)
		url, _ := startHTTP(t, ws, HTTPOptions{})
		s, err := connect(t, url)
		must(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "mastra_workspace_execute_command", Arguments: map[string]any{"command": "touch started; sleep 10; touch late"}})
			done <- err
		}()
		waitFile(t, filepath.Join(root, "started"))
		cancel()
		if err := await(t, done, 5*time.Second, "the cancelled call did not return"); err == nil {
			t.Error("the cancelled call succeeded")
		}
		// The command is killed: the session's next call finds no "late".
		if _, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: "mastra_workspace_execute_command", Arguments: map[string]any{"command": "sleep 0.3"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(root, "late")); err == nil {
			t.Error("the cancelled command ran to the end")
		}
	})
}

// TestHTTPSessionEnd: a session closed (DELETE, or idle for the session
// timeout) cancels its calls, which still answer on their streams; a
// session is not idle while a call of its runs.
func TestHTTPSessionEnd(t *testing.T) {
	t.Run("DELETE while a call runs", func(t *testing.T) {
		c := startCall(t)
		if resp := rawRequest(t, http.MethodDelete, c.url, c.session, nil, ""); resp.StatusCode != http.StatusNoContent {
			t.Fatalf("DELETE: %d", resp.StatusCode)
		}
		if got := c.s.next(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1,"result":`) {
			t.Errorf("the call of the closed session: %s", got)
		}
		if c.finished() {
			t.Error("the call of the closed session ran to the end")
		}
	})
	t.Run("idle", func(t *testing.T) {
		ws, _ := newTestWorkspace(t)
		const timeout = 300 * time.Millisecond
		url, _ := startHTTP(t, ws, HTTPOptions{SessionTimeout: timeout, MaxSessions: 1})
		id := rawSession(t, url, "2025-06-18", `{}`)
		// A call twice as long as the timeout: the session outlives it.
		checkLongCall(t, url, id, 2*timeout)
		time.Sleep(3 * timeout)
		if got := ping(t, url, id); got != http.StatusNotFound {
			t.Errorf("after the timeout: %d, want 404", got)
		}
		rawSession(t, url, "2025-06-18", `{}`) // the slot came back
	})
	// A client that goes away while its call waits for approval can no
	// longer get the answer: the session idles from then on, and the idle
	// timeout ends it (and the call), instead of it living for ever.
	t.Run("the client gone during a call", func(t *testing.T) {
		ws, root := approvalWorkspace(t)
		const timeout = 300 * time.Millisecond
		url, _ := startHTTP(t, ws, HTTPOptions{SessionTimeout: timeout, MaxSessions: 1, MaxRequests: 1})
		id := rawSession(t, url, "2025-06-18", `{"elicitation":{}}`)
		resp := rawRequest(t, http.MethodPost, url, id, nil, writeCall)
		if got := newSSE(t, resp).next(); !strings.Contains(got, `"method":"elicitation/create"`) {
			t.Fatalf("the question: %s", got)
		}
		resp.Body.Close() // the connection goes
		time.Sleep(3 * timeout)
		if got := ping(t, url, id); got != http.StatusNotFound {
			t.Fatalf("the session of the client gone, %v later: %d, want 404", 3*timeout, got)
		}
		rawSession(t, url, "2025-06-18", `{}`) // the slot (and the place) came back
		if _, err := os.Stat(filepath.Join(root, "new.txt")); err == nil {
			t.Error("the call of the ended session wrote its file")
		}
	})
}

// TestHTTPDrainAsk: when the server stops while a call waits for its
// client's answer (which a POST would bring, refused now), the call is
// refused at once and answers; then the server is gone.
func TestHTTPDrainAsk(t *testing.T) {
	ws, _ := approvalWorkspace(t)
	url, stop := startHTTP(t, ws, HTTPOptions{Grace: 100 * time.Millisecond})
	id := rawSession(t, url, "2025-06-18", `{"elicitation":{}}`)
	s := newSSE(t, rawRequest(t, http.MethodPost, url, id, nil, writeCall))
	if got := s.next(); !strings.Contains(got, `"method":"elicitation/create"`) {
		t.Fatalf("the question: %s", got)
	}
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	want := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"mastra_workspace_write_file requires approval, and asking the MCP client's user failed: the client's input ended before it answered"}],"isError":true}}`
	if got := s.next(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	must(t, await(t, stopped, 20*time.Second, "the server did not stop"))
}

// TestHTTPKeepAlive: a stream with nothing to say sends comments while
// its call runs.
func TestHTTPKeepAlive(t *testing.T) {
	defer func(d time.Duration) { keepAlive = d }(keepAlive)
	keepAlive = 50 * time.Millisecond
	ws, _ := newTestWorkspace(t)
	url, _ := startHTTP(t, ws, HTTPOptions{})
	id := rawSession(t, url, "2025-06-18", `{}`)
	s := execCall(t, url, id, "sleep 0.5; echo done")
	if got := s.next(); !strings.Contains(got, `"text":"done\n"`) {
		t.Errorf("the call: %s", got)
	}
	if s.comments == 0 {
		t.Error("no keep-alive comment in half a second")
	}
	if got := s.next(); got != "" {
		t.Errorf("after the answer: %s", got)
	}
}

// TestHTTPStalledReader: a long answer (a 9 MiB image, 12 MiB of base64)
// reaches a client that reads it whole; a client that stops reading holds
// the write for writeStall at most, then the server drops the stream, so
// a drain is not held up for ever by a client that does not read.
func TestHTTPStalledReader(t *testing.T) {
	// Put writeStall back once the servers have stopped (cleanups run last
	// first, and startHTTP's stops each): a deferred restore raced with their
	// goroutines when the test failed and left them running.
	old := writeStall
	t.Cleanup(func() { writeStall = old })
	ws, root := newTestWorkspace(t)
	img := make([]byte, 9<<20)
	rand.Read(img)
	copy(img, "\x89PNG\r\n\x1a\n")
	must(t, os.WriteFile(filepath.Join(root, "big.png"), img, 0o644))
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mastra_workspace_read_file","arguments":{"path":"big.png"}}}`

	// The whole answer, with the stall as it is: on a loaded machine (the
	// race detector, other suites) the test's own reading may pause for
	// longer than the short stall of the second half.
	url, stop := startHTTP(t, ws, HTTPOptions{Grace: 100 * time.Millisecond})
	id := rawSession(t, url, "2025-06-18", `{}`)
	var answer struct {
		Result struct {
			Content []struct{ Type, Data string }
		}
	}
	must(t, json.Unmarshal([]byte(newSSE(t, rawRequest(t, http.MethodPost, url, id, nil, call)).next()), &answer))
	if c := answer.Result.Content; len(c) != 2 || c[1].Type != "image" || c[1].Data != base64.StdEncoding.EncodeToString(img) {
		t.Fatalf("the image did not arrive whole (%d parts)", len(c))
	}
	must(t, stop())

	// A client that stops reading, against a server whose writes may
	// stall 300 ms (set while no server runs: its goroutines read it).
	writeStall = 300 * time.Millisecond
	url, stop = startHTTP(t, ws, HTTPOptions{Grace: 100 * time.Millisecond})
	id = rawSession(t, url, "2025-06-18", `{}`)
	conn, err := net.Dial("tcp", strings.TrimPrefix(strings.TrimSuffix(url, Path), "http://"))
	must(t, err)
	defer conn.Close()
	must(t, conn.(*net.TCPConn).SetReadBuffer(4<<10))
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: %s\r\nContent-Length: %d\r\n\r\n%s",
		Path, testToken, id, len(call), call)
	status := make([]byte, len("HTTP/1.1 200"))
	_, err = io.ReadFull(conn, status)
	must(t, err)
	if string(status) != "HTTP/1.1 200" {
		t.Fatalf("the call: %q", status)
	}
	// The client reads no more; the server stops.
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	must(t, await(t, stopped, 25*time.Second, "the server did not stop"))
}

// TestHTTPHeaders: the header checks at their edges: the bearer scheme's
// case, the Host a loopback server answers to, the Origin of a browser
// page (MCP: an Origin present and not valid gets 403), Accept with
// q-values.
func TestHTTPHeaders(t *testing.T) {
	ws, _ := newTestWorkspace(t)
	url, _ := startHTTP(t, ws, HTTPOptions{})
	id := rawSession(t, url, "2025-06-18", `{}`)
	port := url[strings.LastIndex(url, ":")+1 : strings.LastIndex(url, "/")]
	for _, tc := range []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"bearer in lower case", map[string]string{"Authorization": "bearer " + testToken}, 200},
		{"BEARER", map[string]string{"Authorization": "BEARER " + testToken}, 200},
		{"a token too short", map[string]string{"Authorization": "Bearer " + testToken[:len(testToken)-1]}, 401},
		{"a token too long", map[string]string{"Authorization": "Bearer " + testToken + "x"}, 401},
		{"no token", map[string]string{"Authorization": "Bearer"}, 401},
		{"another scheme", map[string]string{"Authorization": "Basic " + testToken}, 401},

		{"Host localhost., the absolute name", map[string]string{"Host": "localhost.:" + port}, 200},
		{"Host LOCALHOST", map[string]string{"Host": "LOCALHOST:" + port}, 200},
		{"Host [::1]", map[string]string{"Host": "[::1]:" + port}, 200},
		{"Host [::1] without a port", map[string]string{"Host": "[::1]"}, 200},
		{"Host 127.0.0.1", map[string]string{"Host": "127.0.0.1:" + port}, 200},
		{"Host a name below localhost.", map[string]string{"Host": "localhost.rebound.example:" + port}, 403},
		{"Host an address", map[string]string{"Host": "10.0.0.1:" + port}, 403},

		{"Origin a web site", map[string]string{"Origin": "https://rebound.example"}, 403},
		{"Origin a web site under the port", map[string]string{"Origin": "http://rebound.example:" + port}, 403},
		{"Origin null", map[string]string{"Origin": "null"}, 403},
		{"Origin not a URL", map[string]string{"Origin": "::"}, 403},
		{"Origin a web site, no token", map[string]string{"Origin": "https://rebound.example", "Authorization": ""}, 403},
		{"Host not loopback, no token", map[string]string{"Host": "rebound.example", "Authorization": ""}, 403},
		{"Origin a local page", map[string]string{"Origin": "http://localhost:6274"}, 200},
		{"Origin the server's own", map[string]string{"Origin": "http://127.0.0.1:" + port}, 200},
		{"Origin [::1]", map[string]string{"Origin": "http://[::1]:3000"}, 200},

		{"Accept SSE with q=0", map[string]string{"Accept": "application/json, text/event-stream;q=0"}, 406},
		{"Accept JSON with q=0.000", map[string]string{"Accept": "application/json; q=0.000, text/event-stream"}, 406},
		{"Accept only */* with q=0", map[string]string{"Accept": "*/*;q=0"}, 406},
		{"Accept a type refused beside */*", map[string]string{"Accept": "*/*, text/event-stream;q=0"}, 406},
		{"Accept a type named beside a refused */*", map[string]string{"Accept": "application/json, text/event-stream, */*;q=0"}, 200},
		{"Accept a type named beside a refused range", map[string]string{"Accept": "application/*;q=0, application/json, text/*"}, 200},
		{"Accept low q-values", map[string]string{"Accept": "application/json;q=0.001, text/event-stream;q=0.5"}, 200},
		{"Accept in upper case", map[string]string{"Accept": "Application/JSON, TEXT/EVENT-STREAM"}, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := rawRequest(t, http.MethodPost, url, id, tc.header, pingBody)
			if body := readAll(t, resp); resp.StatusCode != tc.want {
				t.Errorf("status %d, want %d (%s)", resp.StatusCode, tc.want, body)
			}
		})
	}
}

func TestOriginAllowed(t *testing.T) {
	for _, tc := range []struct {
		origin, host string
		loopback     bool
		want         bool
	}{
		{"http://10.0.0.5:8080", "10.0.0.5:8080", false, true},
		{"https://ws.example", "WS.example", false, true},
		{"http://10.0.0.5:8081", "10.0.0.5:8080", false, false},
		{"http://localhost:3000", "10.0.0.5:8080", false, false}, // loopback origins only on loopback
		{"http://localhost:3000", "127.0.0.1:8080", true, true},
		{"ftp://localhost", "127.0.0.1:8080", true, false},
		{"null", "127.0.0.1:8080", true, false},
		{"", "127.0.0.1:8080", true, false},
	} {
		if got := originAllowed(tc.origin, tc.host, tc.loopback); got != tc.want {
			t.Errorf("originAllowed(%q, %q, %v) = %v, want %v", tc.origin, tc.host, tc.loopback, got, tc.want)
		}
	}
}

// TestHTTPIdleConnections: a connection left idle between requests is
// closed after connIdle, so connections (a client's without a token,
// say) do not pile up for ever.
func TestHTTPIdleConnections(t *testing.T) {
	defer func(d time.Duration) { connIdle = d }(connIdle)
	connIdle = 200 * time.Millisecond
	ws, _ := newTestWorkspace(t)
	url, _ := startHTTP(t, ws, HTTPOptions{})
	conn, err := net.Dial("tcp", strings.TrimPrefix(strings.TrimSuffix(url, Path), "http://"))
	must(t, err)
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n", Path)
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	must(t, err)
	io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusUnauthorized || resp.Close {
		t.Fatalf("status %d, close %v: want 401 on a connection kept open", resp.StatusCode, resp.Close)
	}
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := r.ReadByte(); err != io.EOF {
		t.Errorf("an idle connection, 5 s later: %v, want it closed (EOF)", err)
	}
}

// TestSessionIdleTimer: the idle timer's function may run late, once a
// request has entered the session (its Stop came too late) or after the
// timer was set again: the session is closed only when it has been idle
// for the whole timeout.
func TestSessionIdleTimer(t *testing.T) {
	ws, _ := newTestWorkspace(t)
	s := &httpServer{ws: ws, version: "test", sessions: map[string]*session{}}
	ss := newSession(s)
	s.sessions[ss.id] = ss
	const timeout = 100 * time.Millisecond
	ss.start(0, timeout)
	if !ss.enter() {
		t.Fatal("a new session is closed")
	}
	ss.expire() // a firing that lost the race with enter
	if ss.isClosed() {
		t.Fatal("the idle timer closed a session with a request in it")
	}
	ss.leave()
	ss.expire() // a firing from before the timer was set again
	if ss.isClosed() {
		t.Fatal("the idle timer closed a session idle for less than the timeout")
	}
	for end := time.Now().Add(10 * time.Second); !ss.isClosed(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the idle session was not closed")
		}
	}
}

// TestHTTPNoLeaks: sessions that end every way (DELETE, the idle timeout,
// the init timeout, a client gone during a call, an approval withdrawn)
// and the server's stop leave no goroutine behind.
func TestHTTPNoLeaks(t *testing.T) {
	defer func(d time.Duration) { keepAlive = d }(keepAlive)
	keepAlive = 20 * time.Millisecond
	ws, _ := approvalWorkspace(t)
	url, stop := startHTTP(t, ws, HTTPOptions{SessionTimeout: 200 * time.Millisecond, InitTimeout: 200 * time.Millisecond, MaxRequests: 2})
	const exec = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mastra_workspace_file_stat","arguments":{"path":"."}}}`
	for range 5 {
		// DELETE after a call that asked and was answered.
		id := rawSession(t, url, "2025-06-18", `{"elicitation":{}}`)
		s := newSSE(t, rawRequest(t, http.MethodPost, url, id, nil, writeCall))
		var ask struct{ ID json.RawMessage }
		must(t, json.Unmarshal([]byte(s.next()), &ask))
		rawRequest(t, http.MethodPost, url, id, nil, `{"jsonrpc":"2.0","id":`+string(ask.ID)+`,"result":{"action":"decline"}}`)
		s.next()
		rawRequest(t, http.MethodDelete, url, id, nil, "")
		// A question withdrawn, then the idle timeout.
		id = rawSession(t, url, "2025-06-18", `{"elicitation":{}}`)
		s = newSSE(t, rawRequest(t, http.MethodPost, url, id, nil, writeCall))
		s.next()
		rawRequest(t, http.MethodPost, url, id, nil, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
		s.next()
		// The client gone while its call asks.
		id = rawSession(t, url, "2025-06-18", `{"elicitation":{}}`)
		resp := rawRequest(t, http.MethodPost, url, id, nil, writeCall)
		newSSE(t, resp).next()
		resp.Body.Close()
		// Never initialized.
		initSession(t, url, 1)
		// A call with a JSON-only answer and one with a stream, then idle.
		id = rawSession(t, url, "2025-06-18", `{}`)
		ping(t, url, id)
		newSSE(t, rawRequest(t, http.MethodPost, url, id, nil, exec)).next()
	}
	must(t, stop())
	// The server's goroutines: its connections and anything of this
	// package's but the test itself (the client's may wait for the test's
	// cleanup to close their bodies).
	server := func() []string {
		buf := make([]byte, 1<<20)
		var left []string
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if strings.Contains(g, "net/http.(*conn).serve") || strings.Contains(g, "wstools/ws/pkg/mcp.") && !strings.Contains(g, "TestHTTPNoLeaks") {
				left = append(left, g)
			}
		}
		return left
	}
	for end := time.Now().Add(10 * time.Second); len(server()) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%d goroutines of the server left:\n%s", len(server()), strings.Join(server(), "\n\n"))
		}
	}
}

// TestHTTPStress: clients at once, each ending its approval questions a
// different way (accept, decline, a wrong id then cancel, cancel, DELETE,
// going away, two answers), all through a gate of two places: every call
// finishes, the server stops, and nothing of it is left.
func TestHTTPStress(t *testing.T) {
	ws, _ := approvalWorkspace(t)
	url, stop := startHTTP(t, ws, HTTPOptions{MaxRequests: 2, SessionTimeout: 500 * time.Millisecond, Grace: 50 * time.Millisecond})
	post := func(id, body string) {
		if resp, err := sendPost(url, testToken, id, body); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	// retry POSTs body until it is let through the gate (20 s at most).
	retry := func(t *testing.T, id, body string) *http.Response {
		for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			resp, err := sendPost(url, testToken, id, body)
			if err != nil {
				t.Error(err)
				return nil
			}
			if resp.StatusCode == http.StatusOK {
				return resp
			}
			resp.Body.Close()
			if resp.StatusCode == http.StatusNotFound {
				return nil // the session idled out while its POST waited at the gate
			}
			if resp.StatusCode != http.StatusTooManyRequests {
				t.Errorf("%.40s…: %d", body, resp.StatusCode)
				return nil
			}
		}
		t.Errorf("%.40s…: 429 for 20 s", body)
		return nil
	}
	var wg sync.WaitGroup
	var asked atomic.Int32
	for c := range 6 {
		wg.Go(func() {
			for i := 0; i < 6; {
				resp := retry(t, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"s","version":"1"}}}`)
				if resp == nil {
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				id := resp.Header.Get("Mcp-Session-Id")
				post(id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
				if resp = retry(t, id, writeCall); resp == nil {
					continue
				}
				r := bufio.NewReader(resp.Body)
				line, err := "", error(nil)
				for !strings.HasPrefix(line, "data: ") && err == nil {
					line, err = r.ReadString('\n')
				}
				var ask struct{ ID json.RawMessage }
				json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ask)
				if len(ask.ID) == 0 {
					t.Errorf("no question: %q, %v", line, err)
					return
				}
				asked.Add(1)
				i++
				answer := func(action string) string {
					return `{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":{"action":"` + action + `"}}`
				}
				switch (c + i - 1) % 7 {
				case 0:
					post(id, answer("accept"))
				case 1:
					post(id, answer("decline"))
				case 2:
					post(id, `{"jsonrpc":"2.0","id":999,"result":{"action":"accept"}}`)
					post(id, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
				case 3:
					post(id, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
				case 4:
					req, _ := http.NewRequest(http.MethodDelete, url, nil)
					req.Header.Set("Authorization", "Bearer "+testToken)
					req.Header.Set("Mcp-Session-Id", id)
					if resp, err := http.DefaultClient.Do(req); err == nil {
						resp.Body.Close()
					}
				case 5:
					resp.Body.Close() // gone; the idle timeout ends it
					continue
				case 6:
					go post(id, answer("accept"))
					post(id, answer("decline"))
				}
				io.Copy(io.Discard, r) // the call ends its stream
				resp.Body.Close()
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	await(t, done, 60*time.Second, "the clients did not finish")
	if n := asked.Load(); n != 36 {
		t.Errorf("%d of 36 calls asked their question", n)
	}
	must(t, stop())
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		buf := make([]byte, 1<<20)
		all := string(buf[:runtime.Stack(buf, true)])
		if !strings.Contains(all, "net/http.(*conn).serve") && !strings.Contains(all, "pkg/mcp.(*") {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the server's goroutines are left:\n%s", all)
		}
	}
}

// TestHTTPBodyDeadline: a request's body must arrive within bodyRead. A
// client without the token that trickles a body (which net/http reads on
// after the 401, to reuse the connection) loses its connection; a call
// whose body has arrived runs on past the bound, its client still
// counted as there (the session does not idle out under it).
func TestHTTPBodyDeadline(t *testing.T) {
	defer func(d time.Duration) { bodyRead = d }(bodyRead)
	bodyRead = 200 * time.Millisecond
	ws, _ := newTestWorkspace(t)
	url, _ := startHTTP(t, ws, HTTPOptions{SessionTimeout: 300 * time.Millisecond})

	conn, err := net.Dial("tcp", strings.TrimPrefix(strings.TrimSuffix(url, Path), "http://"))
	must(t, err)
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\"", Path)
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	must(t, err)
	_, err = io.Copy(io.Discard, resp.Body)
	must(t, err)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status %d, want 401", resp.StatusCode)
	}
	if _, err := r.ReadByte(); err != io.EOF {
		t.Errorf("a connection whose body stalls, 5 s later: %v, want it closed (EOF)", err)
	}

	id := rawSession(t, url, "2025-06-18", `{}`)
	// A call longer than the body's bound and the idle timeout.
	checkLongCall(t, url, id, time.Second)
}
