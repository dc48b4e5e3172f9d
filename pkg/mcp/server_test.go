package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestServeEndToEnd drives a session over stdio: initialize, tools/list,
// and calls of read, write, edit, grep and exec, failures included.
func TestServeEndToEnd(t *testing.T) {
	ws, root := newTestWorkspace(t)
	png, _ := base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUg==")
	must(t, os.WriteFile(filepath.Join(root, "img.png"), png, 0o644))

	// Each call waits for the one before (a pipe, not a file), since
	// tool calls are answered concurrently.
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), ws, "test", inR, outW, Options{}); outW.Close() }()
	lines := json.NewDecoder(outR)
	id := 0
	send := func(method string, params any) (json.RawMessage, *rpcError) {
		t.Helper()
		id++
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := inW.Write(append(msg, '\n')); err != nil {
			t.Fatal(err)
		}
		var resp struct {
			ID     int
			Result json.RawMessage
			Error  *rpcError
		}
		must(t, lines.Decode(&resp))
		if resp.ID != id {
			t.Fatalf("answer to %d, want %d", resp.ID, id)
		}
		return resp.Result, resp.Error
	}

	var init struct {
		ProtocolVersion string
		ServerInfo      implementation
		Instructions    string
	}
	res, rerr := send("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": implementation{Name: "test", Version: "1"}})
	if rerr != nil {
		t.Fatal(rerr)
	}
	must(t, json.Unmarshal(res, &init))
	if init.ServerInfo.Name != "ws" || init.ProtocolVersion != "2025-06-18" || !strings.Contains(init.Instructions, "Local filesystem at") {
		t.Errorf("initialize: %s", res)
	}
	inW.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))

	res, _ = send("tools/list", nil)
	var list struct {
		Tools []struct {
			Name        string
			InputSchema map[string]any
		}
	}
	must(t, json.Unmarshal(res, &list))
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema["type"] != "object" {
			t.Errorf("%s: schema %v", tool.Name, tool.InputSchema)
		}
	}
	if !sort.StringsAreSorted(names) {
		t.Errorf("tools not sorted by name: %v", names)
	}
	for _, want := range []string{"mastra_workspace_read_file", "mastra_workspace_write_file", "mastra_workspace_edit_file",
		"mastra_workspace_grep", "mastra_workspace_execute_command", "mastra_workspace_list_files"} {
		if i := sort.SearchStrings(names, want); i == len(names) || names[i] != want {
			t.Errorf("tools/list lacks %s (has %v)", want, names)
		}
	}

	type content struct {
		Type, Text, MIMEType, Data string
	}
	call := func(name string, args map[string]any) (texts []content, isError bool) {
		t.Helper()
		res, rerr := send("tools/call", map[string]any{"name": name, "arguments": args})
		if rerr != nil {
			t.Fatalf("%s: %v", name, rerr.Message)
		}
		var r struct {
			Content []content
			IsError bool
		}
		must(t, json.Unmarshal(res, &r))
		if len(r.Content) == 0 || r.Content[0].Type != "text" {
			t.Fatalf("%s: content %s", name, res)
		}
		return r.Content, r.IsError
	}
	text := func(name string, args map[string]any) (string, bool) {
		t.Helper()
		c, isError := call(name, args)
		return c[0].Text, isError
	}

	if s, e := text("mastra_workspace_read_file", map[string]any{"path": "a.txt"}); e || s != "a.txt (12 bytes)\n     1→hello\n     2→world" {
		t.Errorf("read: %q (error %v)", s, e)
	}
	if s, e := text("mastra_workspace_write_file", map[string]any{"path": "b/new.txt", "content": "one\ntwo\n"}); e || s != "Wrote 8 bytes to b/new.txt" {
		t.Errorf("write: %q", s)
	}
	if s, e := text("mastra_workspace_edit_file", map[string]any{"path": "b/new.txt", "old_string": "two", "new_string": "2"}); e || s != "Replaced 1 occurrence in b/new.txt (lines 2)\n\n--- a/b/new.txt\n+++ b/b/new.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2" {
		t.Errorf("edit: %q", s)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "b/new.txt")); string(data) != "one\n2\n" {
		t.Errorf("file after edit: %q", data)
	}
	if s, e := text("mastra_workspace_grep", map[string]any{"pattern": "wor"}); e || s != "1 match across 1 file (1 binary file skipped)\n---\na.txt:2:1: world" {
		t.Errorf("grep: %q", s)
	}
	if s, e := text("mastra_workspace_execute_command", map[string]any{"command": "echo out; exit 3"}); e || s != "out\n\nExit code: 3" {
		t.Errorf("exec: %q", s)
	}
	// Failures are isError results with the message.
	if s, e := text("mastra_workspace_read_file", map[string]any{"path": "nope.txt"}); !e || s != "File not found: nope.txt" {
		t.Errorf("missing file: %q (error %v)", s, e)
	}
	if s, e := text("mastra_workspace_edit_file", map[string]any{"path": "a.txt", "old_string": "zzz", "new_string": "y"}); !e || !strings.HasPrefix(s, "The specified text was not found.") {
		t.Errorf("edit not found: %q", s)
	}
	if s, e := text("mastra_workspace_read_file", map[string]any{"path": "a.txt", "offset": 0}); !e || !strings.HasPrefix(s, "Tool input validation failed for mastra_workspace_read_file.") {
		t.Errorf("validation: %q", s)
	}
	// Media comes back as image content after the header.
	c, e := call("mastra_workspace_read_file", map[string]any{"path": "img.png"})
	if e || len(c) != 2 || c[0].Text != "img.png (16 bytes, image/png)" {
		t.Fatalf("media: %+v", c)
	}
	if c[1].Type != "image" || c[1].MIMEType != "image/png" || c[1].Data != base64.StdEncoding.EncodeToString(png) {
		t.Errorf("media part: %+v", c[1])
	}

	inW.Close()
	must(t, await(t, done, 5*time.Second, "Serve did not return at the end of its input"))
}

