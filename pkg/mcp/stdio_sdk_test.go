package mcp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
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
	bin := buildWS(t)
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

// buildWS builds the ws binary once for the tests that run it (skipped
// with -short).
func buildWS(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds ws")
	}
	wsBuild.once.Do(func() {
		dir, err := os.MkdirTemp("", "ws-mcp-test-")
		if err != nil {
			wsBuild.err = err
			return
		}
		wsBuild.bin = filepath.Join(dir, "ws")
		build := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", wsBuild.bin, "github.com/wstools/ws")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			wsBuild.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if wsBuild.err != nil {
		t.Fatal(wsBuild.err)
	}
	return wsBuild.bin
}

var wsBuild struct {
	once sync.Once
	bin  string
	err  error
}

// TestStdioClientStopsReading: a client that stops reading ws's stdout
// (it crashed, or closed the pipe) does not kill ws by SIGPIPE, which
// would leave its calls' commands running with no one to stop them:
// ws sees its reader go (or an answer that cannot be written) and stops
// the other calls, and exits 1 saying so.
func TestStdioClientStopsReading(t *testing.T) {
	bin := buildWS(t)
	root := t.TempDir()
	cmd := exec.Command(bin, "--root", root, "--state-dir", t.TempDir(), "mcp")
	cmd.Env = append(os.Environ(), "WS_REMOTE=", "WS_CONFIG=")
	stdin, err := cmd.StdinPipe()
	must(t, err)
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	must(t, cmd.Start())
	defer cmd.Process.Kill()
	io.WriteString(stdin, initialize+"\n")
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.Contains(line, `"result":{"capabilities"`) {
		t.Fatalf("initialize: %q %v", line, err)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mastra_workspace_execute_command","arguments":{"command":"echo $$ > pid; exec sleep 30"}}}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mastra_workspace_execute_command","arguments":{"command":"sleep 0.5; echo done"}}}`+"\n")
	pid := waitPID(t, root)
	stdout.Close() // the client stops reading
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	err = await(t, done, 15*time.Second, "ws mcp still runs after its answers could not be written")
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("ws mcp: %v, want exit status 1 (a signal means SIGPIPE killed it)", err)
	}
	// The watch of the reader or the answer that could not be written
	// says it first.
	if !strings.Contains(stderr.String(), "broken pipe") && !strings.Contains(stderr.String(), errReaderGone.Error()) {
		t.Errorf("stderr: %q", stderr.String())
	}
	for deadline := time.Now().Add(5 * time.Second); syscall.Kill(pid, 0) == nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatal("the other call's command was left running")
		}
	}
}
