package search

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"sync"
)

// The index file, all integers little-endian:
//
//	header   128 bytes (see the offsets below)
//	docs     48 bytes a document, in indexing order:
//	         id, content, metadata offsets (u64, into the blob) and lengths
//	         (u32), token count (u32), source (i32, -1: none), chunk start line (u32)
//	terms    24 bytes a term, sorted by its bytes: text offset (u64),
//	         first posting (u64), text length (u32), document frequency (u32)
//	postings 8 bytes each: document (u32), term frequency (u32); the
//	         postings of a term are in document order
//	sources  32 bytes a file: path offset (u64), mtime (ns, i64), size (i64),
//	         path length (u32), unused (u32)
//	blob     the strings
//
// The header holds two CRC-32Cs: one of the header (from byte 16) and the
// fixed-width tables, checked whenever the file is opened, and one of the
// blob, checked before the index is changed (a query reads only the few
// strings it returns, and checking 30 MB of text would cost more than the
// query).
const (
	magic      = "WSBM25\x00\x00"
	version    = 1
	headerSize = 136
	docSize    = 48
	termSize   = 24
	postSize   = 8
	srcSize    = 32
)

// header field offsets
const (
	hMagic    = 0
	hVersion  = 8
	hCRC      = 12
	hK1       = 16
	hB        = 24
	hDocs     = 32
	hTerms    = 36
	hSources  = 40
	hFlags    = 44
	hTotalLen = 48
	hDocsOff  = 56
	hTermsOff = 64
	hPostOff  = 72
	hSrcOff   = 80
	hBlobOff  = 88
	hBlobLen  = 96
	hAutoOff  = 104
	hAutoLen  = 112
	hPostings = 116
	hFileLen  = 120
	hBlobCRC  = 128
	hTokFP    = 132 // the tokenizer's fingerprint (0: the default)
)

const flagAutoPaths = 1

var crcTable = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// ErrCorrupt is wrapped by every error about a damaged or foreign index file.
var ErrCorrupt = errors.New("corrupt search index")

// ErrVersion is returned for an index written by a newer ws.
var ErrVersion = errors.New("search index written by a newer version of ws")

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

var le = binary.LittleEndian

// Encode lays the index out in the file format.
func (x *Index) Encode() []byte {
	live, docMap, srcs, _ := x.compact()
	terms := x.sortedTerms(docMap)

	var blob []byte
	addStr := func(s string) (uint64, uint32) {
		off := uint64(len(blob))
		blob = append(blob, s...)
		return off, uint32(len(s))
	}
	nPost := 0
	for _, t := range terms {
		for _, p := range x.postings[t] {
			if docMap[p.doc] >= 0 {
				nPost++
			}
		}
	}
	docsOff := uint64(headerSize)
	termsOff := docsOff + uint64(len(live))*docSize
	postOff := termsOff + uint64(len(terms))*termSize
	srcOff := postOff + uint64(nPost)*postSize
	blobOff := srcOff + uint64(len(srcs))*srcSize
	fixed := make([]byte, blobOff)

	var total uint64
	for i, d := range live {
		rec := fixed[docsOff+uint64(i)*docSize:]
		idOff, idLen := addStr(d.ID)
		cOff, cLen := addStr(d.Content)
		mOff, mLen := addStr(string(d.Meta))
		le.PutUint64(rec[0:], idOff)
		le.PutUint64(rec[8:], cOff)
		le.PutUint64(rec[16:], mOff)
		le.PutUint32(rec[24:], idLen)
		le.PutUint32(rec[28:], cLen)
		le.PutUint32(rec[32:], mLen)
		le.PutUint32(rec[36:], uint32(d.length))
		le.PutUint32(rec[40:], uint32(int32(d.Source)))
		le.PutUint32(rec[44:], uint32(d.StartLine))
		total += uint64(d.length)
	}
	pi := uint64(0)
	for i, t := range terms {
		rec := fixed[termsOff+uint64(i)*termSize:]
		off, n := addStr(t)
		first := pi
		for _, p := range x.postings[t] {
			nd := docMap[p.doc]
			if nd < 0 {
				continue
			}
			prec := fixed[postOff+pi*postSize:]
			le.PutUint32(prec[0:], uint32(nd))
			le.PutUint32(prec[4:], p.tf)
			pi++
		}
		le.PutUint64(rec[0:], off)
		le.PutUint64(rec[8:], first)
		le.PutUint32(rec[16:], n)
		le.PutUint32(rec[20:], uint32(pi-first))
	}
	for i, s := range srcs {
		rec := fixed[srcOff+uint64(i)*srcSize:]
		off, n := addStr(s.Path)
		le.PutUint64(rec[0:], off)
		le.PutUint64(rec[8:], uint64(s.MtimeNS))
		le.PutUint64(rec[16:], uint64(s.Size))
		le.PutUint32(rec[24:], n)
	}
	var flags uint32
	var autoOff uint64
	var autoLen uint32
	if x.AutoPaths != nil {
		flags |= flagAutoPaths
		j, _ := json.Marshal(x.AutoPaths)
		autoOff, autoLen = addStr(string(j))
	}

	h := fixed[:headerSize]
	copy(h[hMagic:], magic)
	le.PutUint32(h[hVersion:], version)
	le.PutUint64(h[hK1:], math.Float64bits(x.K1))
	le.PutUint64(h[hB:], math.Float64bits(x.B))
	le.PutUint32(h[hDocs:], uint32(len(live)))
	le.PutUint32(h[hTerms:], uint32(len(terms)))
	le.PutUint32(h[hSources:], uint32(len(srcs)))
	le.PutUint32(h[hFlags:], flags)
	le.PutUint64(h[hTotalLen:], total)
	le.PutUint64(h[hDocsOff:], docsOff)
	le.PutUint64(h[hTermsOff:], termsOff)
	le.PutUint64(h[hPostOff:], postOff)
	le.PutUint64(h[hSrcOff:], srcOff)
	le.PutUint64(h[hBlobOff:], blobOff)
	le.PutUint64(h[hBlobLen:], uint64(len(blob)))
	le.PutUint64(h[hAutoOff:], autoOff)
	le.PutUint32(h[hAutoLen:], autoLen)
	le.PutUint32(h[hPostings:], uint32(nPost))
	le.PutUint64(h[hFileLen:], blobOff+uint64(len(blob)))
	le.PutUint32(h[hBlobCRC:], crc32.Checksum(blob, crcTable()))
	le.PutUint32(h[hTokFP:], x.Tok.Fingerprint())
	le.PutUint32(h[hCRC:], crc32.Checksum(fixed[16:], crcTable()))
	return append(fixed, blob...)
}

