package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// tsSDK is the version of the official TypeScript MCP SDK the test uses.
const tsSDK = "@modelcontextprotocol/sdk@1.32.2"

// TestTypeScriptClient runs testdata/ts-client.mjs, a session of the
// official TypeScript MCP client (npm, installed here into a temporary
// directory), against a real `ws mcp --http` process. Skipped without
// node and npm, unless WS_REQUIRE_NODE=1 (CI).
func TestTypeScriptClient(t *testing.T) {
	node, err1 := exec.LookPath("node")
	npm, err2 := exec.LookPath("npm")
	if err1 != nil || err2 != nil {
		if os.Getenv("WS_REQUIRE_NODE") == "1" {
			t.Fatalf("node and npm are needed: %v %v", err1, err2)
		}
		t.Skip("node and npm are needed")
	}
	dir := t.TempDir()
	install := exec.Command(npm, "install", "--no-audit", "--no-fund", "--silent", "--prefix", dir, tsSDK)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm install %s: %v\n%s", tsSDK, err, out)
	}
	for _, name := range []string{"ts-client.mjs", "ts-elicit.mjs"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(dir, name), data, 0o644)) // beside its node_modules
	}

	bin := filepath.Join(dir, "ws")
	build := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, "github.com/wstools/ws")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello\nworld\n"), 0o644))
	// serve starts ws mcp --http on root with the extra arguments; it
	// returns the process and the URL it serves.
	serve := func(root string, extra ...string) (*exec.Cmd, string) {
		args := append([]string{"--root", root, "--state-dir", t.TempDir()}, extra...)
		ws := exec.Command(bin, append(args, "mcp", "--http", "127.0.0.1:0")...)
		ws.Env = append(os.Environ(), "WS_MCP_TOKEN="+testToken, "WS_REMOTE=")
		stderr, err := ws.StderrPipe()
		must(t, err)
		must(t, ws.Start())
		t.Cleanup(func() { ws.Process.Kill() })
		line, err := bufio.NewReader(stderr).ReadString('\n')
		must(t, err)
		url, ok := strings.CutPrefix(strings.TrimSpace(line), "ws mcp: serving ")
		if !ok {
			t.Fatalf("ws mcp said %q", line)
		}
		return ws, url
	}
	// run runs a client script with its arguments; it returns what the
	// script printed, by key.
	run := func(script string, args ...string) map[string]json.RawMessage {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		client := exec.CommandContext(ctx, node, append([]string{filepath.Join(dir, script)}, args...)...)
		var out, errb bytes.Buffer
		client.Stdout, client.Stderr = &out, &errb
		if err := client.Run(); err != nil {
			t.Fatalf("the client %s: %v\n%s\n%s", script, err, out.String(), errb.String())
		}
		got := map[string]json.RawMessage{}
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			must(t, json.Unmarshal([]byte(l), &got))
		}
		return got
	}
	type result struct {
		Text    string `json:"text"`
		IsError bool   `json:"isError"`
	}

	// With every tool needing approval and one request at a time, the
	// client's elicitation handler answers (its answer needs no place).
	cfg := filepath.Join(t.TempDir(), "config.json")
	must(t, os.WriteFile(cfg, []byte(`{"tools": {"requireApproval": true}}`), 0o644))
	eroot := t.TempDir()
	_, eurl := serve(eroot, "--config", cfg, "--max-requests", "1")
	got := run("ts-elicit.mjs", eurl, testToken)
	for key, w := range map[string]any{
		"question": `Allow mastra_workspace_write_file {"content":"x","path":"d.txt"}?`,
		"approved": result{Text: "Wrote 1 bytes to c.txt"},
		"declined": result{Text: "the call of mastra_workspace_write_file was not approved", IsError: true},
	} {
		wj, _ := json.Marshal(w)
		if a, b := canonical(t, got[key]), canonical(t, json.RawMessage(wj)); a != b {
			t.Errorf("elicitation: %s: got %s, want %s", key, a, b)
		}
	}
	if _, err := os.Stat(filepath.Join(eroot, "d.txt")); err == nil {
		t.Error("the declined call wrote its file")
	}

	ws, url := serve(root, "--progress-every", "0.3")
	got = run("ts-client.mjs", url, testToken, itoa(ws.Process.Pid))
	want := map[string]any{
		"unauthorized":  401,
		"noToken":       "refused",
		"server":        "ws",
		"read":          result{Text: "a.txt (12 bytes)\n     1→hello\n     2→world"},
		"write":         result{Text: "Wrote 8 bytes to b.txt"},
		"readBack":      result{Text: "b.txt (16 bytes)\n     1→from TypeScript"},
		"missing":       result{Text: "File not found: nope.txt", IsError: true},
		"exec":          result{Text: "hi\n\nExit code: 3"},
		"second":        result{Text: "a.txt (12 bytes)\n     1→hello\n     2→world"},
		"drained":       result{Text: "drained\n"},
		"long":          result{Text: "long\n"},
		"progressHeard": true,
	}
	for key, w := range want {
		wj, _ := json.Marshal(w)
		if a, b := canonical(t, got[key]), canonical(t, json.RawMessage(wj)); a != b {
			t.Errorf("%s: got %s, want %s", key, a, b)
		}
	}
	var tools []string
	must(t, json.Unmarshal(got["tools"], &tools))
	if len(tools) == 0 || !strings.Contains(strings.Join(tools, " "), "mastra_workspace_read_file") {
		t.Errorf("tools: %v", tools)
	}
	for _, key := range []string{"edit", "invalid"} {
		var r result
		must(t, json.Unmarshal(got[key], &r))
		if key == "edit" && (r.IsError || !strings.HasPrefix(r.Text, "Replaced 1 occurrence in b.txt")) ||
			key == "invalid" && (!r.IsError || !strings.HasPrefix(r.Text, "Tool input validation failed for mastra_workspace_read_file.")) {
			t.Errorf("%s: %+v", key, r)
		}
	}
	if string(got["after"]) == "200" {
		t.Errorf("the server answered after SIGTERM")
	}
	// ws exits 0 once the call in flight has answered.
	done := make(chan error, 1)
	go func() { done <- ws.Wait() }()
	if err := await(t, done, 10*time.Second, "ws mcp did not exit after SIGTERM"); err != nil {
		t.Errorf("ws mcp after SIGTERM: %v", err)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
