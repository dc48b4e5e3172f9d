package mcp

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestStdioSDKClient runs a real `ws mcp` process under the official Go
// SDK's client over stdio, as a desktop client starts it: the session is
// negotiated, tools listed and called (a failure is an isError result),
// a long command is cancelled by the client (notifications/cancelled:
// the command is killed, and the session goes on), and closing stdin
// ends ws at once, with nothing on stderr.
func TestStdioSDKClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ws")
	}
	bin := filepath.Join(t.TempDir(), "ws")
	build := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, "github.com/wstools/ws")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello\nworld\n"), 0o644))
	cmd := exec.Command(bin, "--root", root, "--state-dir", t.TempDir(), "mcp")
	cmd.Env = append(os.Environ(), "WS_REMOTE=", "WS_CONFIG=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	s, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	must(t, err)
	if v := s.InitializeResult().ProtocolVersion; v != protocolVersions[0] {
		t.Errorf("negotiated %q, want %q", v, protocolVersions[0])
	}
	must(t, s.Ping(ctx, nil))

	tools, err := s.ListTools(ctx, nil)
	must(t, err)
	names := map[string]bool{}
	for _, tl := range tools.Tools {
		names[tl.Name] = true
	}
	if !names["mastra_workspace_read_file"] || !names["mastra_workspace_execute_command"] || names["glob"] {
		t.Errorf("tools: %v", names)
	}

	text := func(r *sdk.CallToolResult) string {
		if len(r.Content) == 0 {
			return ""
		}
		tc, _ := r.Content[0].(*sdk.TextContent)
		if tc == nil {
			return ""
		}
		return tc.Text
	}
	r, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "mastra_workspace_read_file", Arguments: map[string]any{"path": "a.txt"}})
	must(t, err)
	if got := text(r); r.IsError || got != "a.txt (12 bytes)\n     1→hello\n     2→world" {
		t.Errorf("read: %q (isError %v)", got, r.IsError)
	}
	r, err = s.CallTool(ctx, &sdk.CallToolParams{Name: "mastra_workspace_read_file", Arguments: map[string]any{"path": "a.txt", "offset": 0}})
	must(t, err)
	if got := text(r); !r.IsError || !strings.HasPrefix(got, "Tool input validation failed for mastra_workspace_read_file.") || !strings.Contains(got, "\n- offset: Too small") {
		t.Errorf("invalid: %q (isError %v)", got, r.IsError)
	}

	// The client gives up on a long command: the SDK sends
	// notifications/cancelled, and ws kills the command.
	callCtx, stop := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := s.CallTool(callCtx, &sdk.CallToolParams{Name: "mastra_workspace_execute_command",
			Arguments: map[string]any{"command": "echo $$ > pid; exec sleep 30"}})
		errc <- err
	}()
	pidFile := filepath.Join(root, "pid")
	var pid int
	for deadline := time.Now().Add(10 * time.Second); pid == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the command did not start")
		}
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	stop()
	if err := await(t, errc, 10*time.Second, "the cancelled call did not return"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v", err)
	}
	for deadline := time.Now().Add(10 * time.Second); syscall.Kill(pid, 0) == nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the cancelled command is still running")
		}
	}
	must(t, s.Ping(ctx, nil)) // the session goes on

	start := time.Now()
	must(t, s.Close())
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("ws took %v to exit after its stdin closed", d)
	}
	if cmd.ProcessState == nil || !cmd.ProcessState.Success() {
		t.Errorf("ws mcp exit: %v", cmd.ProcessState)
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr: %s", stderr.String())
	}
}
