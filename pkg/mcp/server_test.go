package mcp

import (
	"bufio"
	"context"
	"encoding/base64"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/wstools/ws/pkg/workspace"
)

// TestServeEndToEnd drives the server with the SDK's own client over an
// in-memory transport: initialize, tools/list, and calls of read, write,
// edit, grep and exec, failures included.
func TestServeEndToEnd(t *testing.T) {
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello\nworld\n"), 0o644))
	png, _ := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUg==")
	must(t, os.WriteFile(filepath.Join(root, "img.png"), png, 0o644))
	ws, err := workspace.New(workspace.Options{Root: root, StateDir: t.TempDir(), HostEnv: []string{"PATH=" + os.Getenv("PATH")}})
	must(t, err)
	defer ws.Close()

	ctx := context.Background()
	serverT, clientT := sdk.NewInMemoryTransports()
	srv := NewServer(ws, "test")
	ss, err := srv.Connect(ctx, serverT, nil)
	must(t, err)
	defer ss.Close()
	client := sdk.NewClient(&sdk.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := client.Connect(ctx, clientT, nil)
	must(t, err)
	defer cs.Close()

	if got := cs.InitializeResult().ServerInfo.Name; got != "ws" {
		t.Errorf("server name %q", got)
	}
	if !strings.Contains(cs.InitializeResult().Instructions, "Local filesystem at") {
		t.Errorf("instructions %q", cs.InitializeResult().Instructions)
	}
	list, err := cs.ListTools(ctx, nil)
	must(t, err)
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		schema, _ := tool.InputSchema.(map[string]any)
		if schema["type"] != "object" {
			t.Errorf("%s: schema %v", tool.Name, tool.InputSchema)
		}
	}
	sort.Strings(names)
	for _, want := range []string{"mastra_workspace_read_file", "mastra_workspace_write_file", "mastra_workspace_edit_file",
		"mastra_workspace_grep", "mastra_workspace_execute_command", "mastra_workspace_list_files"} {
		if sort.SearchStrings(names, want) == len(names) || names[sort.SearchStrings(names, want)] != want {
			t.Errorf("tools/list lacks %s (has %v)", want, names)
		}
	}

	call := func(name string, args map[string]any) *sdk.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		must(t, err)
		return res
	}
	text := func(r *sdk.CallToolResult) string {
		t.Helper()
		if len(r.Content) == 0 {
			t.Fatal("no content")
		}
		tc, ok := r.Content[0].(*sdk.TextContent)
		if !ok {
			t.Fatalf("first content is %T", r.Content[0])
		}
		return tc.Text
	}

	if r := call("mastra_workspace_read_file", map[string]any{"path": "a.txt"}); r.IsError || text(r) != "a.txt (12 bytes)\n     1→hello\n     2→world" {
		t.Errorf("read: %q (error %v)", text(r), r.IsError)
	}
	if r := call("mastra_workspace_write_file", map[string]any{"path": "b/new.txt", "content": "one\ntwo\n"}); r.IsError || text(r) != "Wrote 8 bytes to b/new.txt" {
		t.Errorf("write: %q", text(r))
	}
	if r := call("mastra_workspace_edit_file", map[string]any{"path": "b/new.txt", "old_string": "two", "new_string": "2"}); r.IsError || text(r) != "Replaced 1 occurrence in b/new.txt (lines 2)" {
		t.Errorf("edit: %q", text(r))
	}
	if data, _ := os.ReadFile(filepath.Join(root, "b/new.txt")); string(data) != "one\n2\n" {
		t.Errorf("file after edit: %q", data)
	}
	if r := call("mastra_workspace_grep", map[string]any{"pattern": "wor"}); r.IsError || text(r) != "1 match across 1 file (1 binary file skipped)\n---\na.txt:2:1: world" {
		t.Errorf("grep: %q", text(r))
	}
	if r := call("mastra_workspace_execute_command", map[string]any{"command": "echo out; exit 3"}); r.IsError || text(r) != "out\n\nExit code: 3" {
		t.Errorf("exec: %q", text(r))
	}
	// Failures are isError results with the message.
	if r := call("mastra_workspace_read_file", map[string]any{"path": "nope.txt"}); !r.IsError || text(r) != "File not found: nope.txt" {
		t.Errorf("missing file: %q (error %v)", text(r), r.IsError)
	}
	if r := call("mastra_workspace_edit_file", map[string]any{"path": "a.txt", "old_string": "zzz", "new_string": "y"}); !r.IsError || !strings.HasPrefix(text(r), "The specified text was not found.") {
		t.Errorf("edit not found: %q", text(r))
	}
	if r := call("mastra_workspace_read_file", map[string]any{"path": "a.txt", "offset": 0}); !r.IsError || !strings.HasPrefix(text(r), "Tool input validation failed for mastra_workspace_read_file.") {
		t.Errorf("validation: %q", text(r))
	}
	// Media comes back as image content after the header.
	r := call("mastra_workspace_read_file", map[string]any{"path": "img.png"})
	if r.IsError || len(r.Content) != 2 || text(r) != "img.png (16 bytes, image/png)" {
		t.Fatalf("media: %+v", r)
	}
	if img, ok := r.Content[1].(*sdk.ImageContent); !ok || img.MIMEType != "image/png" || string(img.Data) != string(png) {
		t.Errorf("media part: %#v", r.Content[1])
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestLineGuard(t *testing.T) {
	var out strings.Builder
	in := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\ngarbage{\n\n{\"a\":1}"
	g := &lineGuard{r: bufio.NewReader(strings.NewReader(in)), out: &out}
	got, err := io.ReadAll(g)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{\"a\":1}\n" {
		t.Errorf("passed on %q", got)
	}
	if out.String() != parseError {
		t.Errorf("answered %q", out.String())
	}
}
