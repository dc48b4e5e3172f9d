package workspace

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/search"
)

// tableServer is an embeddings endpoint on 127.0.0.1 that answers each
// text with the vector the table gives it.
func tableServer(t *testing.T, table map[string][]float64) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		var data []map[string]any
		for i, text := range req.Input {
			v, ok := table[text]
			if !ok {
				http.Error(w, `{"error":"unknown text `+text+`"}`, 400)
				return
			}
			data = append(data, map[string]any{"index": i, "embedding": v})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	t.Cleanup(s.Close)
	return s
}

// TestVectorAndHybridRanking checks both modes against scores worked out
// by hand from the formulas of mastra-behaviour.md §5.3.
func TestVectorAndHybridRanking(t *testing.T) {
	docs := map[string]string{
		"a": "apple pie recipe",
		"b": "banana bread",
		"c": "apple apple apple tart",
	}
	srv := tableServer(t, map[string][]float64{
		"apple pie recipe":       {1, 0, 0},
		"banana bread":           {0, 1, 0},
		"apple apple apple tart": {1, 1, 0},
		"apple":                  {3, 4, 0}, // the query
	})
	cfg := config.Default()
	cfg.BM25 = true
	cfg.Embedder = &config.Embedder{URL: srv.URL, Model: "table"}
	w, _ := newTestWorkspace(t, cfg)
	ctx := context.Background()
	for _, id := range []string{"a", "b", "c"} {
		if _, err := w.Index(ctx, IndexRequest{Path: id, Content: docs[id]}); err != nil {
			t.Fatal(err)
		}
	}
	// Cosine with q = (3,4,0), |q| = 5: a 3/5 = 0.6, b 4/5 = 0.8,
	// c 7/(5·√2) = 0.98995.
	cosC := 7 / (5 * math.Sqrt2)
	// BM25 of "apple" (N = 3, df = 2, idf = ln(1.5/2.5 + 1) = ln 1.6;
	// avgdl = 3 tokens): a: tf 1, dl 3 → idf·2.5/(1+1.5) = idf;
	// c: tf 3, dl 4 → idf·7.5/(3 + 1.5·(0.25 + 0.75·4/3)) = idf·7.5/4.875.
	idf := math.Log(1.6)
	bmA, bmC := idf, idf*7.5/4.875
	k := 10.0
	type want struct {
		id         string
		score      float64
		vector, bm float64 // NaN: absent
	}
	nan := math.NaN()
	cases := []struct {
		mode     string
		minScore *float64
		want     []want
	}{
		{"vector", nil, []want{{"c", cosC, cosC, nan}, {"b", 0.8, 0.8, nan}, {"a", 0.6, 0.6, nan}}},
		{"vector", ptr(0.7), []want{{"c", cosC, cosC, nan}, {"b", 0.8, 0.8, nan}}},
		// Hybrid: BM25 normalised over [bmA, bmC]: c 1, a 0; b has none.
		// c 0.5·0.98995 + 0.5 = 0.99497; b 0.4; a 0.3.
		{"hybrid", nil, []want{{"c", cosC/2 + 0.5, cosC, bmC}, {"b", 0.4, 0.8, nan}, {"a", 0.3, 0.6, bmA}}},
		{"hybrid", ptr(0.35), []want{{"c", cosC/2 + 0.5, cosC, bmC}, {"b", 0.4, 0.8, nan}}},
		{"", nil, []want{{"c", cosC/2 + 0.5, cosC, bmC}, {"b", 0.4, 0.8, nan}, {"a", 0.3, 0.6, bmA}}},
	}
	near := func(p *float64, x float64) bool {
		if math.IsNaN(x) {
			return p == nil
		}
		return p != nil && math.Abs(*p-x) < 1e-6
	}
	for _, tc := range cases {
		res, err := w.Search(ctx, SearchRequest{Query: "apple", Mode: tc.mode, TopK: &k, MinScore: tc.minScore})
		if err != nil {
			t.Fatalf("%s: %v", tc.mode, err)
		}
		if len(res.Results) != len(tc.want) {
			t.Fatalf("%s/%v: %d results, want %d: %s", tc.mode, tc.minScore, len(res.Results), len(tc.want), res.Text())
		}
		for i, wt := range tc.want {
			g := res.Results[i]
			if g.ID != wt.id || math.Abs(g.Score-wt.score) > 1e-6 || !near(g.ScoreDetails.Vector, wt.vector) || !near(g.ScoreDetails.BM25, wt.bm) {
				t.Errorf("%s/%v result %d = %s %v %+v, want %+v", tc.mode, tc.minScore, i, g.ID, g.Score, g.ScoreDetails, wt)
			}
		}
		wantMode := tc.mode
		if wantMode == "" {
			wantMode = "hybrid"
		}
		if !strings.HasSuffix(res.Text(), "("+wantMode+" search)") {
			t.Errorf("text %q", res.Text())
		}
	}
	// topK 1 in hybrid searches each side for min(2, 50) = 2.
	one := 1.0
	res, err := w.Search(ctx, SearchRequest{Query: "apple", Mode: "hybrid", TopK: &one})
	if err != nil || len(res.Results) != 1 || res.Results[0].ID != "c" {
		t.Errorf("hybrid topK 1: %v %+v", err, res)
	}
	if search.HybridTopK(one) != 2 {
		t.Error("HybridTopK(1)")
	}
}

func ptr(x float64) *float64 { return &x }
