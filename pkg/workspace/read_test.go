package workspace

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/tokens"
)

func intp(n int) *int    { return &n }
func boolp(b bool) *bool { return &b }

// TestReadBudget checks the whole-line truncation against the token
// estimate of the full text: output that fits is the full text (Mastra's
// rule), and a cut output never exceeds the budget and names the offset
// that continues.
func TestReadBudget(t *testing.T) {
	words := []string{"alpha", "日本語", "(x)", "  indented", "", "a_b-c", "3.14", "über", "👍", "\t", "foo.bar(baz)", "\r"}
	rng := rand.New(rand.NewSource(1))
	for iter := range 200 {
		var sb strings.Builder
		lines := 1 + rng.Intn(60)
		for i := range lines {
			for k := rng.Intn(8); k > 0; k-- {
				sb.WriteString(words[rng.Intn(len(words))])
				sb.WriteByte(' ')
			}
			if i < lines-1 || rng.Intn(2) == 0 {
				sb.WriteByte('\n')
			}
		}
		content := sb.String()
		budget := 5 + rng.Intn(120)
		cfg := config.Default()
		cfg.Tools.PerTool[ReadFile] = config.Tool{MaxOutputTokens: &budget}
		w, root := newTestWorkspace(t, cfg)
		must(t, os.WriteFile(filepath.Join(root, "f.txt"), []byte(content), 0o644))
		req := ReadRequest{Path: "f.txt", ShowLineNumbers: boolp(rng.Intn(3) > 0)}
		if rng.Intn(2) == 0 {
			req.Offset = intp(1 + rng.Intn(lines))
		}
		res, err := w.Read(context.Background(), req)
		must(t, err)
		full := referenceRead(content, req, int64(len(content)))
		out := res.Text()
		if tokens.Estimate(full) <= budget {
			if out != full {
				t.Fatalf("case %d: fits the budget but differs:\n got %q\nwant %q", iter, out, full)
			}
			continue
		}
		body, notice, ok := strings.Cut(out, "\n[output truncated: ")
		if !ok {
			t.Fatalf("case %d: over budget (%d > %d) without a notice: %q", iter, tokens.Estimate(full), budget, out)
		}
		if got := tokens.Estimate(body); got > budget {
			t.Fatalf("case %d: cut output has %d tokens, budget %d", iter, got, budget)
		}
		if !strings.Contains(notice, "offset=") && !strings.Contains(notice, "last line") {
			t.Fatalf("case %d: notice without a continuation: %q", iter, notice)
		}
		_, bodyLines, _ := strings.Cut(body, "\n")
		_, fullLines, _ := strings.Cut(full, "\n")
		if !strings.HasPrefix(fullLines, bodyLines) {
			t.Fatalf("case %d: cut output is not a prefix of the full text:\n%q\n%q", iter, body, full)
		}
	}
}

// referenceRead formats a text read the simple way: the whole file in
// memory, POSIX lines, Mastra's header and gutter.
func referenceRead(content string, req ReadRequest, size int64) string {
	lines := strings.Split(content, "\n")
	if strings.HasSuffix(content, "\n") || content == "" {
		lines = lines[:len(lines)-1]
	}
	start, end := 1, len(lines)
	if req.Offset != nil {
		start = *req.Offset
	}
	if req.Limit != nil {
		end = min(end, start+*req.Limit-1)
	}
	header := fmt.Sprintf("f.txt (%d bytes)", size)
	if req.Offset != nil || req.Limit != nil {
		header = fmt.Sprintf("f.txt (lines %d-%d of %d, %d bytes)", start, end, len(lines), size)
	}
	var sb strings.Builder
	sb.WriteString(header + "\n")
	for i := start; i <= end; i++ {
		if i > start {
			sb.WriteByte('\n')
		}
		if req.ShowLineNumbers == nil || *req.ShowLineNumbers {
			gutter(&sb, i, gutterWidth(end), jsString([]byte(lines[i-1])))
		} else {
			sb.WriteString(lines[i-1])
		}
	}
	return sb.String()
}

