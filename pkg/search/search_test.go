package search

import (
	"bytes"
	"errors"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/js"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"The quick brown fox", []string{"quick", "brown", "fox"}},
		{"a an I x1 ab", []string{"x1", "ab"}},
		{"reset-password, re_set!", []string{"reset", "password", "re_set"}},
		{"İstanbul", []string{"stanbul"}}, // "i̇stanbul": the combining dot splits it
		{"ΣΑΣ σας", []string{"σας", "σας"}},
		{"café naïve 東京", []string{"café", "naïve", "東京"}},
		{"日 本", nil},         // one code unit each: too short
		{"𝐀", []string{"𝐀"}}, // a letter outside the BMP is two code units
		{"x\xffy zz", []string{"zz"}},
		{"the and of", nil},
	}
	for _, tt := range tests {
		if got := Tokenize(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLowerJS(t *testing.T) {
	for in, want := range map[string]string{"ABC": "abc", "İ": "i\u0307", "ΣΑΣ": "σας", "Σ": "σ", "ΑΣ.": "ας."} {
		if got := LowerJS(in); got != want {
			t.Errorf("LowerJS(%q) = %q, want %q", in, got, want)
		}
	}
}

type want struct {
	id         string
	score      float64
	start, end int
}

// TestRankingMatchesMastra checks scores (to the bit), order (ties keep
// query-term order, then indexing order) and line ranges against the real
// @mastra/core 1.71.0 on a fixed corpus (b.md is indexed twice, so it
// moves to the end of the indexing order).
func TestRankingMatchesMastra(t *testing.T) {
	docs := [][2]string{
		{"a.md", "The quick brown fox jumps over the lazy dog"},
		{"b.md", "quick quick fox"},
		{"c.md", "A fox, a dog and a cat.\nDogs are loyal; foxes are sly."},
		{"d.md", "brown bread\nbrown sugar\nbrown rice"},
		{"e.md", "quick brown"},
		{"f.md", "brown quick"},
		{"g.md", "İstanbul ΣΑΣ σας café naïve 東京 tokyo_2020 x1 a_b"},
		{"h.md", "Tokyo 2020 olympics in tokyo"},
		{"b.md", "quick quick fox again"},
		{"i.md", "nothing relevant here"},
		{"j.md", "lazy dog\n\n\nlazy cat"},
	}
	x := NewIndex(DefaultK1, DefaultB)
	for _, d := range docs {
		x.Add(Doc{ID: d[0], Content: d[1], Source: -1})
	}
	r, err := Open(x.Encode())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		query    string
		topK     float64
		minScore float64
		want     []want
	}{
		{"quick fox", 5, 0, []want{{"b.md", 2.5871399276633205, 1, 1}, {"a.md", 1.690321393015626, 1, 1}, {"e.md", 1.2119564420638596, 1, 1}, {"f.md", 1.2119564420638596, 1, 1}, {"c.md", 0.9493324802511938, 1, 1}}},
		{"brown", 5, 0, []want{{"d.md", 1.4020672565052494, 1, 3}, {"e.md", 1.2119564420638596, 1, 1}, {"f.md", 1.2119564420638596, 1, 1}, {"a.md", 0.7409889127644322, 1, 1}}},
		{"quick brown", 10, 0, []want{{"e.md", 2.423912884127719, 1, 1}, {"f.md", 2.423912884127719, 1, 1}, {"a.md", 1.4819778255288645, 1, 1}, {"d.md", 1.4020672565052494, 1, 3}, {"b.md", 1.349159058146561, 1, 1}}},
		{"fox fox dog", 5, 0, []want{{"a.md", 2.8479974407535815, 1, 1}, {"c.md", 2.8479974407535815, 1, 1}, {"b.md", 2.475961739033519, 1, 1}, {"j.md", 1.2379808695167596, 1, 1}}},
		{"the and of", 5, 0, nil},
		{"stanbul σας", 5, 0, []want{{"g.md", 3.651071228806852, 1, 1}}},
		{"ΣΑΣ", 5, 0, []want{{"g.md", 2.2215249223026685, 1, 1}}},
		{"tokyo_2020 tokyo", 5, 0, []want{{"h.md", 3.007441758022953, 1, 1}, {"g.md", 1.4295463065041836, 1, 1}}},
		{"lazy", -1, 0, nil}, // Mastra slices twice: two results, minus one, minus one
		{"lazy", 1.7, 0, []want{{"j.md", 2.236384212715797, 1, 4}}},
		{"dog", 5, 0.9, []want{{"j.md", 1.2379808695167596, 1, 1}, {"a.md", 0.9493324802511938, 1, 1}, {"c.md", 0.9493324802511938, 1, 1}}},
		{"café naïve 東京", 5, 0, []want{{"g.md", 4.28863891951255, 1, 1}}},
	}
	for _, tt := range tests {
		hits := r.Search(tt.query, tt.topK, tt.minScore)
		hits = hits[:SliceEnd(len(hits), tt.topK)]
		var got []want
		for _, h := range hits {
			w := want{id: h.ID, score: h.Score}
			if h.Range != nil {
				w.start, w.end = h.Range.Start, h.Range.End
			}
			got = append(got, w)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Search(%q):\n got %v\nwant %v", tt.query, got, tt.want)
		}
	}
}

func TestFormatResults(t *testing.T) {
	x := NewIndex(DefaultK1, DefaultB)
	x.Add(Doc{ID: "docs/a.md", Content: "Password reset\nGo to settings to reset your password.\nUnrelated line.", Source: -1})
	x.Add(Doc{ID: "docs/b.md", Content: "Billing and invoices.", Source: -1})
	for _, tt := range []struct{ q, want string }{
		{"reset password", "docs/a.md:1-2: Password reset\nGo to settings to reset your password.\nUnrelated line.\n---\n1 result (bm25 search)"},
		{"zebra", "---\n0 results (bm25 search)"},
		{"billing", "docs/b.md:1-1: Billing and invoices.\n---\n1 result (bm25 search)"},
	} {
		if got := FormatResults(x.Search(tt.q, 5, 0), "bm25"); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.q, got, tt.want)
		}
	}
}