// TestServeLines checks the stdio framing: blank lines are skipped, a
// line that is not JSON is answered and the session goes on, the last
// line needs no newline, and answers of calls still running when the
// input ends are written before Serve returns.
func TestServeLines(t *testing.T) {
	ws, _ := newTestWorkspace(t)
	in := initialize + "\n\n   \r\ngarbage{\n" +
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mastra_workspace_execute_command","arguments":{"command":"sleep 0.2; echo slow"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\r\n" +
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`
	var out bytes.Buffer
	must(t, Serve(context.Background(), ws, "test", strings.NewReader(in), &out, Options{}))
	lines := strings.Split(out.String(), "\n")
	if len(lines) != 6 || lines[5] != "" {
		t.Fatalf("want 5 lines, got %q", out.String())
	}
	// What is not a tool call is answered in order; the slow call last.
	if !strings.HasPrefix(lines[0], `{"jsonrpc":"2.0","id":0,"result":{"capabilities"`) ||
		lines[1] != `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the message is not JSON"}}` ||
		lines[2] != `{"jsonrpc":"2.0","id":2,"result":{}}` || lines[3] != `{"jsonrpc":"2.0","id":3,"result":{}}` ||
		!strings.HasPrefix(lines[4], `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"slow\n"}]`) {
		t.Errorf("got\n%s", out.String())
	}
}

// TestServeCancel stops a session whose input is still open (ws mcp
// sent SIGTERM): Serve returns nil without waiting for another line, once
// the tool call it stopped has answered.
func TestServeCancel(t *testing.T) {
	ws, _ := newTestWorkspace(t)
	inR, inW := io.Pipe()
	defer inW.Close()
	var out lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ws, "test", inR, &out, Options{}) }()
	io.WriteString(inW, initialize+"\n"+`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mastra_workspace_execute_command","arguments":{"command":"sleep 10"}}}`+"\n")
	time.Sleep(200 * time.Millisecond)
	cancel()
	if err := await(t, done, 5*time.Second, "Serve still runs after its context was cancelled"); err != nil {
		t.Errorf("Serve: %v, want nil (a session ended by its caller)", err)
	}
	if got := out.String(); !strings.Contains(got, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Exit code: 143"}]`) {
		t.Errorf("the stopped call's answer is missing:\n%s", got)
	}
}

