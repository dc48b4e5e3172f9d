package search

import (
	"bytes"
	"encoding/json"
	"hash/crc32"
	"math"
	"sort"
)

// Reader answers queries straight from the bytes of an index file.
type Reader struct {
	data                       []byte
	k1, b                      float64
	nDocs, nTerms, nSrc, nPost int
	total                      uint64
	docsOff, termsOff, postOff uint64
	srcOff, blobOff, blobLen   uint64
	flags                      uint32
	autoOff                    uint64
	autoLen                    uint32
	tokFP                      uint32
	tok                        *Tokenizer
}

// Open checks an index file's header, bounds and checksum and returns a
// reader over it. data must stay valid while the reader is used.
func Open(data []byte) (*Reader, error) {
	if len(data) < headerSize {
		return nil, corruptf("file is %d bytes, shorter than its header", len(data))
	}
	if string(data[:8]) != magic {
		return nil, corruptf("not a ws search index (bad magic)")
	}
	if v := le.Uint32(data[hVersion:]); v != version {
		if v > version {
			return nil, ErrVersion
		}
		return nil, corruptf("unknown version %d", v)
	}
	r := &Reader{
		data:     data,
		k1:       math.Float64frombits(le.Uint64(data[hK1:])),
		b:        math.Float64frombits(le.Uint64(data[hB:])),
		nDocs:    int(le.Uint32(data[hDocs:])),
		nTerms:   int(le.Uint32(data[hTerms:])),
		nSrc:     int(le.Uint32(data[hSources:])),
		nPost:    int(le.Uint32(data[hPostings:])),
		flags:    le.Uint32(data[hFlags:]),
		total:    le.Uint64(data[hTotalLen:]),
		docsOff:  le.Uint64(data[hDocsOff:]),
		termsOff: le.Uint64(data[hTermsOff:]),
		postOff:  le.Uint64(data[hPostOff:]),
		srcOff:   le.Uint64(data[hSrcOff:]),
		blobOff:  le.Uint64(data[hBlobOff:]),
		blobLen:  le.Uint64(data[hBlobLen:]),
		autoOff:  le.Uint64(data[hAutoOff:]),
		autoLen:  le.Uint32(data[hAutoLen:]),
		tokFP:    le.Uint32(data[hTokFP:]),
	}
	if fl := le.Uint64(data[hFileLen:]); fl != uint64(len(data)) {
		return nil, corruptf("file is %d bytes, its header says %d", len(data), fl)
	}
	n := uint64(len(data))
	ok := r.docsOff == headerSize &&
		r.termsOff == r.docsOff+uint64(r.nDocs)*docSize &&
		r.postOff == r.termsOff+uint64(r.nTerms)*termSize &&
		r.srcOff == r.postOff+uint64(r.nPost)*postSize &&
		r.blobOff == r.srcOff+uint64(r.nSrc)*srcSize &&
		r.blobOff+r.blobLen == n &&
		r.autoOff+uint64(r.autoLen) <= r.blobLen &&
		!math.IsNaN(r.k1) && !math.IsNaN(r.b)
	if !ok {
		return nil, corruptf("section offsets do not fit the file")
	}
	if crc32.Checksum(data[16:r.blobOff], crcTable()) != le.Uint32(data[hCRC:]) {
		return nil, corruptf("checksum mismatch")
	}
	return r, nil
}

// VerifyBlob checks the strings' checksum (Open checks the rest).
func (r *Reader) VerifyBlob() error {
	if crc32.Checksum(r.data[r.blobOff:], crcTable()) != le.Uint32(r.data[hBlobCRC:]) {
		return corruptf("checksum mismatch in the strings")
	}
	return nil
}

// Params reports the settings the index was built with; the tokenizer is
// known by its fingerprint only.
func (r *Reader) Params() (k1, b float64, tokenizer uint32) { return r.k1, r.b, r.tokFP }

// Built reports whether the index was built with p, and if so makes
// queries tokenize with p's tokenizer. An index built with other settings
// must be built again (Index.Reparam) before it answers queries right.
func (r *Reader) Built(p Params) bool {
	if r.k1 != p.K1 || r.b != p.B || r.tokFP != p.Tok.Fingerprint() {
		return false
	}
	r.tok = p.Tok
	return true
}

// AutoPaths returns the autoIndexPaths the disk documents were indexed
// from, or nil when they never were.
func (r *Reader) AutoPaths() ([]string, error) {
	if r.flags&flagAutoPaths == 0 {
		return nil, nil
	}
	out := []string{}
	if err := json.Unmarshal(r.str(r.autoOff, r.autoLen), &out); err != nil {
		return nil, corruptf("autoIndexPaths record: %v", err)
	}
	return out, nil
}

// NumSources is the number of files indexed from disk.
func (r *Reader) NumSources() int { return r.nSrc }

// Source returns the i-th file indexed from disk.
func (r *Reader) Source(i int) Source {
	rec := r.data[r.srcOff+uint64(i)*srcSize:]
	return Source{
		Path:    string(r.str(le.Uint64(rec[0:]), le.Uint32(rec[24:]))),
		MtimeNS: int64(le.Uint64(rec[8:])),
		Size:    int64(le.Uint64(rec[16:])),
	}
}

// str is a blob slice; out of range gives nil (Open's checksum makes that
// a file crafted to be wrong, which must still not crash ws).
func (r *Reader) str(off uint64, n uint32) []byte {
	if off > r.blobLen || uint64(n) > r.blobLen-off {
		return nil
	}
	s := r.blobOff + off
	return r.data[s : s+uint64(n) : s+uint64(n)]
}