func TestChunks(t *testing.T) {
	if c := SplitIntoChunks("short\ntext"); len(c) != 1 || c[0].StartLine != 1 {
		t.Fatalf("short text: %+v", c)
	}
	var lines []string
	for i := 0; i < 400; i++ {
		lines = append(lines, strings.Repeat("x", 49)) // 50 units with the newline
	}
	c := SplitIntoChunks(strings.Join(lines, "\n"))
	// 80 lines fit in 4000 units (80*49+79); 3 lines overlap, and, as in
	// Mastra, the last 3 lines make a chunk of their own.
	if len(c) != 7 || c[6].StartLine != 398 || c[1].StartLine != 78 || js.UTF16Len(c[0].Content) > MaxChunkUnits {
		t.Fatalf("got %d chunks, second at %d", len(c), c[1].StartLine)
	}
	long := SplitIntoChunks(strings.Repeat("é", 9000))
	if len(long) != 3 || js.UTF16Len(long[0].Content) != 4000 || long[2].StartLine != 1 {
		t.Fatalf("one long line: %d chunks", len(long))
	}
}

func TestIndexRoundTripAndReplace(t *testing.T) {
	x := NewIndex(DefaultK1, DefaultB)
	src := x.AddSource(Source{Path: "docs/a.md", MtimeNS: 7, Size: 3})
	x.Add(Doc{ID: "docs/a.md#chunk-0", Content: "alpha beta", Source: src, StartLine: 1})
	x.Add(Doc{ID: "docs/a.md#chunk-1", Content: "beta gamma\ngamma", Source: src, StartLine: 40})
	x.Add(Doc{ID: "manual", Content: "gamma", Source: -1, Meta: []byte(`{"k":1}`)})
	x.AutoPaths = []string{"docs"}
	y, err := Decode(x.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(y.Encode(), x.Encode()) {
		t.Fatal("decode/encode is not the identity")
	}
	hits := y.Search("gamma", 5, 0)
	if len(hits) != 2 || hits[1].ID != "docs/a.md#chunk-1" || hits[1].Range.Start != 40 || hits[1].Range.End != 41 || hits[1].SourceFile != "docs/a.md" {
		t.Fatalf("hits: %+v", hits)
	}
	if string(hits[0].Meta) != `{"k":1}` {
		t.Fatalf("meta: %q", hits[0].Meta)
	}
	y.RemoveSource("docs/a.md")
	z, _ := Decode(y.Encode())
	if z.Len() != 1 || len(z.Sources) != 0 || !reflect.DeepEqual(z.AutoPaths, []string{"docs"}) {
		t.Fatalf("after RemoveSource: %d docs, %d sources", z.Len(), len(z.Sources))
	}
}

// TestCorruptNeverPanics damages index files in many ways: every one is
// refused with ErrCorrupt (or read without a panic when only a string's
// bytes changed).
func TestCorruptNeverPanics(t *testing.T) {
	x := NewIndex(DefaultK1, DefaultB)
	for i := 0; i < 50; i++ {
		x.Add(Doc{ID: strings.Repeat("d", i%7+1) + string(rune('a'+i%26)), Content: "word" + string(rune('a'+i%26)) + " common text", Source: -1})
	}
	good := x.Encode()
	if _, err := Open(good[:len(good)-1]); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated: %v", err)
	}
	if _, err := Open([]byte("garbage")); !errors.Is(err, ErrCorrupt) {
		t.Errorf("garbage: %v", err)
	}
	newer := append([]byte(nil), good...)
	le.PutUint32(newer[hVersion:], version+1)
	if _, err := Open(newer); !errors.Is(err, ErrVersion) {
		t.Errorf("newer version: %v", err)
	}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		bad := append([]byte(nil), good...)
		bad[rng.Intn(len(bad))] ^= byte(1 + rng.Intn(255))
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("panic on damaged file: %v", p)
				}
			}()
			if r, err := Open(bad); err == nil {
				r.Search("common worda", math.Inf(1), 0)
				if _, err := Decode(bad); err == nil {
					t.Fatalf("a damaged file decoded without error")
				}
			}
		}()
	}
}

