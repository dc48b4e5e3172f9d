package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

// fakeVector is the test server's deterministic vector of a text: its
// length and its first two bytes, so every text gets its own.
func fakeVector(s string, dim int) []float64 {
	v := make([]float64, dim)
	v[0] = float64(len(s))
	for i := 1; i < dim && i-1 < len(s); i++ {
		v[i] = float64(s[i-1])
	}
	return v
}

// server is an OpenAI-compatible embeddings endpoint on 127.0.0.1. fail
// answers the first requests with an error status (0: none).
type server struct {
	*httptest.Server
	requests atomic.Int32
	batches  []int
	auth     string
}

func newServer(t *testing.T, dim int, fail func(n int) int) *server {
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(s.requests.Add(1))
		s.auth = r.Header.Get("Authorization")
		if fail != nil {
			if code := fail(n); code != 0 {
				w.Header().Set("Retry-After", "0")
				w.WriteHeader(code)
				fmt.Fprintf(w, `{"error":{"message":"busy, key was %s"}}`, strings.TrimPrefix(s.auth, "Bearer "))
				return
			}
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model == "" {
			w.WriteHeader(400)
			fmt.Fprint(w, `{"error":"bad request"}`)
			return
		}
		s.batches = append(s.batches, len(req.Input))
		type item struct {
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		}
		var data []item
		// Answer in reverse order: the client must sort by index.
		for i := len(req.Input) - 1; i >= 0; i-- {
			data = append(data, item{i, fakeVector(req.Input[i], dim)})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
	}))
	t.Cleanup(s.Close)
	return s
}

func TestHTTPBatches(t *testing.T) {
	s := newServer(t, 4, nil)
	h := &HTTP{URL: s.URL + "/v1/embeddings", Name: "m", Key: "sk-secret", Batch: 2}
	texts := []string{"a", "bb", "ccc", "dddd", "eeeee"}
	vecs, err := h.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(s.batches) != "[2 2 1]" {
		t.Errorf("batches %v, want [2 2 1]", s.batches)
	}
	for i, v := range vecs {
		if v[0] != float32(len(texts[i])) || v[1] != float32(texts[i][0]) {
			t.Errorf("vector %d = %v (out of order?)", i, v)
		}
	}
	if s.auth != "Bearer sk-secret" {
		t.Errorf("Authorization %q", s.auth)
	}
}

func TestHTTPRetriesThenSucceeds(t *testing.T) {
	s := newServer(t, 3, func(n int) int {
		if n <= 2 {
			return http.StatusTooManyRequests
		}
		return 0
	})
	h := &HTTP{URL: s.URL, Name: "m", Retries: 3, Backoff: time.Millisecond}
	vecs, err := h.Embed(context.Background(), []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 1 || s.requests.Load() != 3 {
		t.Errorf("got %d vectors after %d requests, want 1 after 3", len(vecs), s.requests.Load())
	}
}

func TestHTTPErrors(t *testing.T) {
	down := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return "http://" + addr + "/v1/embeddings"
	}()
	always := func(code int) func(int) int { return func(int) int { return code } }
	s500 := newServer(t, 3, always(500))
	s401 := newServer(t, 3, always(401))
	tests := []struct {
		name     string
		url      string
		retries  int
		want     string
		requests int
		srv      *server
	}{
		{"endpoint down", down, 3, "embedder " + down + ": cannot reach it: connect: connection refused", 0, nil},
		{"5xx after retries", s500.URL + "/e?key=sk-secret", 2,
			"embedder " + s500.URL + "/e: HTTP 500 Internal Server Error: busy, key was <key> (after 3 attempts)", 3, s500},
		{"4xx not retried", s401.URL, 3, "embedder " + s401.URL + ": HTTP 401 Unauthorized: busy, key was <key>", 1, s401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &HTTP{URL: tt.url, Name: "m", Key: "sk-secret", Retries: tt.retries, Backoff: time.Millisecond}
			_, err := h.Embed(context.Background(), []string{"x"})
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v\nwant  %s", err, tt.want)
			}
			if strings.Contains(err.Error(), "sk-secret") {
				t.Errorf("the key leaked: %v", err)
			}
			if tt.srv != nil && int(tt.srv.requests.Load()) != tt.requests {
				t.Errorf("%d requests, want %d", tt.srv.requests.Load(), tt.requests)
			}
		})
	}
}

func TestHTTPTimeout(t *testing.T) {
	block := make(chan struct{})
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-block }))
	defer s.Close()
	defer close(block)
	h := &HTTP{URL: s.URL, Name: "m", Timeout: 50 * time.Millisecond, Retries: 1, Backoff: time.Millisecond}
	_, err := h.Embed(context.Background(), []string{"x"})
	want := "embedder " + s.URL + ": no answer within 50ms (after 2 attempts)"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %s", err, want)
	}
}

func TestCheck(t *testing.T) {
	nan := float32(0)
	nan = nan / nan
	tests := []struct {
		vecs [][]float32
		n    int
		want string
	}{
		{[][]float32{{1, 2}}, 2, "returned 1 embedding for 2 texts"},
		{[][]float32{}, 1, "returned 0 embeddings for 1 text"},
		{[][]float32{{1}, {2}, {3}}, 2, "returned 3 embeddings for 2 texts"},
		{[][]float32{{1, 2}, {1}}, 2, "returned embeddings of different dimensions (2 and 1)"},
		{[][]float32{{}}, 1, "returned an empty embedding (text 0)"},
		{[][]float32{{nan}}, 1, "returned a number that is not finite (text 0)"},
		{[][]float32{{1}, {2}}, 2, ""},
	}
	for _, tt := range tests {
		err := Check("e", tt.vecs, tt.n, 0)
		got := ""
		if err != nil {
			got = strings.TrimPrefix(err.Error(), "embedder e: ")
		}
		if got != tt.want {
			t.Errorf("Check(%v) = %q, want %q", tt.vecs, got, tt.want)
		}
	}
	// Every batch's answer is checked.
	calls := 0
	_, err := batches(context.Background(), "e", []string{"a", "b"}, 1, func(ctx context.Context, texts []string) ([][]float32, error) {
		calls++
		return make([][]float32, 1, 1), nil
	})
	if err == nil || calls != 1 {
		t.Errorf("empty vectors accepted (%v, %d calls)", err, calls)
	}
}

