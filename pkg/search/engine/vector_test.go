package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/embed"
	"github.com/wstools/ws/pkg/errs"
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
	_, fs := testRoot(t)
	emb := &config.Embedder{URL: srv.URL, Model: "table"}
	e := New(Options{Files: fs, StateDir: t.TempDir(), Params: search.DefaultParams(), VectorName: "ws_search",
		Embedder: emb, NewEmbedder: ConfiguredEmbedder(emb, "", nil)})
	ctx := context.Background()
	for _, id := range []string{"a", "b", "c"} {
		if _, err := e.Add(ctx, search.Doc{ID: id, Content: docs[id], Source: -1}); err != nil {
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
	}
	near := func(p *float64, x float64) bool {
		if math.IsNaN(x) {
			return p == nil
		}
		return p != nil && math.Abs(*p-x) < 1e-6
	}
	for _, tc := range cases {
		got, err := e.Search(ctx, "apple", tc.mode, k, tc.minScore)
		if err != nil {
			t.Fatalf("%s: %v", tc.mode, err)
		}
		if len(got) != len(tc.want) {
			t.Fatalf("%s/%v: %d results, want %d: %+v", tc.mode, tc.minScore, len(got), len(tc.want), got)
		}
		for i, wt := range tc.want {
			g := got[i]
			if g.ID != wt.id || math.Abs(g.Score-wt.score) > 1e-6 || !near(g.Details.Vector, wt.vector) || !near(g.Details.BM25, wt.bm) {
				t.Errorf("%s/%v result %d = %s %v %+v, want %+v", tc.mode, tc.minScore, i, g.ID, g.Score, g.Details, wt)
			}
		}
	}
	// topK 1 in hybrid searches each side for min(2, 50) = 2.
	one := 1.0
	got, err := e.Search(ctx, "apple", search.ModeHybrid, one, nil)
	if err != nil || len(got) != 1 || got[0].ID != "c" {
		t.Errorf("hybrid topK 1: %v %+v", err, got)
	}
	if search.HybridTopK(one) != 2 {
		t.Error("HybridTopK(1)")
	}
}

func ptr(x float64) *float64 { return &x }

// countingEmbedder embeds each text as (its length, 1) and records what
// it was asked; with fail set it fails instead.
type countingEmbedder struct {
	asked []string
	fail  bool
}

func (c *countingEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if c.fail {
		return nil, errors.New("embedder down")
	}
	c.asked = append(c.asked, texts...)
	out := make([][]float32, len(texts))
	for i, s := range texts {
		out[i] = []float32{float32(len(s)), 1}
	}
	return out, nil
}

func (c *countingEmbedder) Model() string    { return "counting" }
func (c *countingEmbedder) Endpoint() string { return "counting" }

// TestVectorSync checks that only content the vector store lacks is
// embedded, and that an embedder that fails leaves the index as it was.
func TestVectorSync(t *testing.T) {
	_, fs := testRoot(t)
	emb := &countingEmbedder{}
	e := New(Options{Files: fs, StateDir: t.TempDir(), Params: search.DefaultParams(), VectorName: "v",
		Embedder:    &config.Embedder{Model: "counting"},
		NewEmbedder: func() (embed.Embedder, error) { return emb, nil }})
	ctx := context.Background()
	steps := []struct {
		doc, content string
		fail         bool
		asked        string // texts embedded by the step
		docs         int    // documents afterwards
	}{
		{"a", "alpha", false, "[alpha]", 1},
		{"b", "beta", false, "[beta]", 2},
		{"c", "alpha", false, "[]", 3}, // same content as a: its vector is reused
		{"a", "gamma", false, "[gamma]", 3},
		{"d", "delta", true, "[]", 3},
	}
	for _, s := range steps {
		emb.asked, emb.fail = nil, s.fail
		_, err := e.Add(ctx, search.Doc{ID: s.doc, Content: s.content, Source: -1})
		if s.fail != (errs.CodeOf(err) == errs.Embedder(errors.New("")).Code) || !s.fail && err != nil {
			t.Fatalf("add %s: %v", s.doc, err)
		}
		if got := fmt.Sprint(emb.asked); got != s.asked || e.Stats().Documents != s.docs || e.Stats().Vectors != s.docs {
			t.Fatalf("add %s: embedded %s, stats %+v; want %s and %d", s.doc, got, e.Stats(), s.asked, s.docs)
		}
	}
}
