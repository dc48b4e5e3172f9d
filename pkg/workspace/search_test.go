package workspace

import (
	"context"
	"testing"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/errs"
)

// TestSearchRequestErrors checks the search tool's own refusals, made
// before the engine is asked (the engine has its tests in
// pkg/search/engine).
func TestSearchRequestErrors(t *testing.T) {
	bm25 := config.Default()
	bm25.BM25 = true
	vector := config.Default()
	vector.Embedder = &config.Embedder{Command: []string{"./embed"}}
	cases := []struct {
		name string
		cfg  *config.Config
		mode string
		want error
	}{
		{"no bm25 and no embedder", config.Default(), "", errs.NeedsBM25("bm25", "mode")},
		{"bm25 with only an embedder", vector, "bm25", errs.NeedsBM25("bm25", "mode")},
		{"hybrid with only an embedder", vector, "hybrid", errs.NeedsBM25("hybrid", "mode")},
		{"vector without an embedder", bm25, "vector", errs.NeedsEmbedder("vector")},
		{"hybrid without an embedder", bm25, "hybrid", errs.NeedsEmbedder("hybrid")},
		{"an unknown mode", bm25, "fuzzy", errs.UnknownSearchMode("fuzzy")},
	}
	for _, tc := range cases {
		w, _ := newTestWorkspace(t, tc.cfg)
		_, err := w.Search(context.Background(), SearchRequest{Query: "x", Mode: tc.mode})
		if err == nil || err.Error() != tc.want.Error() || errs.CodeOf(err) != errs.CodeOf(tc.want) {
			t.Errorf("%s: %v (%s), want %v", tc.name, err, errs.CodeOf(err), tc.want)
		}
	}
	// Without search the tool is not offered at all.
	w, _ := newTestWorkspace(t, config.Default())
	if _, err := w.Run(context.Background(), Search, SearchRequest{Query: "x"}); err == nil || err.Error() != errs.NoSearch().Error() {
		t.Errorf("no search: %v", err)
	}
}