// lockedBuffer is a bytes.Buffer that can be read while Serve writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestServeWriteError ends the session when the answers cannot be written.
func TestServeWriteError(t *testing.T) {
	ws, _ := newTestWorkspace(t)
	in := strings.NewReader(initialize + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n")
	if err := Serve(context.Background(), ws, "test", in, failWriter{}, Options{}); err != io.ErrClosedPipe {
		t.Errorf("Serve: %v, want %v", err, io.ErrClosedPipe)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

// TestServeWriteErrorStopsCalls: when an answer cannot be written (the
// client stopped reading), the calls still running are stopped at once,
// not left to run to their timeouts while Serve waits for input that
// may never come; Serve returns the write's error.
func TestServeWriteErrorStopsCalls(t *testing.T) {
	ws, root := newTestWorkspace(t)
	inR, inW := io.Pipe()
	defer inW.Close()
	out := &failAfter{ok: 1} // the answer to initialize, then nothing
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), ws, "test", inR, out, Options{}) }()
	io.WriteString(inW, initialize+"\n"+
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mastra_workspace_execute_command","arguments":{"command":"sleep 0.2; echo a"}}}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mastra_workspace_execute_command","arguments":{"command":"sleep 20; touch late"}}}`+"\n")
	if err := await(t, done, 10*time.Second, "Serve still runs after an answer could not be written"); err != io.ErrClosedPipe {
		t.Errorf("Serve: %v, want %v", err, io.ErrClosedPipe)
	}
	time.Sleep(100 * time.Millisecond)
	if _, err := os.Stat(filepath.Join(root, "late")); err == nil {
		t.Error("the call still running was not stopped")
	}
}

// failAfter is a writer that takes ok writes, then fails.
type failAfter struct {
	mu sync.Mutex
	ok int
}

func (f *failAfter) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ok == 0 {
		return 0, io.ErrClosedPipe
	}
	f.ok--
	return len(p), nil
}

// TestServeReaderGone: a client that quits or crashes closes ws's stdout
// (a pipe, or a socket as node's child_process makes them) while a call
// runs whose command would not end for long. Nothing is written until it
// answers, so no write can fail: Serve must see that the reader is gone,
// stop the call (its command ends) and return, not wait for the command.
func TestServeReaderGone(t *testing.T) {
	pipe := func(t *testing.T) (r, w *os.File) {
		r, w, err := os.Pipe()
		must(t, err)
		return r, w
	}
	socket := func(t *testing.T) (r, w *os.File) {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		must(t, err)
		return os.NewFile(uintptr(fds[0]), "client"), os.NewFile(uintptr(fds[1]), "stdout")
	}
	for name, open := range map[string]func(*testing.T) (r, w *os.File){"pipe": pipe, "socket": socket} {
		t.Run(name, func(t *testing.T) {
			ws, root := newTestWorkspace(t)
			inR, inW := io.Pipe()
			defer inW.Close() // the input stays open: only the reader goes
			outR, outW := open(t)
			defer outW.Close()
			done := make(chan error, 1)
			go func() { done <- Serve(context.Background(), ws, "test", inR, outW, Options{}) }()
			io.WriteString(inW, initialize+"\n"+
				`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mastra_workspace_execute_command","arguments":{"command":"echo $$ > pid; exec sleep 60","timeout":0}}}`+"\n")
			line, err := bufio.NewReader(outR).ReadString('\n')
			if err != nil || !strings.Contains(line, `"id":0,"result"`) {
				t.Fatalf("initialize: %q %v", line, err)
			}
			pid := waitPID(t, root)
			outR.Close() // the client is gone
			if err := await(t, done, 15*time.Second, "Serve still waits for a call whose client has gone"); err != errReaderGone {
				t.Errorf("Serve: %v, want %v", err, errReaderGone)
			}
			// Serve returned once the call had answered: its command has
			// been ended and reaped.
			if err := unix.Kill(pid, 0); err != unix.ESRCH {
				unix.Kill(pid, unix.SIGKILL)
				t.Errorf("the call's command still runs (kill 0: %v)", err)
			}
		})
	}
}

// TestServeInputEndsReaderStays: a client that only ends ws's input (a
// request file, or a client waiting for its answers) is answered in
// full: the watch of the reader does not take the end of input for a
// client that has gone.
func TestServeInputEndsReaderStays(t *testing.T) {
	ws, _ := newTestWorkspace(t)
	outR, outW, err := os.Pipe()
	must(t, err)
	defer outR.Close()
	in := strings.NewReader(initialize + "\n" +
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"mastra_workspace_execute_command","arguments":{"command":"sleep 0.3; echo late"}}}` + "\n")
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), ws, "test", in, outW, Options{}); outW.Close() }()
	out, err := io.ReadAll(outR)
	must(t, err)
	must(t, await(t, done, 15*time.Second, "Serve did not return"))
	if !strings.Contains(string(out), `"id":1,"result":{"content":[{"type":"text","text":"late\n"}]`) {
		t.Errorf("answers: %s", out)
	}
}

// waitPID waits up to 10 s for the command of a test call to write its
// pid to root/pid (echo $$ > pid) and returns it.
func waitPID(t *testing.T, root string) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(filepath.Join(root, "pid"))
		if pid, _ := strconv.Atoi(strings.TrimSpace(string(b))); pid != 0 {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatal("the command did not start")
		}
	}
}
