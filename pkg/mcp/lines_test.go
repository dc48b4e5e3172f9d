package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeLongLine answers a line longer than maxLineBytes with a
// JSON-RPC error carrying the request's id, wherever the id stands, and
// goes on serving; a line within the bound is a call like any other.
func TestServeLongLine(t *testing.T) {
	defer func(n int) { maxLineBytes = n }(maxLineBytes)
	maxLineBytes = 4096
	ws, root := newTestWorkspace(t)
	fill := strings.Repeat("x", 5000)
	fits := strings.Repeat("y", 3900)
	ts := `{"method":"tools/call","params":{"name":"mastra_workspace_write_file","arguments":{"path":"big.txt","content":"` + fill + `"}},"jsonrpc":"2.0","id":"ts-7"}`
	first := `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"mastra_workspace_write_file","arguments":{"path":"big.txt","content":"` + fill + `","id":99}}}`
	note := `{"jsonrpc":"2.0","method":"x","params":{"s":"` + fill + `"}}`
	in := initialize + "\n" +
		ts + "\n" + // the TypeScript SDK puts the id last
		first + "\r\n" +
		note + "\n" +
		`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"mastra_workspace_write_file","arguments":{"path":"fits.txt","content":"` + fits + `"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":10,"method":"ping"}` + "\n" +
		fill // the last line, without its newline
	var out bytes.Buffer
	must(t, Serve(context.Background(), ws, "test", strings.NewReader(in), &out, Options{}))
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	tooLong := func(id string, n int) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32600,"message":"Invalid Request: a line of ` + strconv.Itoa(n) +
			` bytes, over the 4096 a message may have, was not read (tool arguments over 67108864 bytes are not accepted: send big content in smaller calls)"}}`
	}
	want := map[string]bool{
		tooLong(`"ts-7"`, len(ts)+1):            true,
		tooLong(`8`, len(first)+2):              true,
		tooLong(`null`, len(note)+1):            true,
		tooLong(`null`, len(fill)):              true,
		`{"jsonrpc":"2.0","id":10,"result":{}}`: true,
	}
	for _, l := range lines[1:] {
		switch {
		case want[l]:
			delete(want, l)
		case strings.HasPrefix(l, `{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"Wrote 3900 bytes to fits.txt`):
		default:
			t.Errorf("unexpected answer %.300s", l)
		}
	}
	for l := range want {
		t.Errorf("no answer %s", l)
	}
	if len(lines) != 7 {
		t.Errorf("%d answers, want 6:\n%.2000s", len(lines)-1, out.String())
	}
	if _, err := os.Stat(filepath.Join(root, "big.txt")); err == nil {
		t.Errorf("a line too long was run")
	}
}

