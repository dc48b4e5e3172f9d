package search

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func rec(id, content string, ref int, v ...float32) VectorRecord {
	return VectorRecord{VectorEntry: VectorEntry{ID: id, Hash: HashContent(content)}, Vector: v, Ref: ref}
}

func TestVectorFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s", "x.vectors")
	v, err := OpenVectors(path)
	if err != nil || v.Meta().Count != 0 {
		t.Fatalf("missing file: %v %+v", err, v.Meta())
	}
	records := []VectorRecord{rec("a", "A", 0, 1, 0, 0), rec("b", "B", 1, 0, 1, 0), rec("c", "C", -1, 1, 1, 0)}
	if err := v.Replace(VectorMeta{Model: "m1", Dim: 3, Synced: 42}, records); err != nil {
		t.Fatal(err)
	}
	v, err = OpenVectors(path)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if m := v.Meta(); m != (VectorMeta{Model: "m1", Dim: 3, Count: 3, Synced: 42}) {
		t.Errorf("meta %+v", m)
	}
	if err := v.Verify(); err != nil {
		t.Error(err)
	}
	if got, ok := v.Lookup(HashContent("B")); !ok || !reflect.DeepEqual(got, []float32{0, 1, 0}) {
		t.Errorf("Lookup(B) = %v %v", got, ok)
	}
	if _, ok := v.Lookup(HashContent("Z")); ok {
		t.Error("Lookup of unknown content found something")
	}
	if e := v.Entries(); len(e) != 3 || e[2].ID != "c" || e[2].Hash != HashContent("C") {
		t.Errorf("entries %+v", e)
	}
	// Query (2, 1, 0): cos with a = 2/√5 = 0.894427, c = 3/(√5·√2) = 0.948683, b = 1/√5 = 0.447214.
	got, err := v.Query([]float32{2, 1, 0}, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []VectorMatch{{ID: "c", Score: 3 / math.Sqrt(10), Ref: -1}, {ID: "a", Score: 2 / math.Sqrt(5), Ref: 0}}
	if len(got) != 2 || got[0].ID != want[0].ID || got[1].ID != want[1].ID || got[1].Ref != 0 || got[0].Ref != -1 ||
		math.Abs(got[0].Score-want[0].Score) > 1e-6 || math.Abs(got[1].Score-want[1].Score) > 1e-6 {
		t.Errorf("Query = %+v, want %+v", got, want)
	}
	if _, err := v.Query([]float32{1, 2}, 1); !errors.Is(err, ErrDimension) {
		t.Errorf("query of the wrong dimension: %v", err)
	}
}

func TestVectorFileTiesAndParallel(t *testing.T) {
	// Enough vectors to split the scan; equal scores keep store order.
	const n, dim = 3000, 400
	records := make([]VectorRecord, n)
	for i := range records {
		v := make([]float32, dim)
		v[i%7] = 1
		records[i] = rec(string(rune('a'+i%26))+string(rune(i)), "", i, v...)
	}
	path := filepath.Join(t.TempDir(), "p.vectors")
	if err := (&VectorFile{Path: path}).Replace(VectorMeta{Model: "m", Dim: dim}, records); err != nil {
		t.Fatal(err)
	}
	v, err := OpenVectors(path)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	q := make([]float32, dim)
	q[3] = 1
	got, _ := v.Query(q, 5)
	for i, m := range got {
		if m.Ref != 3+7*i || m.Score != 1 {
			t.Errorf("match %d = %+v, want document %d with score 1", i, m, 3+7*i)
		}
	}
}

