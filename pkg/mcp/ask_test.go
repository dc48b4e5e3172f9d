package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/workspace"
)

// scriptedClient drives Serve over pipes as an MCP client would, and
// can answer the server's own requests.
type scriptedClient struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

func newScriptedClient(t *testing.T, ws *workspace.Workspace, capabilities string) *scriptedClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &scriptedClient{t: t, in: inW, out: bufio.NewReader(outR), done: make(chan error, 1)}
	go func() { c.done <- Serve(context.Background(), ws, "test", inR, outW, Options{}); outW.Close() }()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	c.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":` + capabilities + `,"clientInfo":{"name":"c","version":"1"}}}`)
	if got := c.next(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":0,"result":{"capabilities"`) {
		t.Fatalf("initialize: %s", got)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *scriptedClient) send(msg string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, msg+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// next is the next message the server writes (the test fails after a
// generous wait).
func (c *scriptedClient) next() string {
	c.t.Helper()
	line := make(chan string, 1)
	go func() {
		s, _ := c.out.ReadString('\n')
		line <- strings.TrimSuffix(s, "\n")
	}()
	return await(c.t, line, 20*time.Second, "no message from the server")
}

// approvalWorkspace is a test workspace whose tools all require approval.
func approvalWorkspace(t *testing.T) (*workspace.Workspace, string) {
	t.Helper()
	root := t.TempDir()
	cfg := config.Default()
	cfg.Tools.RequireApproval = true
	ws, err := workspace.New(workspace.Options{Root: root, StateDir: t.TempDir(), Config: cfg, HostEnv: []string{"PATH=" + os.Getenv("PATH")}})
	must(t, err)
	t.Cleanup(func() { ws.Close() })
	return ws, root
}

const writeCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mastra_workspace_write_file","arguments":{"path":"new.txt","content":"x"}}}`

// TestElicitApproval: a call that requires approval asks the client's
// user with elicitation/create; accept runs it, decline and cancel do not.
func TestElicitApproval(t *testing.T) {
	tests := []struct {
		answer string // the client's response to the elicitation, %ID% for its id
		want   string // the tool call's answer
		wrote  bool
	}{
		{answer: `{"jsonrpc":"2.0","id":%ID%,"result":{"action":"accept","content":{}}}`,
			want: `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Wrote 1 bytes to new.txt"}]`, wrote: true},
		{answer: `{"jsonrpc":"2.0","id":%ID%,"result":{"action":"decline"}}`,
			want: `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"the call of mastra_workspace_write_file was not approved"}],"isError":true}}`},
		{answer: `{"jsonrpc":"2.0","id":%ID%,"result":{"action":"cancel"}}`,
			want: `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"the call of mastra_workspace_write_file was not approved"}],"isError":true}}`},
		{answer: `{"jsonrpc":"2.0","id":%ID%,"error":{"code":-32601,"message":"no UI"}}`,
			want: `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"mastra_workspace_write_file requires approval, and asking the MCP client's user failed: no UI"}],"isError":true}}`},
		{answer: `{"jsonrpc":"2.0","id":%ID%,"result":"garbage"}`,
			want: `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"mastra_workspace_write_file requires approval, and asking the MCP client's user failed: the answer is not an elicitation result: must be an object, not string"}],"isError":true}}`},
		{answer: `{"jsonrpc":"2.0","id":%ID%,"result":{"action":7}}`,
			want: `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"mastra_workspace_write_file requires approval, and asking the MCP client's user failed: the answer is not an elicitation result: action must be a string, not number"}],"isError":true}}`},
		{answer: `{"jsonrpc":"2.0","id":%ID%,"result":{"action":"maybe"}}`,
			want: `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"mastra_workspace_write_file requires approval, and asking the MCP client's user failed: unknown action \"maybe\""}],"isError":true}}`},
	}
	for _, tt := range tests {
		t.Run(tt.answer, func(t *testing.T) {
			ws, root := approvalWorkspace(t)
			c := newScriptedClient(t, ws, `{"elicitation":{}}`)
			c.send(writeCall)
			ask := c.next()
			var req struct {
				ID     json.RawMessage
				Method string
				Params struct {
					Message         string
					RequestedSchema map[string]any
				}
			}
			must(t, json.Unmarshal([]byte(ask), &req))
			if req.Method != "elicitation/create" || req.Params.Message != `Allow mastra_workspace_write_file {"content":"x","path":"new.txt"}?` ||
				req.Params.RequestedSchema["type"] != "object" {
				t.Fatalf("the server asked %s", ask)
			}
			c.send(strings.ReplaceAll(tt.answer, "%ID%", string(req.ID)))
			if got := c.next(); !strings.HasPrefix(got, tt.want) {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			_, err := os.Stat(filepath.Join(root, "new.txt"))
			if wrote := err == nil; wrote != tt.wrote {
				t.Errorf("file written: %v, want %v", wrote, tt.wrote)
			}
		})
	}
}

// TestElicitUnsupported: a client that did not declare elicitation (or
// declared only url mode) is not asked; the call is refused with the
// reason.
func TestElicitUnsupported(t *testing.T) {
	for _, caps := range []string{`{}`, `{"elicitation":{"url":{}}}`, `{"sampling":{}}`} {
		t.Run(caps, func(t *testing.T) {
			ws, root := approvalWorkspace(t)
			c := newScriptedClient(t, ws, caps)
			c.send(writeCall)
			want := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"mastra_workspace_write_file requires approval, and this MCP client cannot ask its user (it did not declare the elicitation capability): start ws mcp with --yes to approve such calls without asking"}],"isError":true}}`
			if got := c.next(); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
			if _, err := os.Stat(filepath.Join(root, "new.txt")); err == nil {
				t.Error("the refused call wrote its file")
			}
		})
	}
}

// TestElicitCancelled: cancelling a call that waits for the user's answer
// withdraws the question (notifications/cancelled to the client) and the
// call gets no response; the late answer is dropped.
func TestElicitCancelled(t *testing.T) {
	ws, root := approvalWorkspace(t)
	c := newScriptedClient(t, ws, `{"elicitation":{"form":{}}}`)
	c.send(writeCall)
	var req struct{ ID json.RawMessage }
	must(t, json.Unmarshal([]byte(c.next()), &req))
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	want := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"the tool call was cancelled","requestId":` + string(req.ID) + `}}`
	if got := c.next(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	c.send(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"action":"accept"}}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if got := c.next(); got != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Errorf("after the cancellation: %s", got)
	}
	if _, err := os.Stat(filepath.Join(root, "new.txt")); err == nil {
		t.Error("the cancelled call wrote its file")
	}
}