type rawDoc struct {
	idOff, cOff, mOff uint64
	idLen, cLen, mLen uint32
	length, startLine int
	source            int
}

func (r *Reader) doc(i int) rawDoc {
	rec := r.data[r.docsOff+uint64(i)*docSize:]
	return rawDoc{
		idOff: le.Uint64(rec[0:]), cOff: le.Uint64(rec[8:]), mOff: le.Uint64(rec[16:]),
		idLen: le.Uint32(rec[24:]), cLen: le.Uint32(rec[28:]), mLen: le.Uint32(rec[32:]),
		length:    int(le.Uint32(rec[36:])),
		source:    int(int32(le.Uint32(rec[40:]))),
		startLine: int(le.Uint32(rec[44:])),
	}
}

type rawTerm struct {
	off, first uint64
	n          uint32
	df         int
}

func (r *Reader) term(i int) rawTerm {
	rec := r.data[r.termsOff+uint64(i)*termSize:]
	t := rawTerm{off: le.Uint64(rec[0:]), first: le.Uint64(rec[8:]), n: le.Uint32(rec[16:]), df: int(le.Uint32(rec[20:]))}
	if t.first > uint64(r.nPost) || uint64(t.df) > uint64(r.nPost)-t.first {
		t.df = 0 // out of range: treat as absent
	}
	return t
}

func (r *Reader) posting(i uint64) (doc, tf uint32) {
	rec := r.data[r.postOff+i*postSize:]
	return le.Uint32(rec[0:]), le.Uint32(rec[4:])
}

// lookup finds a term by binary search over the sorted dictionary.
func (r *Reader) lookup(term string) (rawTerm, bool) {
	tb := []byte(term)
	i := sort.Search(r.nTerms, func(i int) bool {
		t := r.term(i)
		return bytes.Compare(r.str(t.off, t.n), tb) >= 0
	})
	if i < r.nTerms {
		if t := r.term(i); bytes.Equal(r.str(t.off, t.n), tb) {
			return t, true
		}
	}
	return rawTerm{}, false
}

// Hit is one search result.
type Hit struct {
	ID      string
	Content string
	Score   float64
	// Range is the first to last line holding a query term, in the
	// lines of the source file for a chunk; nil when no line does.
	Range *LineRange
	// SourceFile is the file a chunk of a long file came from.
	SourceFile string
	// Meta is the document's metadata (a JSON object), or nil.
	Meta []byte
}

// Search scores every document that holds a query term with BM25, keeps
// those scoring at least minScore, sorts them by score (ties keep the
// order in which the query terms first reached them) and returns the first
// topK as JavaScript's slice(0, topK) would take them.
func (r *Reader) Search(query string, topK, minScore float64) []Hit {
	qt := r.tok.Tokenize(query)
	if len(qt) == 0 || r.nDocs == 0 {
		return nil
	}
	n := float64(r.nDocs)
	avg := float64(r.total) / n
	k1, b := r.k1, r.b
	scores := make([]float64, r.nDocs)
	seen := make([]bool, r.nDocs)
	var order []uint32
	for _, q := range qt {
		t, ok := r.lookup(q)
		if !ok || t.df == 0 {
			continue
		}
		df := float64(t.df)
		idf := math.Log(float64(float64(n-df+0.5)/float64(df+0.5)) + 1)
		for j := 0; j < t.df; j++ {
			doc, tf := r.posting(t.first + uint64(j))
			if int(doc) >= r.nDocs {
				continue
			}
			dl := float64(r.doc(int(doc)).length)
			ftf := float64(tf)
			num := float64(ftf * float64(k1+1))
			den := ftf + float64(k1*float64(1-b+float64(b*float64(dl/avg))))
			scores[doc] += float64(idf * float64(num/den))
			if !seen[doc] {
				seen[doc] = true
				order = append(order, doc)
			}
		}
	}
	kept := order[:0]
	for _, d := range order {
		if scores[d] >= minScore {
			kept = append(kept, d)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool { return scores[kept[i]] > scores[kept[j]] })
	kept = kept[:jsSliceEnd(len(kept), topK)]
	hits := make([]Hit, len(kept))
	for i, d := range kept {
		hits[i] = r.hitAt(int(d), qt, scores[d])
	}
	return hits
}

// SliceEnd is the end index JavaScript's array.slice(0, end) uses for an
// array of length n (see jsSliceEnd); Mastra's workspace search slices its
// results twice with the same topK, which matters when topK is negative.
func SliceEnd(n int, end float64) int { return jsSliceEnd(n, end) }

// jsSliceEnd is the end index JavaScript's array.slice(0, end) uses for an
// array of length n: the number truncated, negative counted from the end.
func jsSliceEnd(n int, end float64) int {
	switch {
	case math.IsNaN(end):
		return 0
	case math.IsInf(end, 1):
		return n
	case math.IsInf(end, -1):
		return 0
	}
	e := math.Trunc(end)
	if e < 0 {
		e += float64(n)
		if e < 0 {
			return 0
		}
	}
	if e > float64(n) {
		return n
	}
	return int(e)
}

// SearchIndex runs a query on an index being changed (by encoding it).
func (x *Index) Search(query string, topK, minScore float64) []Hit {
	r, err := Open(x.Encode())
	if err != nil {
		return nil
	}
	r.tok = x.Tok
	return r.Search(query, topK, minScore)
}