func TestCommand(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "embed.sh")
	// Each text's vector is [its length, 1]: computed by the shell from
	// the JSON on stdin (texts without quotes or backslashes).
	os.WriteFile(script, []byte(`#!/bin/sh
read -r line
echo "$line" >> "$0.log"
printf '{"embeddings":['
echo "$line" | sed 's/^{"texts":\[//; s/\]}$//' | tr ',' '\n' | {
  sep=""
  while read -r t; do
    t=${t#\"}; t=${t%\"}
    printf '%s[%d,1]' "$sep" "${#t}"; sep=,
  done
}
printf ']}\n'
`), 0o755)
	c := &Command{Argv: []string{script}, Batch: 2, Env: []string{"PATH=/usr/bin:/bin"}}
	vecs, err := c.Embed(context.Background(), []string{"a", "bbb", "cc"})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(vecs) != "[[1 1] [3 1] [2 1]]" {
		t.Errorf("vectors %v", vecs)
	}
	log, _ := os.ReadFile(script + ".log")
	if string(log) != "{\"texts\":[\"a\",\"bbb\"]}\n{\"texts\":[\"cc\"]}\n" {
		t.Errorf("the command read %q", log)
	}
	if c.Model() != script {
		t.Errorf("Model() = %q", c.Model())
	}

	bad := &Command{Argv: []string{"/bin/sh", "-c", "echo oops >&2; exit 3"}}
	_, err = bad.Embed(context.Background(), []string{"x"})
	var ee *Error
	if !errors.As(err, &ee) || err.Error() != "embedder command /bin/sh -c echo oops >&2; exit 3: exit status 3: oops" {
		t.Errorf("failing command: %v", err)
	}
	junk := &Command{Argv: []string{"/bin/sh", "-c", "echo '{\"vectors\":[]}'"}}
	_, err = junk.Embed(context.Background(), []string{"x"})
	if err == nil || !strings.Contains(err.Error(), `did not print {"embeddings": [[...]]}: no "embeddings" array`) {
		t.Errorf("wrong answer: %v", err)
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:pw@api.example.com/v1/embeddings?key=1#x": "https://api.example.com/v1/embeddings",
		"http://127.0.0.1:11434/v1/embeddings":                  "http://127.0.0.1:11434/v1/embeddings",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFirstLineCutsWholeCharacters: an endpoint's long error line is cut
// at 300 bytes without splitting a UTF-8 character.
func TestFirstLineCutsWholeCharacters(t *testing.T) {
	got := firstLine("a" + strings.Repeat("é", 200) + "\nsecond")
	if !strings.HasSuffix(got, "…") || len(got) > 300+len("…") || !utf8.ValidString(got) {
		t.Fatalf("firstLine = %q (%d bytes)", got, len(got))
	}
}

// TestCommandFailureWords checks that a command that cannot start, or
// whose answer is not the embeddings, is told in plain words, never in
// Go's (fork/exec …, invalid character … in literal null).
func TestCommandFailureWords(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		argv []string
		want string
	}{
		{"a relative program that is not there", []string{"./nonexist"},
			"embedder command ./nonexist: cannot start ./nonexist: no such file or directory (a relative program is found from the workspace root, where the command runs; give an absolute path)"},
		{"a program not in PATH", []string{"no-such-embedder-program"},
			"embedder command no-such-embedder-program: cannot start no-such-embedder-program: no such program in PATH"},
		{"not JSON", []string{"/bin/sh", "-c", "echo not json"},
			`embedder command /bin/sh -c echo not json: did not print {"embeddings": [[...]]}: what it printed is not JSON: "not json"`},
		{"JSON cut short", []string{"/bin/sh", "-c", `echo '{"embeddings": [[1'`},
			`embedder command /bin/sh -c echo '{"embeddings": [[1': did not print {"embeddings": [[...]]}: what it printed is not JSON: "{\"embeddings\": [[1"`},
		{"nothing", []string{"/bin/sh", "-c", "true"},
			`embedder command /bin/sh -c true: did not print {"embeddings": [[...]]}: it printed nothing`},
		{"not an object", []string{"/bin/sh", "-c", "echo '[[1]]'"},
			`embedder command /bin/sh -c echo '[[1]]': did not print {"embeddings": [[...]]}: what it printed is not a JSON object`},
		{"embeddings of strings", []string{"/bin/sh", "-c", `echo '{"embeddings": ["a"]}'`},
			`embedder command /bin/sh -c echo '{"embeddings": ["a"]}': did not print {"embeddings": [[...]]}: "embeddings" must be an array of arrays of numbers`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Command{Argv: tt.argv, Dir: dir, Env: []string{"PATH=/usr/bin:/bin"}}
			_, err := c.Embed(context.Background(), []string{"x"})
			if err == nil || err.Error() != tt.want {
				t.Errorf("got  %v\nwant %s", err, tt.want)
			}
		})
	}
}
