package workspace

import (
	"context"
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