// TestSplitLikeJavaScript checks the split step against String.prototype.split
// with a RegExp (results taken from node 20): empty pieces stay, groups
// are pieces, an empty match cuts between characters.
func TestSplitLikeJavaScript(t *testing.T) {
	no, zero := false, 0.0
	tests := []struct {
		text, pattern string
		want          []string
	}{
		{"a,,b", ",", []string{"a", "", "b"}},
		{" hello ", `\s+`, []string{"", "hello", ""}},
		{"abc", "", []string{"a", "b", "c"}},
		{"x1y22z", `(\d)+`, []string{"x", "1", "y", "2", "z"}},
		{"ab", "(?:)", []string{"a", "b"}},
		{"a-b_c", "[-_]", []string{"a", "b", "c"}},
		{"aXbxc", "x", []string{"aXb", "c"}},
		{"", "x", []string{""}},
		{"", "(?:)", nil},
	}
	for _, tt := range tests {
		pat := tt.pattern
		tok, err := NewTokenizer(TokenizeOptions{Lowercase: &no, RemovePunctuation: &no, MinLength: &zero, Stopwords: []string{}, SplitPattern: &pat})
		if err != nil {
			t.Fatal(err)
		}
		if got := tok.Tokenize(tt.text); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q.split(/%s/) = %q, want %q", tt.text, tt.pattern, got, tt.want)
		}
	}
}

// TestTokenizeOptions checks each option of Mastra's tokenize step, and
// that options equal to the defaults are the default tokenizer.
func TestTokenizeOptions(t *testing.T) {
	yes, no := true, false
	one, zero, two := 1.0, 0.0, 2.0
	space := `\s+`
	tests := []struct {
		name string
		o    TokenizeOptions
		in   string
		want []string
	}{
		{"lowercase off", TokenizeOptions{Lowercase: &no}, "Fox den, the FOX", []string{"Fox", "den", "FOX"}},
		{"punctuation kept", TokenizeOptions{RemovePunctuation: &no}, "foo-bar, baz.", []string{"foo-bar,", "baz."}},
		{"minLength 1", TokenizeOptions{MinLength: &one}, "a b cd", []string{"b", "cd"}},
		{"no stopwords", TokenizeOptions{MinLength: &one, Stopwords: []string{}}, "a b the", []string{"a", "b", "the"}},
		{"own stopwords", TokenizeOptions{Stopwords: []string{"fox"}}, "the fox ran", []string{"the", "ran"}},
		{"minLength 0 keeps empty ends", TokenizeOptions{MinLength: &zero}, " hi!", []string{"", "hi", ""}},
		{"lower-casing is JavaScript's", TokenizeOptions{RemovePunctuation: &no}, "İx ΟΔΟΣ", []string{"i\u0307x", "οδος"}},
	}
	for _, tt := range tests {
		tok, err := NewTokenizer(tt.o)
		if err != nil {
			t.Fatal(err)
		}
		if got := tok.Tokenize(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: Tokenize(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
		if tok.Fingerprint() == 0 {
			t.Errorf("%s: a tokenizer other than the default has fingerprint 0", tt.name)
		}
	}
	same := TokenizeOptions{Lowercase: &yes, RemovePunctuation: &yes, MinLength: &two, SplitPattern: nil,
		Stopwords: []string{"a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "he", "in", "is", "it", "its", "of", "on", "or", "that", "the", "to", "was", "were", "will", "with"}}
	if tok, err := NewTokenizer(same); err != nil || tok != nil {
		t.Errorf("the default options gave %v, %v; want the default tokenizer", tok, err)
	}
	if tok, _ := NewTokenizer(TokenizeOptions{SplitPattern: &space}); tok == nil || tok.Fingerprint() == 0 {
		t.Error("an explicit split pattern is a tokenizer of its own")
	}
}

// TestReparam checks that an index tokenized with other options is
// tokenized again, in the same order, when its settings change.
func TestReparam(t *testing.T) {
	no := false
	upper, _ := NewTokenizer(TokenizeOptions{Lowercase: &no})
	x := NewIndex(DefaultK1, DefaultB)
	x.Add(Doc{ID: "a", Content: "Fox", Source: -1})
	x.Add(Doc{ID: "b", Content: "fox", Source: -1})
	y, err := Decode(x.Encode())
	if err != nil {
		t.Fatal(err)
	}
	y.Reparam(Params{K1: DefaultK1, B: DefaultB, Tok: upper})
	r, err := Open(y.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if r.Built(DefaultParams()) || !r.Built(Params{K1: DefaultK1, B: DefaultB, Tok: upper}) {
		t.Fatal("Built does not tell the tokenizers apart")
	}
	if hits := r.Search("Fox", 10, 0); len(hits) != 1 || hits[0].ID != "a" {
		t.Errorf("search Fox after Reparam: %+v", hits)
	}
}
