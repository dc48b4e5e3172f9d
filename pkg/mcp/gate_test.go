package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHTTPGateAnswers: with one POST at a time, a call waiting for its
// client's approval holds the only place; the client's answer (and any
// notification) runs no tool and gets in all the same, so the approval
// succeeds.
func TestHTTPGateAnswers(t *testing.T) {
	t.Run("raw", func(t *testing.T) {
		ws, root := approvalWorkspace(t)
		url, _ := startHTTP(t, ws, HTTPOptions{MaxRequests: 1})
		id := rawSession(t, url, "2025-06-18", `{"elicitation":{}}`)
		s := newSSE(t, rawRequest(t, http.MethodPost, url, id, nil, writeCall))
		var ask struct {
			ID     json.RawMessage
			Method string
		}
		must(t, json.Unmarshal([]byte(s.next()), &ask))
		if ask.Method != "elicitation/create" {
			t.Fatalf("the question: %+v", ask)
		}
		for _, msg := range []string{
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":42}}`,
			`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`,
			`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":{"action":"accept","content":{}}}`,
		} {
			start := time.Now()
			if resp := rawRequest(t, http.MethodPost, url, id, nil, msg); resp.StatusCode != http.StatusAccepted {
				t.Errorf("%s: %d, want 202", msg, resp.StatusCode)
			}
			if d := time.Since(start); d > queueWait/2 {
				t.Errorf("%s: answered after %v: it waited for a place", msg, d)
			}
		}
		if got := s.next(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Wrote 1 bytes to new.txt"}]`) {
			t.Errorf("the call: %s", got)
		}
		if _, err := os.Stat(filepath.Join(root, "new.txt")); err != nil {
			t.Errorf("the approved call wrote nothing: %v", err)
		}
	})
	t.Run("the SDK client", func(t *testing.T) {
		ws, root := approvalWorkspace(t)
		url, _ := startHTTP(t, ws, HTTPOptions{MaxRequests: 1})
		c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{
			ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
				return &sdk.ElicitResult{Action: "accept"}, nil
			}})
		s, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: withToken{testToken}}}, nil)
		must(t, err)
		defer s.Close()
		res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: "mastra_workspace_write_file", Arguments: map[string]any{"path": "new.txt", "content": "x"}})
		must(t, err)
		if got := res.Content[0].(*sdk.TextContent).Text; got != "Wrote 1 bytes to new.txt" {
			t.Errorf("the call: %q", got)
		}
		if _, err := os.Stat(filepath.Join(root, "new.txt")); err != nil {
			t.Errorf("the approved call wrote nothing: %v", err)
		}
	})
}

// TestHTTPAnswerBodyLimit: the client's answer obeys the body limit like
// any POST (413), and the question still waits for a good answer.
func TestHTTPAnswerBodyLimit(t *testing.T) {
	ws, root := approvalWorkspace(t)
	url, _ := startHTTP(t, ws, HTTPOptions{MaxBodyBytes: 4 << 10})
	id := rawSession(t, url, "2025-06-18", `{"elicitation":{}}`)
	s := newSSE(t, rawRequest(t, http.MethodPost, url, id, nil, writeCall))
	var ask struct{ ID json.RawMessage }
	must(t, json.Unmarshal([]byte(s.next()), &ask))
	big := `{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":{"action":"accept","content":{"x":"` + strings.Repeat("x", 8<<10) + `"}}}`
	if resp := rawRequest(t, http.MethodPost, url, id, nil, big); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("an answer over the body limit: %d, want 413", resp.StatusCode)
	}
	if _, err := os.Stat(filepath.Join(root, "new.txt")); err == nil {
		t.Fatal("an answer over the body limit approved the call")
	}
	if resp := rawRequest(t, http.MethodPost, url, id, nil, `{"jsonrpc":"2.0","id":`+string(ask.ID)+`,"result":{"action":"accept"}}`); resp.StatusCode != http.StatusAccepted {
		t.Errorf("the answer: %d", resp.StatusCode)
	}
	if got := s.next(); !strings.Contains(got, "Wrote 1 bytes to new.txt") {
		t.Errorf("the call: %s", got)
	}
}

// waiting is how many POSTs wait for a place at g.
func waiting(g *gate) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.waiting
}

// TestHTTPGateClientGone: a POST waiting for a place whose client goes
// away (its body sent, or cut short) gives its place among the waiting
// back at once, not when its wait is over; a POST that waited and is let
// in gets its body whole, however long.
func TestHTTPGateClientGone(t *testing.T) {
	g := newHeldGate(t, 64)
	held := g.hold()
	addr := strings.TrimPrefix(g.url, "http://")
	for _, tc := range []struct{ name, body, sent string }{
		{"body sent", `{"jsonrpc":"2.0","id":7,"method":"ping"}`, `{"jsonrpc":"2.0","id":7,"method":"ping"}`},
		{"body cut short", `{"jsonrpc":"2.0","id":7,"method":"ping"}`, `{"jsonrpc"`},
	} {
		c, err := net.Dial("tcp", addr)
		must(t, err)
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nMcp-Session-Id: s\r\nContent-Length: %d\r\n\r\n%s", len(tc.body), tc.sent)
		g.waitFor(tc.name+": the request does not wait", 1)
		c.Close()
		g.waitFor(tc.name+": its client went away", 0)
	}
	long := strings.Repeat("x", 200) // beyond the 64 bytes read ahead
	late := g.send(long)
	g.waitFor("a request with a long body does not wait", 1)
	g.release()
	if got := <-late; got != "200 "+long {
		t.Errorf("the request let in after its wait: %q", got)
	}
	if got := <-held; got != "200 hold" {
		t.Errorf("the request that held the place: %q", got)
	}
}