// TestElicitInputEnds: when the client's input ends while a call waits
// for the user's answer, the call is refused at once and answered before
// Serve returns.
func TestElicitInputEnds(t *testing.T) {
	ws, _ := approvalWorkspace(t)
	c := newScriptedClient(t, ws, `{"elicitation":{}}`)
	c.send(writeCall)
	if got := c.next(); !strings.Contains(got, `"method":"elicitation/create"`) {
		t.Fatalf("the server asked %s", got)
	}
	c.in.Close()
	want := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"mastra_workspace_write_file requires approval, and asking the MCP client's user failed: the client's input ended before it answered"}],"isError":true}}`
	if got := c.next(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	must(t, await(t, c.done, 20*time.Second, "Serve did not return"))
}

func TestCanElicit(t *testing.T) {
	tests := map[string]bool{
		`{}`: false, `{"elicitation":null}`: false, `{"elicitation":{}}`: true, `{"elicitation":{"form":{}}}`: true,
		`{"elicitation":{"form":{},"url":{}}}`: true, `{"elicitation":{"url":{}}}`: false, `{"elicitation":true}`: false, ``: false,
	}
	for caps, want := range tests {
		if got := canElicit(json.RawMessage(caps)); got != want {
			t.Errorf("canElicit(%s) = %v, want %v", caps, got, want)
		}
	}
}
