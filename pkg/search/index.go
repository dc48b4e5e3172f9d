package search

import (
	"sort"
	"strings"
)

// Default BM25 parameters (Mastra's).
const (
	DefaultK1 = 1.5
	DefaultB  = 0.75
)

// Doc is one indexed document.
type Doc struct {
	ID      string
	Content string
	// Source is the index in Index.Sources of the file the document was
	// read from, or -1 for content given to the index tool.
	Source int
	// StartLine is the first line of a chunk of a long file (line ranges
	// of results are shifted by it); 0 when the document is not a chunk.
	StartLine int
	// Meta is the document's metadata as a JSON object, or nil.
	Meta []byte
}

// Source is a file indexed from disk, with the size and modification time
// it had when it was read.
type Source struct {
	Path    string
	MtimeNS int64
	Size    int64
}

type posting struct{ doc, tf uint32 }

type docEntry struct {
	Doc
	length int
	dead   bool
}

// Index is an index being changed: documents in indexing order, their
// postings, and the files they came from. The zero value is not usable;
// start from NewIndex or Decode.
type Index struct {
	K1, B float64
	// Tok tokenizes the documents (nil: Mastra's default tokenizer). Set
	// it with Reparam, which also tokenizes what is indexed again.
	Tok *Tokenizer
	// AutoPaths are the autoIndexPaths the documents read from disk were
	// indexed from; nil when they never were.
	AutoPaths []string
	Sources   []Source
	docs      []docEntry
	byID      map[string]int
	postings  map[string][]posting
	changes   int
}

// Changes counts the changes made since the index was created or decoded.
func (x *Index) Changes() int { return x.changes }

// NewIndex returns an empty index with the given BM25 parameters.
func NewIndex(k1, b float64) *Index {
	return &Index{K1: k1, B: b, byID: map[string]int{}, postings: map[string][]posting{}}
}

// Len is the number of documents.
func (x *Index) Len() int { return len(x.byID) }

// Add indexes a document, replacing one with the same id. Like Mastra's
// BM25Index.add, a replaced document moves to the end of the indexing order.
func (x *Index) Add(d Doc) {
	x.Remove(d.ID)
	i := len(x.docs)
	tf := map[string]uint32{}
	var order []string
	n := 0
	x.Tok.each(d.Content, func(tok string) {
		n++
		if tf[tok] == 0 {
			order = append(order, tok)
		}
		tf[tok]++
	})
	for _, t := range order {
		x.postings[t] = append(x.postings[t], posting{doc: uint32(i), tf: tf[t]})
	}
	x.docs = append(x.docs, docEntry{Doc: d, length: n})
	x.byID[d.ID] = i
	x.changes++
}

// Params are the BM25 settings of an index: k1, b and the tokenizer.
type Params struct {
	K1, B float64
	Tok   *Tokenizer
}

// DefaultParams are Mastra's: k1 1.5, b 0.75, the default tokenizer.
func DefaultParams() Params { return Params{K1: DefaultK1, B: DefaultB} }

// NewIndexWith returns an empty index with the given settings.
func NewIndexWith(p Params) *Index {
	x := NewIndex(p.K1, p.B)
	x.Tok = p.Tok
	return x
}

// Reparam gives the index other settings. When the tokenizer differs from
// the one the documents were tokenized with, every document is tokenized
// again, in indexing order (Mastra builds its index afresh at start).
func (x *Index) Reparam(p Params) {
	if x.K1 != p.K1 || x.B != p.B {
		x.K1, x.B = p.K1, p.B
		x.changes++
	}
	if x.Tok.Fingerprint() == p.Tok.Fingerprint() {
		x.Tok = p.Tok
		return
	}
	docs := x.Docs()
	x.Tok = p.Tok
	x.docs, x.byID, x.postings = nil, map[string]int{}, map[string][]posting{}
	for _, d := range docs {
		x.Add(d)
	}
	x.changes++
}

// Remove drops the document with this id; it reports whether there was one.
func (x *Index) Remove(id string) bool {
	i, ok := x.byID[id]
	if !ok {
		return false
	}
	x.docs[i].dead = true
	delete(x.byID, id)
	x.changes++
	return true
}

// RemoveSource drops what was indexed from the file at path, as Mastra's
// removeSource does: the document with that id and its chunks
// (`<path>#chunk-<i>`), and every document read from that source.
func (x *Index) RemoveSource(path string) {
	x.Remove(path)
	prefix := path + "#chunk-"
	for i := range x.docs {
		d := &x.docs[i]
		if d.dead {
			continue
		}
		if strings.HasPrefix(d.ID, prefix) || d.Source >= 0 && d.Source < len(x.Sources) && x.Sources[d.Source].Path == path {
			x.Remove(d.ID)
		}
	}
}

// AddSource records a file and returns its index for Doc.Source. A file
// already recorded is updated.
func (x *Index) AddSource(s Source) int {
	x.changes++
	for i := range x.Sources {
		if x.Sources[i].Path == s.Path {
			x.Sources[i] = s
			return i
		}
	}
	x.Sources = append(x.Sources, s)
	return len(x.Sources) - 1
}

// Docs returns the live documents in indexing order.
func (x *Index) Docs() []Doc {
	out := make([]Doc, 0, len(x.byID))
	for _, d := range x.docs {
		if !d.dead {
			out = append(out, d.Doc)
		}
	}
	return out
}

// compact returns the live documents in order, the new number of each old
// document (-1: gone), the sources still referenced and their remapping.
func (x *Index) compact() ([]docEntry, []int32, []Source, []int32) {
	docMap := make([]int32, len(x.docs))
	live := make([]docEntry, 0, len(x.byID))
	srcUsed := make([]bool, len(x.Sources))
	for i, d := range x.docs {
		if d.dead {
			docMap[i] = -1
			continue
		}
		docMap[i] = int32(len(live))
		live = append(live, d)
		if d.Source >= 0 && d.Source < len(x.Sources) {
			srcUsed[d.Source] = true
		}
	}
	srcMap := make([]int32, len(x.Sources))
	var srcs []Source
	for i, s := range x.Sources {
		if !srcUsed[i] {
			srcMap[i] = -1
			continue
		}
		srcMap[i] = int32(len(srcs))
		srcs = append(srcs, s)
	}
	for i := range live {
		if s := live[i].Source; s >= 0 && s < len(srcMap) {
			live[i].Source = int(srcMap[s])
		} else {
			live[i].Source = -1
		}
	}
	return live, docMap, srcs, srcMap
}

// sortedTerms lists the terms that still have live postings, sorted.
func (x *Index) sortedTerms(docMap []int32) []string {
	terms := make([]string, 0, len(x.postings))
	for t, ps := range x.postings {
		for _, p := range ps {
			if docMap[p.doc] >= 0 {
				terms = append(terms, t)
				break
			}
		}
	}
	sort.Strings(terms)
	return terms
}
