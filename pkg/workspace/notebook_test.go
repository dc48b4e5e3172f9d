package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/config"
)

// notebookWith is a notebook of n code cells, each with one output that
// holds a PNG (its base64 in data) and a text.
func notebookWith(n int, png string) string {
	var cells []string
	for i := 0; i < n; i++ {
		cells = append(cells, fmt.Sprintf(`{"cell_type": "code", "execution_count": %d, "id": "c%d", "metadata": {}, "source": ["plot(%d)"],
 "outputs": [{"output_type": "display_data", "metadata": {}, "data": {"image/png": %q, "text/plain": ["<Figure>"]}}]}`, i+1, i, i, png))
	}
	return `{"cells": [` + strings.Join(cells, ",\n") + `], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`
}

// TestNotebookMedia checks which output images notebook_read carries
// beside its text: those of the cells shown, within mediaTypes and
// maxMediaBytes, at most maxNotebookImages, with a note on the others.
func TestNotebookMedia(t *testing.T) {
	png := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==" // 70 bytes
	limit := func(types []string, bytes int64) *config.Config {
		cfg := config.Default()
		cfg.Tools.PerTool[NotebookRead] = config.Tool{MediaTypes: types, MaxMediaBytes: &bytes}
		return cfg
	}
	yes, no := true, false
	for _, tc := range []struct {
		name   string
		cfg    *config.Config
		cells  int
		req    NotebookReadRequest
		labels string
		note   string
	}{
		{"all", nil, 2, NotebookReadRequest{}, "cell 0, output 1|cell 1, output 1", ""},
		{"one cell", nil, 3, NotebookReadRequest{CellID: "c2"}, "cell 2, output 1", ""},
		{"from", nil, 3, NotebookReadRequest{From: new(int)}, "cell 0, output 1|cell 1, output 1|cell 2, output 1", ""},
		{"no outputs", nil, 2, NotebookReadRequest{Outputs: &no}, "", ""},
		{"outputs", nil, 1, NotebookReadRequest{Outputs: &yes}, "cell 0, output 1", ""},
		{"at most 8", nil, 10, NotebookReadRequest{}, "cell 0, output 1|cell 1, output 1|cell 2, output 1|cell 3, output 1|cell 4, output 1|cell 5, output 1|cell 6, output 1|cell 7, output 1",
			"2 more images in these outputs are not attached"},
		{"maxMediaBytes", limit([]string{"image/*"}, 150), 3, NotebookReadRequest{}, "cell 0, output 1|cell 1, output 1", "1 more image in these outputs is not attached"},
		{"mediaTypes", limit([]string{"image/jpeg"}, 1<<20), 2, NotebookReadRequest{}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, root := newTestWorkspace(t, tc.cfg)
			must(t, os.WriteFile(filepath.Join(root, "nb.ipynb"), []byte(notebookWith(tc.cells, png)), 0o644))
			req := tc.req
			req.Path = "nb.ipynb"
			res, err := w.NotebookRead(context.Background(), req)
			must(t, err)
			parts, note := res.Media()
			var labels []string
			for _, p := range parts {
				if p.MediaType != "image/png" || p.Base64 != png {
					t.Errorf("part %s: %s, %.20s…", p.Label, p.MediaType, p.Base64)
				}
				labels = append(labels, p.Label)
			}
			if got := strings.Join(labels, "|"); got != tc.labels {
				t.Errorf("parts %q, want %q", got, tc.labels)
			}
			if !strings.HasPrefix(note, tc.note) || (tc.note == "") != (note == "") {
				t.Errorf("note %q, want %q…", note, tc.note)
			}
			// The images are not in --json's data (they are in the file).
			if b, _ := json.Marshal(res); strings.Contains(string(b), png) {
				t.Errorf("the JSON data holds the image: %.200s", b)
			}
		})
	}
}

// BenchmarkNotebookReadBudget shows a notebook of 5,000 small cells
// under a budget that takes them all. Measured on a 2-core machine: with
// each cell estimating the whole text shown so far again, 4.2 s a read (a
// 50,000-cell notebook took 5 minutes); with the estimate kept as the text
// grows, 33 ms.
func BenchmarkNotebookReadBudget(b *testing.B) {
	big := 1_000_000
	cfg := config.Default()
	cfg.Tools.PerTool[NotebookRead] = config.Tool{MaxOutputTokens: &big}
	w, root := newTestWorkspace(b, cfg)
	var cells []string
	for i := 0; i < 5000; i++ {
		cells = append(cells, fmt.Sprintf(`{"cell_type": "markdown", "metadata": {}, "source": ["Step %d: what the next cell does"]}`, i))
	}
	nb := `{"cells": [` + strings.Join(cells, ",\n") + `], "metadata": {}, "nbformat": 4, "nbformat_minor": 4}`
	must(b, os.WriteFile(filepath.Join(root, "nb.ipynb"), []byte(nb), 0o644))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := w.NotebookRead(context.Background(), NotebookReadRequest{Path: "nb.ipynb"})
		if err != nil || len(res.Cells) != 5000 {
			b.Fatalf("NotebookRead: %v (%d cells)", err, len(res.Cells))
		}
	}
}

// TestNotebookMediaNote checks the note on images left out: it names a
// cell to show alone only when that would attach them, never the cell
// that was shown alone already (a model told so asked for it again).
func TestNotebookMediaNote(t *testing.T) {
	png := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==" // 70 bytes
	var outs []string
	for i := 0; i < 12; i++ {
		outs = append(outs, fmt.Sprintf(`{"output_type": "display_data", "metadata": {}, "data": {"image/png": %q}}`, png))
	}
	oneCell := `{"cells": [{"cell_type": "code", "execution_count": 1, "id": "plots", "metadata": {}, "source": ["loop()"], "outputs": [` +
		strings.Join(outs, ", ") + `]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}`
	bytesLimit := func(n int64) *config.Config {
		cfg := config.Default()
		cfg.Tools.PerTool[NotebookRead] = config.Tool{MaxMediaBytes: &n}
		return cfg
	}
	const head = " more images in these outputs are not attached (at most 8 per call, within maxMediaBytes in all)"
	for _, tc := range []struct {
		name, nb string
		cfg      *config.Config
		cellID   string
		note     string
	}{
		{"several cells: the first cell left out", notebookWith(10, png), nil, "", "2" + head + ": show cell 8 alone with cellId=8 to see its images"},
		{"over maxMediaBytes: the cell that would fit", notebookWith(3, png), bytesLimit(150), "", "1 more image in these outputs is not attached (at most 8 per call, within maxMediaBytes in all): show cell 2 alone with cellId=2 to see its images"},
		{"bug: the cell shown alone is not named again", oneCell, nil, "plots", "4" + head},
		{"the only cell shown", oneCell, nil, "", "4" + head},
		{"an image over maxMediaBytes alone", notebookWith(2, png), bytesLimit(60), "", "2" + head},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, root := newTestWorkspace(t, tc.cfg)
			must(t, os.WriteFile(filepath.Join(root, "nb.ipynb"), []byte(tc.nb), 0o644))
			res, err := w.NotebookRead(context.Background(), NotebookReadRequest{Path: "nb.ipynb", CellID: tc.cellID})
			must(t, err)
			if _, note := res.Media(); note != tc.note {
				t.Errorf("note\n %q\nwant %q", note, tc.note)
			}
		})
	}
}