// TestLineReaderBounded reads a call of many times maxLineBytes, its id
// after the content, holding no more than the bound of it.
func TestLineReaderBounded(t *testing.T) {
	defer func(n int) { maxLineBytes = n }(maxLineBytes)
	maxLineBytes = 1 << 20
	const n = 64 << 20
	lr := newLineReader(io.MultiReader(
		strings.NewReader(`{"method":"tools/call","params":{"name":"mastra_workspace_write_file","arguments":{"path":"a","content":"`),
		io.LimitReader(repeated('x'), n),
		strings.NewReader(`"}},"jsonrpc":"2.0","id":7}`+"\n{}\n")))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	msg, tooLong, err := lr.next()
	runtime.ReadMemStats(&after)
	if msg != nil || !strings.HasPrefix(string(tooLong), `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,`) || err != nil {
		t.Fatalf("next: %q, %q, %v", msg, tooLong, err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
		t.Errorf("reading a line of %d bytes allocated %d bytes", n, grew)
	}
	if msg, _, err := lr.next(); string(msg) != "{}" || err != nil {
		t.Errorf("the line after: %q, %v", msg, err)
	}
	if _, _, err := lr.next(); err != io.EOF {
		t.Errorf("at the end: %v, want EOF", err)
	}
}

// repeated is an endless reader of one byte.
type repeated byte

func (r repeated) Read(p []byte) (int, error) {
	if len(p) > 0 {
		p[0] = byte(r)
		for n := 1; n < len(p); n *= 2 {
			copy(p[n:], p[:n])
		}
	}
	return len(p), nil
}

// TestIDScanner finds a message's id as it streams by, in pieces of every
// size.
func TestIDScanner(t *testing.T) {
	for _, c := range []struct{ msg, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"m"}`, `1`},
		{`{"method":"m","params":{"id":2,"a":[{"id":3}]},"id":"x\"y"}`, `"x\"y"`},
		{`{ "id" : -1.5e3 , "x":1}`, `-1.5e3`},
		{`{"params":{"s":"\"id\":4"},"id":5}`, `5`},
		{`{"idx":6,"xid":7,"i":8}`, ``},
		{`{"id":null}`, ``},
		{`{"id":{"a":1}}`, ``},
		{`{"id":true}`, ``},
		{`[{"id":1}]`, ``},
		{`{"id":"` + strings.Repeat("z", 2000) + `"}`, ``},
		{`{"id":1`, ``}, // cut short
		{`not json`, ``},
	} {
		for _, size := range []int{1, 2, 3, 7, len(c.msg)} {
			var s idScanner
			for p := c.msg; len(p) > 0; {
				k := min(size, len(p))
				s.scan([]byte(p[:k]))
				p = p[k:]
			}
			if got := string(s.found()); got != c.want {
				t.Errorf("%.60s in pieces of %d: id %q, want %q", c.msg, size, got, c.want)
			}
		}
	}
}

// TestSDKClientLongLine sends the official Go SDK client's call of a line
// too long: the client gets its error at once (the answer carries the
// request's id, which the SDK puts after the params), not at its timeout,
// and the session goes on.
func TestSDKClientLongLine(t *testing.T) {
	defer func(n int) { maxLineBytes = n }(maxLineBytes)
	maxLineBytes = 64 << 10
	ws, root := newTestWorkspace(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), ws, "test", inR, outW, Options{}); outW.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	s, err := client.Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	must(t, err)
	big := map[string]any{"path": "big.txt", "content": strings.Repeat("x", 100<<10)}
	start := time.Now()
	_, err = s.CallTool(ctx, &sdk.CallToolParams{Name: "mastra_workspace_write_file", Arguments: big})
	if err == nil || !strings.Contains(err.Error(), "over the 65536 a message may have, was not read") {
		t.Errorf("a call too long: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the call too long failed after %v", d)
	}
	r, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "mastra_workspace_write_file", Arguments: map[string]any{"path": "small.txt", "content": "x"}})
	if err != nil || r.IsError {
		t.Fatalf("the call after: %v, %+v", err, r)
	}
	if _, err := os.Stat(filepath.Join(root, "big.txt")); err == nil {
		t.Errorf("the call too long was run")
	}
	s.Close()
	inW.Close()
	must(t, await(t, done, 5*time.Second, "Serve still runs after its input ended"))
}

// FuzzIDScanner checks the id the scanner finds, in pieces of 3 bytes,
// against the top-level id encoding/json reads from the same message.
func FuzzIDScanner(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"m"}`)
	f.Add(`{"method":"m","params":{"id":2,"a":[{"id":3}]},"id":"x\"y"}`)
	f.Add(`{"a":"\\","id":5}`)
	f.Fuzz(func(t *testing.T, msg string) {
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(msg), &m) != nil || strings.Count(msg, `"id"`) > 1 {
			return // not JSON, or two ids (encoding/json keeps the last)
		}
		var s idScanner
		for i := 0; i < len(msg); i += 3 {
			s.scan([]byte(msg[i:min(i+3, len(msg))]))
		}
		want := bytes.TrimSpace(m["id"])
		if !validID(want) || len(want) > maxIDBytes {
			want = nil
		}
		if got := s.found(); !bytes.Equal(got, want) {
			t.Fatalf("%q: id %q, want %q", msg, got, want)
		}
	})
}