// heldGate is limitPosts (one place, a 30 s wait, bodies read ahead up to
// a bound) in front of a handler that answers 200 with the body it read,
// or with "read error: …"; a POST whose body is "hold" keeps its place
// until release.
type heldGate struct {
	t       *testing.T
	posts   *gate
	url     string
	entered chan struct{}
	release func()
}

func newHeldGate(t *testing.T, maxBody int64) *heldGate {
	g := &heldGate{t: t, posts: &gate{max: 1, wait: 30 * time.Second}, entered: make(chan struct{}, 1)}
	finish := make(chan struct{})
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if string(body) == "hold" {
			g.entered <- struct{}{}
			<-finish
		}
		if err != nil {
			body = []byte("read error: " + err.Error())
		}
		w.Write(body)
	})
	hs := httptest.NewServer(limitPosts(g.posts, maxBody, next))
	t.Cleanup(hs.Close)
	var once sync.Once
	g.release = func() { once.Do(func() { close(finish) }) }
	t.Cleanup(g.release) // before the server closes, which waits for its handlers
	g.url = hs.URL
	return g
}

// send POSTs body in session "s"; the channel gets "<status> <body>", or
// the error.
func (g *heldGate) send(body string) chan string {
	got := make(chan string, 1)
	go func() {
		resp, err := sendPost(g.url, "", "s", body)
		if err != nil {
			got <- err.Error()
			return
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		got <- fmt.Sprint(resp.StatusCode, " ", string(data))
	}()
	return got
}

// hold takes the gate's place with a POST that keeps it until release;
// the channel gets that POST's answer.
func (g *heldGate) hold() chan string {
	got := g.send("hold")
	<-g.entered
	return got
}

// waitFor waits until n POSTs wait for a place.
func (g *heldGate) waitFor(what string, n int) {
	g.t.Helper()
	for end := time.Now().Add(10 * time.Second); waiting(g.posts) != n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			g.t.Fatalf("%s: %d waiting, want %d", what, waiting(g.posts), n)
		}
	}
}

// TestGateLight: in front of the handler, a POST that carries no request
// (responses and notifications only) is let in without a place, whether
// or not the waiting room is full; one that carries a request keeps the
// gate's rules (it waits, or gets 429 at once); a body too long to look
// at while the waiting room is full is refused as a request would be;
// and once the gate is closed every POST gets 503.
func TestGateLight(t *testing.T) {
	g := newHeldGate(t, 1<<20)
	const (
		response     = `{"jsonrpc":"2.0","id":3,"result":{"action":"accept"}}`
		errResponse  = `{"jsonrpc":"2.0","id":"q","error":{"code":-1,"message":"no"}}`
		notification = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`
		batch        = `[` + response + `,` + notification + `]`
		ping         = `{"jsonrpc":"2.0","id":7,"method":"ping"}`
		mixed        = `[` + response + `,` + ping + `]`
	)
	light := []string{response, errResponse, notification, batch}
	passes := func(what, body string) {
		t.Helper()
		if got := await(t, g.send(body), 10*time.Second, what+": it waits"); got != "200 "+body {
			t.Errorf("%s: %q, want it let in", what, got)
		}
	}
	held := g.hold()
	for _, body := range light {
		passes("no one waiting: "+body, body)
	}
	waiter := g.send(ping)
	g.waitFor("a request beyond the bound waits", 1)
	for _, body := range light {
		passes("the waiting room full: "+body, body)
	}
	for _, body := range []string{ping, mixed, `not json`, `{"jsonrpc":"2.0","id":1,"result":{"x":"` + strings.Repeat("x", 100<<10) + `"}}`} {
		if got := await(t, g.send(body), 10*time.Second, "a request with the waiting room full waits"); !strings.HasPrefix(got, "429 ") {
			t.Errorf("the waiting room full: %.60s…: %.60s, want 429", body, got)
		}
	}
	g.release()
	if got := <-waiter; got != "200 "+ping {
		t.Errorf("the request that waited: %q", got)
	}
	if got := <-held; got != "200 hold" {
		t.Errorf("the request that held the place: %q", got)
	}
	<-g.posts.close()
	for _, body := range append(light, ping) {
		if got := await(t, g.send(body), 10*time.Second, "a POST to a closed gate"); !strings.HasPrefix(got, "503 ") {
			t.Errorf("the gate closed: %s: %q, want 503", body, got)
		}
	}
}

func TestCarriesRequest(t *testing.T) {
	for body, want := range map[string]bool{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`:                     true,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`:                  true,
		` {"jsonrpc":"2.0","method":"notifications/initialized"} `:     false,
		`{"jsonrpc":"2.0","id":1,"result":{}}`:                         false,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}`:    false,
		`[{"jsonrpc":"2.0","id":1,"result":{}},{"method":"x"}]`:        false,
		`[{"jsonrpc":"2.0","id":1,"result":{}},{"id":2,"method":"x"}]`: true,
		`[]`: true, `[1]`: true, `"x"`: true, `null`: true, `{`: true, ``: true,
	} {
		if got := carriesRequest([]byte(body)); got != want {
			t.Errorf("carriesRequest(%s) = %v, want %v", body, got, want)
		}
	}
}