// Decode reads a whole index for changing it. The strings are copied, so
// data may be unmapped afterwards.
func Decode(data []byte) (*Index, error) {
	r, err := Open(data)
	if err != nil {
		return nil, err
	}
	if err := r.VerifyBlob(); err != nil {
		return nil, err
	}
	x := NewIndex(r.k1, r.b)
	if r.tokFP != 0 {
		// Tokenized with options this caller has not given: Reparam
		// with them (or any others) tokenizes everything again.
		x.Tok = &Tokenizer{fp: r.tokFP}
	}
	x.AutoPaths, err = r.AutoPaths()
	if err != nil {
		return nil, err
	}
	x.Sources = make([]Source, r.nSrc)
	for i := range x.Sources {
		x.Sources[i] = r.Source(i)
	}
	x.docs = make([]docEntry, r.nDocs)
	for i := range x.docs {
		rd := r.doc(i)
		d := Doc{
			ID:        string(r.str(rd.idOff, rd.idLen)),
			Content:   string(r.str(rd.cOff, rd.cLen)),
			Source:    rd.source,
			StartLine: rd.startLine,
		}
		if rd.mLen > 0 {
			d.Meta = append([]byte(nil), r.str(rd.mOff, rd.mLen)...)
		}
		if d.Source >= r.nSrc {
			return nil, corruptf("document %d names source %d of %d", i, d.Source, r.nSrc)
		}
		if _, dup := x.byID[d.ID]; dup {
			return nil, corruptf("document id %q appears twice", d.ID)
		}
		x.docs[i] = docEntry{Doc: d, length: rd.length}
		x.byID[d.ID] = i
	}
	x.postings = make(map[string][]posting, r.nTerms)
	for i := 0; i < r.nTerms; i++ {
		t := r.term(i)
		ps := make([]posting, t.df)
		for j := range ps {
			doc, tf := r.posting(t.first + uint64(j))
			if int(doc) >= r.nDocs {
				return nil, corruptf("a posting names document %d of %d", doc, r.nDocs)
			}
			ps[j] = posting{doc: doc, tf: tf}
		}
		x.postings[string(r.str(t.off, t.n))] = ps
	}
	return x, nil
}
