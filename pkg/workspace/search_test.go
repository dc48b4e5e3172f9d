package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/errs"
)

func searchConfig(auto ...string) *config.Config {
	cfg := config.Default()
	cfg.BM25 = true
	cfg.AutoIndexPaths = auto
	return cfg
}

func searchIDs(t *testing.T, w *Workspace, q string) []string {
	t.Helper()
	k := 100.0
	res, err := w.Search(context.Background(), SearchRequest{Query: q, TopK: &k})
	must(t, err)
	var ids []string
	for _, h := range res.Results {
		ids = append(ids, h.ID)
	}
	return ids
}

func TestSearchAutoIndexAndStale(t *testing.T) {
	w, root := newTestWorkspace(t, searchConfig("docs"), "docs/a.md", "docs/sub/b.md", "other/c.md")
	ctx := context.Background()
	if got := fmt.Sprint(searchIDs(t, w, "content")); got != "[docs/a.md docs/sub/b.md]" {
		t.Fatalf("first search: %s", got)
	}
	// Same size, new mtime: read again.
	must(t, os.WriteFile(filepath.Join(root, "docs/a.md"), []byte("zebras of docs/a\n"), 0o644))
	must(t, os.Chtimes(filepath.Join(root, "docs/a.md"), time.Unix(2e9, 0), time.Unix(2e9, 0)))
	if got := fmt.Sprint(searchIDs(t, w, "zebras")); got != "[docs/a.md]" {
		t.Fatalf("after change: %s", got)
	}
	must(t, os.Remove(filepath.Join(root, "docs/sub/b.md")))
	if got := fmt.Sprint(searchIDs(t, w, "content")); got != "[]" {
		t.Fatalf("after delete: %s", got)
	}
	// A symlink that leads out of the workspace is not indexed.
	outside := filepath.Join(t.TempDir(), "secret.md")
	must(t, os.WriteFile(outside, []byte("secret zebras\n"), 0o644))
	must(t, os.Symlink(outside, filepath.Join(root, "docs/leak.md")))
	res, err := w.RefreshIndex(ctx, RefreshIndexRequest{})
	must(t, err)
	if len(res.Added) != 0 || len(res.Removed) != 0 || res.Files != 1 {
		t.Fatalf("refresh: %+v", res)
	}
	if got := fmt.Sprint(searchIDs(t, w, "secret")); got != "[]" {
		t.Fatalf("a link outside was indexed: %s", got)
	}
}

func TestIndexConcurrent(t *testing.T) {
	w0, _ := newTestWorkspace(t, searchConfig())
	inReopened(t, w0, 8, func(i int, w *Workspace) {
		if _, err := w.Index(context.Background(), IndexRequest{Path: fmt.Sprint("d", i), Content: "shared term"}); err != nil {
			t.Error(err)
		}
	})
	if got := len(searchIDs(t, w0, "shared")); got != 8 {
		t.Fatalf("%d documents after 8 concurrent index calls", got)
	}
}

func TestSearchErrors(t *testing.T) {
	w, _ := newTestWorkspace(t, config.Default())
	if _, err := w.Run(context.Background(), Search, SearchRequest{Query: "x"}); err == nil || err.Error() != errs.NoSearch().Error() {
		t.Errorf("no bm25: %v", err)
	}
	w2, _ := newTestWorkspace(t, searchConfig())
	_, err := w2.Search(context.Background(), SearchRequest{Query: "x", Mode: "vector"})
	if errs.CodeOf(err) != errs.InvalidArgument {
		t.Errorf("vector mode: %v", err)
	}
	// A damaged index is rebuilt with a warning.
	_, err = w2.Index(context.Background(), IndexRequest{Path: "a", Content: "alpha"})
	must(t, err)
	must(t, os.WriteFile(filepath.Join(w2.stateDir, "search", "index.bin"), []byte("damaged"), 0o600))
	var warned []string
	w2.warnf = func(m string) { warned = append(warned, m) }
	if ids := searchIDs(t, w2, "alpha"); len(ids) != 0 || len(warned) != 1 {
		t.Fatalf("after damage: %v, warnings %q", ids, warned)
	}
}