func TestVectorFileDamage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.vectors")
	if err := (&VectorFile{Path: path}).Replace(VectorMeta{Model: "m", Dim: 2}, []VectorRecord{rec("a", "A", 0, 1, 2)}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	for _, tc := range []struct {
		name string
		edit func([]byte) []byte
	}{
		{"truncated", func(b []byte) []byte { return b[:len(b)-4] }},
		{"magic", func(b []byte) []byte { b[0] = 'X'; return b }},
		{"model byte", func(b []byte) []byte { b[vecHeader] ^= 1; return b }},
		{"short", func(b []byte) []byte { return b[:10] }},
	} {
		b := tc.edit(append([]byte(nil), data...))
		os.WriteFile(path, b, 0o600)
		if _, err := OpenVectors(path); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", tc.name, err)
		}
	}
	b := append([]byte(nil), data...)
	b[len(b)-1] ^= 0x40 // a norm
	os.WriteFile(path, b, 0o600)
	v, err := OpenVectors(path)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if err := v.Verify(); !errors.Is(err, ErrCorrupt) {
		t.Errorf("damaged vectors verified: %v", err)
	}
}

func f(x float64) *float64 { return &x }

// TestMerge checks the hybrid ranking against scores worked out by hand.
func TestMerge(t *testing.T) {
	vector := []Hit{{ID: "a", Score: 0.9}, {ID: "b", Score: 0.5}, {ID: "c", Score: 0.1}}
	keyword := []Hit{{ID: "c", Score: 4, Range: &LineRange{2, 3}}, {ID: "d", Score: 2}, {ID: "a", Score: 1}}
	// BM25 normalised over [1, 4]: c 1, d 1/3, a 0.
	// a: 0.5·0.9 + 0.5·0 = 0.45; b: 0.25; c: 0.05 + 0.5 = 0.55; d: 0.5/3 = 0.1667.
	got := Merge(vector, keyword, 0.5, 10, nil)
	type row struct {
		id      string
		score   float64
		v, bm25 *float64
	}
	want := []row{{"c", 0.55, f(0.1), f(4)}, {"a", 0.45, f(0.9), f(1)}, {"b", 0.25, f(0.5), nil}, {"d", 0.5 / 3, nil, f(2)}}
	if len(got) != len(want) {
		t.Fatalf("%d results, want %d", len(got), len(want))
	}
	eq := func(a, b *float64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }
	for i, w := range want {
		g := got[i]
		if g.ID != w.id || math.Abs(g.Score-w.score) > 1e-12 || !eq(g.Details.Vector, w.v) || !eq(g.Details.BM25, w.bm25) {
			t.Errorf("result %d = %s %v %v %v, want %+v", i, g.ID, g.Score, g.Details.Vector, g.Details.BM25, w)
		}
	}
	if got[0].Range == nil || *got[0].Range != (LineRange{2, 3}) {
		t.Errorf("c lost the BM25 line range: %v", got[0].Range)
	}
	// minScore on the combination, then topK.
	got = Merge(vector, keyword, 0.5, 1, f(0.3))
	if len(got) != 1 || got[0].ID != "c" {
		t.Errorf("minScore 0.3, topK 1: %+v", got)
	}
	// All BM25 scores equal normalise to 1; ties keep vector results first.
	got = Merge([]Hit{{ID: "x", Score: 0}}, []Hit{{ID: "y", Score: 3}, {ID: "z", Score: 3}}, 0.5, 10, nil)
	if len(got) != 3 || got[0].ID != "y" || got[0].Score != 0.5 || got[1].ID != "z" || got[2].ID != "x" {
		t.Errorf("equal BM25 scores: %+v", got)
	}
	if HybridTopK(5) != 10 || HybridTopK(40) != 50 {
		t.Error("HybridTopK")
	}
}

func TestEffectiveMode(t *testing.T) {
	tests := []struct {
		asked     string
		bm25, vec bool
		want      string
	}{
		{"", true, true, "hybrid"}, {"", false, true, "vector"}, {"", true, false, "bm25"},
		{"hybrid", true, false, "bm25"}, {"hybrid", false, true, "vector"}, {"hybrid", true, true, "hybrid"},
		{"vector", true, false, "bm25"}, {"vector", true, true, "vector"}, {"bm25", true, true, "bm25"},
	}
	for _, tt := range tests {
		if got := EffectiveMode(tt.asked, tt.bm25, tt.vec); got != tt.want {
			t.Errorf("EffectiveMode(%q, %v, %v) = %q, want %q", tt.asked, tt.bm25, tt.vec, got, tt.want)
		}
	}
}
