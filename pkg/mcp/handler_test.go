package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/wstools/ws/pkg/workspace"
)

// newTestWorkspace is a workspace over a temporary root holding a.txt.
func newTestWorkspace(t testing.TB) (*workspace.Workspace, string) {
	t.Helper()
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello\nworld\n"), 0o644))
	ws, err := workspace.New(workspace.Options{Root: root, StateDir: t.TempDir(), HostEnv: []string{"PATH=" + os.Getenv("PATH")}})
	must(t, err)
	t.Cleanup(func() { ws.Close() })
	return ws, root
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// await returns what ch gives, or ends the test with the message late
// when nothing comes within d.
func await[T any](t testing.TB, ch <-chan T, d time.Duration, late string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatal(late)
		var zero T
		return zero
	}
}

const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`

// TestHandle sends each case's message to a fresh, initialized handler
// (or, with fresh, one that has not seen initialize) and compares the
// answer: exactly, or by the strings it must contain.
func TestHandle(t *testing.T) {
	ws, _ := newTestWorkspace(t)
	instructions, _ := json.Marshal(ws.Instructions())
	initResult := func(id, version string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"capabilities":{"logging":{},"tools":{}},"instructions":` +
			string(instructions) + `,"protocolVersion":"` + version + `","serverInfo":{"name":"ws","title":"ws workspace","version":"test"}}}`
	}
	initWith := func(v string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + v + `","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	}
	deep := strings.Repeat("[", goMaxDepth+1) + strings.Repeat("]", goMaxDepth+1)
	tests := []struct {
		name     string
		fresh    bool
		in       string
		want     string   // the exact answer ("" for none)
		contains []string // or strings the answer holds
	}{
		// initialize and version negotiation
		{name: "initialize 2025-11-25", fresh: true, in: initWith("2025-11-25"), want: initResult("1", "2025-11-25")},
		{name: "initialize 2025-06-18", fresh: true, in: initWith("2025-06-18"), want: initResult("1", "2025-06-18")},
		{name: "initialize 2025-03-26", fresh: true, in: initWith("2025-03-26"), want: initResult("1", "2025-03-26")},
		{name: "initialize 2024-11-05", fresh: true, in: initWith("2024-11-05"), want: initResult("1", "2024-11-05")},
		{name: "initialize unknown version gets the newest", fresh: true, in: initWith("2099-01-01"), want: initResult("1", "2025-11-25")},
		{name: "initialize without a version gets the newest", fresh: true, in: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, want: initResult("1", "2025-11-25")},
		{name: "initialize without params", fresh: true, in: `{"jsonrpc":"2.0","id":1,"method":"initialize"}`,
			want: `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: initialize needs params"}}`},
		{name: "initialize with a bad version type", fresh: true, in: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":5}}`,
			want: `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: protocolVersion must be a string, not number"}}`},
		{name: "initialize twice", in: initWith("2025-06-18"),
			want: `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: initialize was already received"}}`},
		{name: "tools/list before initialize", fresh: true, in: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			want: `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Invalid Request: method \"tools/list\" is invalid before initialize"}}`},
		{name: "ping before initialize", fresh: true, in: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, want: `{"jsonrpc":"2.0","id":1,"result":{}}`},
		{name: "initialized notification", in: `{"jsonrpc":"2.0","method":"notifications/initialized"}`},

		// ping and ids
		{name: "ping", in: `{"jsonrpc":"2.0","id":2,"method":"ping"}`, want: `{"jsonrpc":"2.0","id":2,"result":{}}`},
		{name: "ping with empty params", in: `{"jsonrpc":"2.0","id":2,"method":"ping","params":{}}`, want: `{"jsonrpc":"2.0","id":2,"result":{}}`},
		{name: "string id", in: `{"jsonrpc":"2.0","id":"a-1","method":"ping"}`, want: `{"jsonrpc":"2.0","id":"a-1","result":{}}`},
		{name: "fractional id comes back as sent", in: `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, want: `{"jsonrpc":"2.0","id":1.5,"result":{}}`},
		{name: "surrounding space", in: " \t{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\r\n", want: `{"jsonrpc":"2.0","id":2,"result":{}}`},
		{name: "ping as a notification", in: `{"jsonrpc":"2.0","method":"ping"}`},

		// tools/list
		{name: "tools/list", in: `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, contains: []string{
			`{"jsonrpc":"2.0","id":3,"result":{"tools":[{"annotations":{"idempotentHint":false,"readOnlyHint":false},"description":"Delete a file`,
			`{"annotations":{"idempotentHint":false,"readOnlyHint":true},"description":"Read a file`,
			`"inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"path":`,
			`"name":"mastra_workspace_read_file"}`,
		}},
		{name: "tools/list with a cursor", in: `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"abc"}}`,
			want: `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: unknown cursor \"abc\""}}`},
		{name: "tools/list with null params", in: `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":null}`, contains: []string{`"result":{"tools":[{`}},

		// tools/call
		{name: "tools/call", in: `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"mastra_workspace_read_file","arguments":{"path":"a.txt"}}}`,
			want: `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"a.txt (12 bytes)\n     1→hello\n     2→world"}],` +
				`"structuredContent":{"path":"a.txt","size":12,"kind":"text","content":"hello\nworld","start_line":1,"end_line":2,"total_lines":2,"truncated":false}}}`},
		{name: "tools/call with _meta", in: `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"mastra_workspace_file_stat","arguments":{"path":"a.txt"},"_meta":{"progressToken":1}}}`,
			contains: []string{`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"a.txt`}},
		{name: "tools/call that fails", in: `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"mastra_workspace_read_file","arguments":{"path":"<nope>"}}}`,
			want: `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"File not found: <nope>"}],"isError":true}}`},
		{name: "tools/call without arguments", in: `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"mastra_workspace_read_file"}}`,
			contains: []string{`"result":{"content":[{"type":"text","text":"Tool input validation failed for mastra_workspace_read_file.`, `Provided arguments: {}"}],"isError":true}}`}},
		{name: "tools/call with array arguments", in: `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"mastra_workspace_read_file","arguments":[1]}}`,
			contains: []string{`root: Invalid input: expected object, received array`, `"isError":true}}`}},
		{name: "tools/call of an unknown tool", in: `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope","arguments":{}}}`,
			want: `{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"unknown tool \"nope\""}}`},
		{name: "tools/call of a tool the workspace does not offer", in: `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"glob","arguments":{}}}`,
			want: `{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"unknown tool \"glob\" (one of ws's own tools: the config's tools.wsTools: true offers it)"}}`},
		{name: "tools/call of a tool by its short name", in: `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"read_file","arguments":{}}}`,
			want: `{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"unknown tool \"read_file\" (did you mean mastra_workspace_read_file?)"}}`},
		{name: "tools/call without a name", in: `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{}}`,
			want: `{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params: tools/call needs a name: the tool to call, as tools/list names it"}}`},
		{name: "tools/call without params", in: `{"jsonrpc":"2.0","id":4,"method":"tools/call"}`,
			want: `{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params: tools/call needs params"}}`},
		{name: "tools/call with a number for a name", in: `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":5}}`,
			want: `{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params: name must be a string, not number"}}`},
		{name: "logging/setLevel with a number", in: `{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":3}}`,
			want: `{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params: level must be a string, not number"}}`},
		{name: "tools/list with an object cursor", in: `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"cursor":{}}}`,
			want: `{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params: cursor must be a string, not object"}}`},

		// nested deeper than encoding/json reads (10000 levels)
		{name: "arguments too deep for encoding/json", in: `{"jsonrpc":"2.0","id":"d","method":"tools/call","params":{"name":"mastra_workspace_read_file","arguments":{"path":` + deep + `}}}`,
			contains: []string{`{"jsonrpc":"2.0","id":"d","result":{"content":[{"type":"text","text":"Tool input validation failed for mastra_workspace_read_file.`,
				`- root: Too deep: the arguments nest more than 512 levels`, `"isError":true}}`}},
		{name: "arguments too deep, members in another order", in: `{"params":{"arguments":` + deep + `, "name":"mastra_workspace_read_file"},"id":5,"method":"tools/call","jsonrpc":"2.0"}`,
			contains: []string{`{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"Tool input validation failed`, `Too deep`}},
		{name: "too deep, with brackets and quotes in strings", in: `{"jsonrpc":"2.0","id":"q]}\"","method":"tools/call","params":{"name":"mastra_workspace_read_file","arguments":{"path":"a]}\"{[","x":` + deep + `}}}`,
			contains: []string{`{"jsonrpc":"2.0","id":"q]}\"","result":{"content":[{"type":"text","text":"Tool input validation failed`, `Too deep`}},
		{name: "too deep a batch", in: `[{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"mastra_workspace_read_file","arguments":` + deep + `}}]`,
			contains: []string{`[{"jsonrpc":"2.0","id":"b","result":{"content":[{"type":"text","text":"Tool input validation failed`, `Too deep`}},
		{name: "_meta too deep", in: `{"jsonrpc":"2.0","id":"m","method":"tools/call","params":{"name":"mastra_workspace_read_file","arguments":{},"_meta":` + deep + `}}`,
			want: `{"jsonrpc":"2.0","id":"m","error":{"code":-32602,"message":"Invalid params: the params nest more than 10000 levels"}}`},
		{name: "an id too deep", in: `{"jsonrpc":"2.0","id":` + deep + `,"method":"ping"}`,
			want: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: id must be a string or a number"}}`},
		{name: "too deep and cut short", in: `{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"x","arguments":` + deep + `}`,
			want: `{"jsonrpc":"2.0","id":"c","error":{"code":-32700,"message":"Parse error: the message is not JSON"}}`},
		{name: "too deep with a bad member", in: `{"jsonrpc":"2.0","id":"c","method":tools,"params":{"arguments":` + deep + `}}`,
			want: `{"jsonrpc":"2.0","id":"c","error":{"code":-32700,"message":"Parse error: the message is not JSON"}}`},
		{name: "params that are not an object", in: `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":"x"}`,
			want: `{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params: params must be an object"}}`},
		{name: "params by position", in: `{"jsonrpc":"2.0","id":4,"method":"ping","params":[]}`,
			want: `{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params: params must be an object"}}`},

		// the other methods
		{name: "logging/setLevel", in: `{"jsonrpc":"2.0","id":5,"method":"logging/setLevel","params":{"level":"info"}}`, want: `{"jsonrpc":"2.0","id":5,"result":{}}`},
		{name: "logging/setLevel with a bad level", in: `{"jsonrpc":"2.0","id":5,"method":"logging/setLevel","params":{"level":"loud"}}`,
			want: `{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Invalid params: unknown logging level \"loud\""}}`},
		{name: "resources/list", in: `{"jsonrpc":"2.0","id":5,"method":"resources/list"}`, want: `{"jsonrpc":"2.0","id":5,"result":{"resources":[]}}`},
		{name: "resources/templates/list", in: `{"jsonrpc":"2.0","id":5,"method":"resources/templates/list"}`, want: `{"jsonrpc":"2.0","id":5,"result":{"resourceTemplates":[]}}`},
		{name: "prompts/list", in: `{"jsonrpc":"2.0","id":5,"method":"prompts/list"}`, want: `{"jsonrpc":"2.0","id":5,"result":{"prompts":[]}}`},
		{name: "unknown method", in: `{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"file:///a"}}`,
			want: `{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"method not found: \"resources/read\""}}`},
		{name: "unknown notification", in: `{"jsonrpc":"2.0","method":"notifications/whatever","params":{"x":1}}`},
		{name: "cancellation of nothing", in: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99,"reason":"late"}}`},
		{name: "cancellation without params", in: `{"jsonrpc":"2.0","method":"notifications/cancelled"}`},
		{name: "a notification with bad params", in: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":"x"}`},

		// messages that are not requests
		{name: "a response", in: `{"jsonrpc":"2.0","id":6,"result":{}}`},
		{name: "an error response", in: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}`},
		{name: "not JSON", in: `garbage{`, want: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the message is not JSON"}}`},
		{name: "not JSON, with an id", in: `{"jsonrpc":"2.0","id":7,"method":"ping"}}`,
			want: `{"jsonrpc":"2.0","id":7,"error":{"code":-32700,"message":"Parse error: the message is not JSON"}}`},
		{name: "a message a raw line break cut", in: `{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"mastra_workspace_write_file","arguments":{"path":"a","content":"one`,
			want: `{"jsonrpc":"2.0","id":"w","error":{"code":-32700,"message":"Parse error: the message is not JSON: it ends inside a string (a line break in a string is written \\n)"}}`},
		{name: "empty", in: ``, want: `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the message is not JSON"}}`},
		{name: "a number", in: `5`, want: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a message must be a JSON object"}}`},
		{name: "null", in: `null`, want: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a message must be a JSON object"}}`},
		{name: "no jsonrpc member", in: `{"id":7,"method":"ping"}`, want: `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request: jsonrpc must be \"2.0\""}}`},
		{name: "jsonrpc 1.0", in: `{"jsonrpc":"1.0","id":7,"method":"ping"}`, want: `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request: jsonrpc must be \"2.0\""}}`},
		{name: "null id", in: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, want: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: id must be a string or a number"}}`},
		{name: "id that is not UTF-8", in: "{\"jsonrpc\":\"2.0\",\"id\":\"u\xff\",\"method\":\"ping\"}",
			want: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: id is not valid UTF-8"}}`},
		{name: "object id", in: `{"jsonrpc":"2.0","id":{},"method":"ping"}`, want: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: id must be a string or a number"}}`},
		{name: "no method", in: `{"jsonrpc":"2.0","id":7}`, want: `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request: no method"}}`},
		{name: "method not a string", in: `{"jsonrpc":"2.0","id":7,"method":5}`, want: `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request: method must be a string"}}`},

		// batches (JSON-RPC 2.0; MCP 2025-03-26)
		{name: "batch", in: `[{"jsonrpc":"2.0","id":8,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},5,{"jsonrpc":"2.0","id":9,"method":"nope"}]`,
			want: `[{"jsonrpc":"2.0","id":8,"result":{}},{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a message must be a JSON object"}},` +
				`{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"method not found: \"nope\""}}]`},
		{name: "batch of notifications", in: `[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":1,"result":{}}]`},
		{name: "empty batch", in: `[]`, want: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: empty batch"}}`},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := NewHandler(ws, "test")
			if !tt.fresh {
				if got := string(h.Handle(ctx, []byte(initialize))); !strings.Contains(got, `"result":{"capabilities"`) {
					t.Fatalf("initialize: %s", got)
				}
			}
			got := string(h.Handle(ctx, []byte(tt.in)))
			if tt.contains == nil && got != tt.want {
				t.Errorf("Handle(%s)\n got %s\nwant %s", tt.in, got, tt.want)
			}
			for _, s := range tt.contains {
				if !strings.Contains(got, s) {
					t.Errorf("Handle(%s)\n got %s\nlacks %s", tt.in, got, s)
				}
			}
			if got != "" && (!json.Valid([]byte(got)) || !utf8.ValidString(got)) {
				t.Errorf("answer is not JSON: %s", got)
			}
		})
	}
}

// TestCancel checks that notifications/cancelled stops the request it
// names (the command is killed) and that the request then gets no
// response.
func TestCancel(t *testing.T) {
	ws, root := newTestWorkspace(t)
	h := NewHandler(ws, "test")
	ctx := context.Background()
	h.Handle(ctx, []byte(initialize))
	j := h.accept(ctx, []byte(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"mastra_workspace_execute_command","arguments":{"command":"sleep 10; touch late"}}}`))
	if !j.slow {
		t.Error("a tool call is not marked slow")
	}
	done := make(chan []byte)
	start := time.Now()
	go func() { done <- j.answer() }()
	// The id is taken while the call runs.
	if got := string(h.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":"slow","method":"ping"}`))); got != `{"jsonrpc":"2.0","id":"slow","error":{"code":-32600,"message":"Invalid Request: request \"slow\" is already in progress"}}` {
		t.Errorf("same id while running: %s", got)
	}
	time.Sleep(100 * time.Millisecond)
	if got := h.Handle(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow","reason":"user"}}`)); got != nil {
		t.Errorf("the notification was answered: %s", got)
	}
	if got := await(t, done, 5*time.Second, "the cancelled command is still running"); got != nil {
		t.Errorf("the cancelled request was answered: %s", got)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancellation took %v", d)
	}
	if _, err := os.Stat(filepath.Join(root, "late")); err == nil {
		t.Error("the cancelled command ran to the end")
	}
	// The id is free again once the request ended.
	if got := string(h.Handle(ctx, []byte(`{"jsonrpc":"2.0","id":"slow","method":"ping"}`))); got != `{"jsonrpc":"2.0","id":"slow","result":{}}` {
		t.Errorf("ping after: %s", got)
	}
}