func TestReadKinds(t *testing.T) {
	w, root := newTestWorkspace(t, nil)
	files := map[string]string{
		"x.jsonl":  "{\"a\":1}\n",
		"x.php":    "<?php echo 1;\n",
		"Makefile": "all:\n\ttrue\n",
		"img.png":  "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"arch.zip": "PK\x03\x04",
		"nul.txt":  "text\x00more",
		"x.gif":    "GIF89a",
		"doc.pdf":  "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n",
		"lat1.txt": "caf\xe9\n",
	}
	for name, content := range files {
		must(t, os.WriteFile(filepath.Join(root, name), []byte(content), 0o644))
	}
	tests := []struct{ path, kind, mime string }{
		{"x.jsonl", ReadText, ""},
		{"x.php", ReadText, ""},
		{"Makefile", ReadText, ""},
		{"img.png", ReadMedia, "image/png"},
		{"doc.pdf", ReadMedia, "application/pdf"},
		{"arch.zip", ReadBinary, "application/zip"},
		{"nul.txt", ReadBinary, "application/octet-stream"},
		{"x.gif", ReadBinary, "image/gif"},
		{"lat1.txt", ReadText, ""},
	}
	for _, tt := range tests {
		res, err := w.Read(context.Background(), ReadRequest{Path: tt.path})
		if err != nil {
			t.Errorf("%s: %v", tt.path, err)
			continue
		}
		if res.Kind != tt.kind || res.MediaType != tt.mime {
			t.Errorf("%s: kind %s %q, want %s %q (%q)", tt.path, res.Kind, res.MediaType, tt.kind, tt.mime, res.Text())
		}
	}
	res, err := w.Read(context.Background(), ReadRequest{Path: "lat1.txt"})
	must(t, err)
	if want := "lat1.txt (5 bytes)\n     1→caf\uFFFD"; res.Text() != want {
		t.Errorf("latin-1 text: %q, want %q", res.Text(), want)
	}
}

// TestReadEncodedWindows reads random files with base64, hex and binary,
// following each notice's offset, with and without a limit and under
// several budgets: every output but its notice is within the budget, the
// windows are consecutive whole units that decode to the file, and the
// last one has no notice.
func TestReadEncodedWindows(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	for iter := range 24 {
		budget := []int{30, 200, 2000}[iter%3]
		cfg := config.Default()
		cfg.Tools.PerTool[ReadFile] = config.Tool{MaxOutputTokens: &budget}
		w, root := newTestWorkspace(t, cfg)
		data := make([]byte, 1+rng.Intn(30000))
		for i := range data {
			data[i] = byte(rng.Intn(256))
			if iter%2 == 0 {
				data[i] = "ab c\n+/="[rng.Intn(8)]
			}
		}
		must(t, os.WriteFile(filepath.Join(root, "f.bin"), data, 0o644))
		for _, enc := range []string{"base64", "hex", "binary"} {
			var limit *int
			if rng.Intn(2) == 0 {
				limit = intp(1 + rng.Intn(5000))
			}
			var got []byte
			offset := 1
			for step := 0; ; step++ {
				req := ReadRequest{Path: "f.bin", Encoding: enc, Limit: limit}
				if step > 0 || rng.Intn(2) == 0 {
					req.Offset = intp(offset)
				}
				res, err := w.Read(context.Background(), req)
				must(t, err)
				what := fmt.Sprintf("iter %d %s budget %d offset %d limit %v", iter, enc, budget, offset, limit)
				body, notice, cut := strings.Cut(res.Text(), "\n[output truncated: ")
				if tokens.Estimate(body) > budget && len(*res.Content) > 4 {
					t.Fatalf("%s: %d tokens over a budget of %d", what, tokens.Estimate(body), budget)
				}
				chunk := decodeForTest(t, enc, string(*res.Content))
				got = append(got, chunk...)
				if !cut {
					if res.Truncated {
						t.Fatalf("%s: truncated without a notice", what)
					}
					break
				}
				next := offset + len(chunk)
				if want := fmt.Sprintf("showing bytes %d-%d of %d; continue with offset=%d]", offset, next-1, len(data), next); notice != want || res.NextOffset != next {
					t.Fatalf("%s: notice %q (next %d), want %q", what, notice, res.NextOffset, want)
				}
				if enc == "base64" && next <= len(data) && len(chunk)%3 != 0 {
					t.Fatalf("%s: a base64 window of %d bytes", what, len(chunk))
				}
				offset = next
			}
			want := data
			if limit != nil {
				// A limit bounds each window; the last one read ends
				// within it or at the end of the file.
				want = data[:len(got)]
			}
			if string(got) != string(want) || limit == nil && len(got) != len(data) {
				t.Fatalf("iter %d %s: the windows hold %d bytes that differ from the file's %d", iter, enc, len(got), len(data))
			}
		}
	}
}

func decodeForTest(t *testing.T, enc, s string) []byte {
	t.Helper()
	switch enc {
	case "base64":
		b, err := base64.StdEncoding.DecodeString(s)
		must(t, err)
		return b
	case "hex":
		b, err := hex.DecodeString(s)
		must(t, err)
		return b
	}
	var b []byte
	for _, r := range s {
		b = append(b, byte(r))
	}
	return b
}