func TestValidBase64(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{"", true},
		{"aGVsbG8=", true},
		{"aGVsbG8h", true},
		{"aGVsbG8", false},    // padding missing
		{"aGVs\nbG8=", false}, // a line break a decoder would skip
		{"aGVsbG8=\r\n", false},
		{"aGVs*G8=", false},
		{"aGVsbG8=aGVs", false}, // data after the padding
		{"aGVsbG8-", false},     // the URL alphabet
	} {
		if got := validBase64(tt.in); got != tt.want {
			t.Errorf("validBase64(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// mediaResult is a result with images beside its text, as notebook_read's.
type mediaResult struct {
	parts []workspace.MediaPart
	note  string
}

func (r *mediaResult) Text() string                           { return "text" }
func (r *mediaResult) Media() ([]workspace.MediaPart, string) { return r.parts, r.note }

// TestToResultMedia checks that a result's images follow its text as
// image content, each after a line naming it, with the note last; a part
// that is not valid base64 is left out.
func TestToResultMedia(t *testing.T) {
	res := &mediaResult{parts: []workspace.MediaPart{
		{Label: "cell 1, output 1", MediaType: "image/png", Base64: "aGVsbG8="},
		{Label: "cell 2, output 1", MediaType: "image/png", Base64: "not base64"},
		{Label: "cell 3, output 2", MediaType: "image/jpeg", Base64: "aGk="},
	}, note: "1 more image"}
	b, err := json.Marshal(toResult("/w", res, nil).Content)
	must(t, err)
	want := `[{"type":"text","text":"text"},{"type":"text","text":"cell 1, output 1 (image/png):"},{"type":"image","mimeType":"image/png","data":"aGVsbG8="},` +
		`{"type":"text","text":"cell 3, output 2 (image/jpeg):"},{"type":"image","mimeType":"image/jpeg","data":"aGk="},{"type":"text","text":"1 more image"}]`
	if string(b) != want {
		t.Errorf("content:\n%s\nwant\n%s", b, want)
	}
}
