package search

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"unsafe"

	"github.com/wstools/ws/pkg/statefile"
	"golang.org/x/sys/unix"
)

// Hash is a document's content hash (SHA-256): a document is embedded
// once per content, so indexing an unchanged file again costs nothing.
type Hash [32]byte

// HashContent is the hash of a document's content.
func HashContent(s string) Hash { return sha256.Sum256([]byte(s)) }

// VectorMeta says what a vector store holds.
type VectorMeta struct {
	Model string // the embedder's model the vectors come from
	Dim   int    // dimension of every vector (0 when there are none)
	Count int
	// Synced is the Fingerprint of the keyword index whose documents the
	// vectors were made for (0: none).
	Synced uint64
}

// VectorEntry is a stored document: its id and content hash.
type VectorEntry struct {
	ID   string
	Hash Hash
}

// VectorRecord is a document's vector.
type VectorRecord struct {
	VectorEntry
	Vector []float32
	// Ref is the document's position in the keyword index (-1: unknown),
	// handed back by queries so results are found without a search.
	Ref int
}

// VectorMatch is one answer of a vector query.
type VectorMatch struct {
	ID    string
	Score float64 // cosine similarity, -1 to 1
	// Ref is the document's position in the keyword index the store was
	// synced with, or -1 when the store does not know it.
	Ref int
}

// VectorStore is where the documents' vectors live. The embedded store
// ([VectorFile], a file in the state directory) implements it; a store on
// a server can too.
type VectorStore interface {
	// Meta says what the store holds.
	Meta() VectorMeta
	// Entries lists the stored documents, in store order.
	Entries() []VectorEntry
	// Lookup finds a stored vector made from content with this hash.
	Lookup(h Hash) ([]float32, bool)
	// Replace makes the store hold exactly records (in this order), with
	// meta's model, dimension and Synced.
	Replace(meta VectorMeta, records []VectorRecord) error
	// Query returns the k stored vectors most similar to q by cosine, best
	// first (equal scores in store order).
	Query(q []float32, k int) ([]VectorMatch, error)
}

// The vector file, all integers little-endian:
//
//	header   64 bytes (offsets below)
//	model    the model name
//	ids      per vector: length (u32) and bytes
//	hashes   32 bytes per vector
//	refs     per vector: its document's position in the keyword index
//	         (u32; all ones: unknown)
//	(zero padding to a multiple of 64)
//	vectors  dim float32 per vector, at vecOff
//	norms    one float32 per vector: the vector's Euclidean length
//
// One CRC-32C covers the header (from byte 16) through the hashes and is
// checked on every open; another covers the vectors and norms, checked
// before the store is changed (a query reads every vector anyway, and a
// damaged one can only give a wrong score).
const (
	vecMagic   = "WSVECT\x00\x00"
	vecVersion = 1
	vecHeader  = 64

	vhVersion = 8
	vhCRC     = 12
	vhDim     = 16
	vhCount   = 20
	vhSynced  = 24
	vhModel   = 32
	vhIDs     = 36
	vhVecOff  = 40
	vhFileLen = 48
	vhVecCRC  = 56
)

// VectorFile is the embedded vector store: one file, mapped for queries,
// replaced atomically on change.
type VectorFile struct {
	Path   string
	meta   VectorMeta
	data   []byte
	mapped bool
	idOff  []uint64  // where each id starts (after its length)
	hashAt uint64    // where the hashes start
	refAt  uint64    // where the refs start
	vecs   []float32 // count × dim
	norms  []float32
	byHash map[Hash]int
}

// OpenVectors opens the vector file at path; a missing file is an empty
// store. The file is mapped, not read.
func OpenVectors(path string) (*VectorFile, error) {
	v := &VectorFile{Path: path}
	// Every page is read by a query: fault them in with one call.
	data, mapped, err := mapFile(path, vecHeader, "vector file", unix.MAP_POPULATE)
	if errors.Is(err, fs.ErrNotExist) {
		return v, nil
	}
	if err != nil {
		return nil, err
	}
	v.mapped = mapped
	v.data = data
	if err := v.parse(); err != nil {
		v.Close()
		return nil, err
	}
	return v, nil
}

// Close releases the file's mapping.
func (v *VectorFile) Close() error {
	if v == nil || !v.mapped {
		return nil
	}
	v.mapped = false
	v.vecs, v.norms, v.idOff = nil, nil, nil
	return unix.Munmap(v.data)
}

func (v *VectorFile) parse() error {
	d := v.data
	if string(d[:8]) != vecMagic {
		return corruptf("not a ws vector file (bad magic)")
	}
	if ver := le.Uint32(d[vhVersion:]); ver != vecVersion {
		if ver > vecVersion {
			return ErrVersion
		}
		return corruptf("unknown vector file version %d", ver)
	}
	dim, count := int(le.Uint32(d[vhDim:])), int(le.Uint32(d[vhCount:]))
	modelLen, idsLen := uint64(le.Uint32(d[vhModel:])), uint64(le.Uint32(d[vhIDs:]))
	vecOff := le.Uint64(d[vhVecOff:])
	n := uint64(len(d))
	metaEnd := vecHeader + modelLen + idsLen + 36*uint64(count)
	vecBytes := 4 * (uint64(count)*uint64(dim) + uint64(count))
	if le.Uint64(d[vhFileLen:]) != n || metaEnd > vecOff || vecOff%64 != 0 || vecOff > n || n-vecOff != vecBytes ||
		(count > 0) != (dim > 0) {
		return corruptf("vector file sections do not fit the file")
	}
	if crc32.Checksum(d[16:metaEnd], crcTable()) != le.Uint32(d[vhCRC:]) {
		return corruptf("vector file checksum mismatch")
	}
	v.meta = VectorMeta{Model: string(d[vecHeader : vecHeader+modelLen]), Dim: dim, Count: count, Synced: le.Uint64(d[vhSynced:])}
	v.idOff = make([]uint64, count)
	off := vecHeader + modelLen
	end := off + idsLen
	for i := range v.idOff {
		if off+4 > end {
			return corruptf("vector file ids do not fit")
		}
		l := uint64(le.Uint32(d[off:]))
		off += 4
		if l > end-off {
			return corruptf("vector file ids do not fit")
		}
		v.idOff[i] = off
		off += l
	}
	v.hashAt = end
	v.refAt = end + 32*uint64(count)
	v.vecs = floats(d[vecOff : vecOff+4*uint64(count)*uint64(dim)])
	v.norms = floats(d[vecOff+4*uint64(count)*uint64(dim):])
	return nil
}

func (v *VectorFile) id(i int) string {
	off := v.idOff[i]
	return string(v.data[off : off+uint64(le.Uint32(v.data[off-4:]))])
}

func (v *VectorFile) hash(i int) (h Hash) {
	copy(h[:], v.data[v.hashAt+32*uint64(i):])
	return h
}

func (v *VectorFile) ref(i int) int {
	r := le.Uint32(v.data[v.refAt+4*uint64(i):])
	if r == math.MaxUint32 {
		return -1
	}
	return int(r)
}

// ReadVectorMeta reads only what a vector file's header says (no checks
// beyond its magic and version): enough to tell whether a store is
// current. A missing file is an empty store.
func ReadVectorMeta(path string) (VectorMeta, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return VectorMeta{}, nil
	}
	if err != nil {
		return VectorMeta{}, err
	}
	defer f.Close()
	h := make([]byte, vecHeader+256)
	n, _ := f.ReadAt(h, 0)
	h = h[:n]
	if n < vecHeader || string(h[:8]) != vecMagic || le.Uint32(h[vhVersion:]) != vecVersion {
		return VectorMeta{}, corruptf("not a ws vector file of this version")
	}
	ml := int(le.Uint32(h[vhModel:]))
	if ml > 4096 {
		return VectorMeta{}, corruptf("model name of %d bytes", ml)
	}
	if vecHeader+ml > n {
		h = make([]byte, vecHeader+ml)
		if _, err := f.ReadAt(h, 0); err != nil {
			return VectorMeta{}, corruptf("short header")
		}
	}
	return VectorMeta{Model: string(h[vecHeader : vecHeader+ml]), Dim: int(le.Uint32(h[vhDim:])),
		Count: int(le.Uint32(h[vhCount:])), Synced: le.Uint64(h[vhSynced:])}, nil
}

// littleEndian: the file's floats can be used in place.
var littleEndian = func() bool { x := uint16(1); return *(*byte)(unsafe.Pointer(&x)) == 1 }()

// floats views little-endian float32s in place (the mapping is 64-byte
// aligned), or decodes them on a big-endian machine.
func floats(b []byte) []float32 {
	n := len(b) / 4
	if n == 0 {
		return nil
	}
	if littleEndian && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(le.Uint32(b[4*i:]))
	}
	return out
}

// Meta says what the file holds.
func (v *VectorFile) Meta() VectorMeta { return v.meta }

// Entries lists the stored documents.
func (v *VectorFile) Entries() []VectorEntry {
	out := make([]VectorEntry, len(v.idOff))
	for i := range v.idOff {
		out[i] = VectorEntry{ID: v.id(i), Hash: v.hash(i)}
	}
	return out
}

// Verify checks the vectors' checksum (opening checks the rest).
func (v *VectorFile) Verify() error {
	if len(v.data) == 0 {
		return nil
	}
	off := le.Uint64(v.data[vhVecOff:])
	if crc32.Checksum(v.data[off:], crcTable()) != le.Uint32(v.data[vhVecCRC:]) {
		return corruptf("vector file checksum mismatch in the vectors")
	}
	return nil
}

// vector is the i-th stored vector.
func (v *VectorFile) vector(i int) []float32 {
	d := v.meta.Dim
	return v.vecs[i*d : (i+1)*d : (i+1)*d]
}

// Lookup finds a stored vector by the hash of its content.
func (v *VectorFile) Lookup(h Hash) ([]float32, bool) {
	if v.byHash == nil {
		v.byHash = make(map[Hash]int, v.meta.Count)
		for i := 0; i < v.meta.Count; i++ {
			if x := v.hash(i); v.byHash[x] == 0 {
				v.byHash[x] = i + 1
			}
		}
	}
	i := v.byHash[h] // one more than the position; 0: none
	if i == 0 {
		return nil, false
	}
	return v.vector(i - 1), true
}

// Replace writes a new file holding exactly records, atomically.
func (v *VectorFile) Replace(meta VectorMeta, records []VectorRecord) error {
	dim := meta.Dim
	if len(records) == 0 {
		dim = 0
	}
	for _, r := range records {
		if len(r.Vector) != dim {
			return fmt.Errorf("vector of %d dimensions in a store of %d", len(r.Vector), dim)
		}
	}
	idsLen := 0
	for _, r := range records {
		idsLen += 4 + len(r.ID)
	}
	metaEnd := vecHeader + len(meta.Model) + idsLen + 36*len(records)
	vecOff := (metaEnd + 63) &^ 63
	n := len(records)
	total := vecOff + 4*(n*dim+n)
	buf := make([]byte, total)
	copy(buf, vecMagic)
	le.PutUint32(buf[vhVersion:], vecVersion)
	le.PutUint32(buf[vhDim:], uint32(dim))
	le.PutUint32(buf[vhCount:], uint32(n))
	le.PutUint64(buf[vhSynced:], meta.Synced)
	le.PutUint32(buf[vhModel:], uint32(len(meta.Model)))
	le.PutUint32(buf[vhIDs:], uint32(idsLen))
	le.PutUint64(buf[vhVecOff:], uint64(vecOff))
	le.PutUint64(buf[vhFileLen:], uint64(total))
	off := vecHeader + copy(buf[vecHeader:], meta.Model)
	for _, r := range records {
		le.PutUint32(buf[off:], uint32(len(r.ID)))
		off += 4
		off += copy(buf[off:], r.ID)
	}
	for _, r := range records {
		off += copy(buf[off:], r.Hash[:])
	}
	for _, r := range records {
		ref := uint32(math.MaxUint32)
		if r.Ref >= 0 && r.Ref < math.MaxUint32 {
			ref = uint32(r.Ref)
		}
		le.PutUint32(buf[off:], ref)
		off += 4
	}
	p := vecOff
	for _, r := range records {
		for _, x := range r.Vector {
			le.PutUint32(buf[p:], math.Float32bits(x))
			p += 4
		}
	}
	for _, r := range records {
		le.PutUint32(buf[p:], math.Float32bits(norm(r.Vector)))
		p += 4
	}
	le.PutUint32(buf[vhVecCRC:], crc32.Checksum(buf[vecOff:], crcTable()))
	le.PutUint32(buf[vhCRC:], crc32.Checksum(buf[16:metaEnd], crcTable()))
	if err := os.MkdirAll(filepath.Dir(v.Path), 0o700); err != nil {
		return err
	}
	return statefile.Write(v.Path, buf)
}

// Remove deletes the vector file.
func (v *VectorFile) Remove() error {
	err := os.Remove(v.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

func norm(x []float32) float32 {
	var s float64
	for _, f := range x {
		s += float64(f) * float64(f)
	}
	return float32(math.Sqrt(s))
}

// dot is the inner product, four lanes at a time.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// Cosine is the cosine similarity of a and b (0 when either is zero).
func Cosine(a, b []float32) float64 {
	na, nb := norm(a), norm(b)
	if na == 0 || nb == 0 {
		return 0
	}
	return float64(dot(a, b)) / (float64(na) * float64(nb))
}

// ErrDimension is a query vector whose dimension is not the store's.
var ErrDimension = errors.New("wrong dimension")

// Query scans every vector (exact search): cosine similarity to q, the k
// best kept, ties in store order. Two or more goroutines share the scan
// of a large store.
func (v *VectorFile) Query(q []float32, k int) ([]VectorMatch, error) {
	n := v.meta.Count
	if n == 0 || k <= 0 {
		return nil, nil
	}
	if len(q) != v.meta.Dim {
		return nil, fmt.Errorf("%w: the query vector has %d dimensions, the stored vectors %d", ErrDimension, len(q), v.meta.Dim)
	}
	k = min(k, n)
	qn := float64(norm(q))
	parts := 1
	if n*v.meta.Dim >= 1<<20 {
		parts = max(1, min(runtime.GOMAXPROCS(0), 4))
	}
	per := (n + parts - 1) / parts
	tops := make([][]scored, parts)
	var wg sync.WaitGroup
	for p := 0; p < parts; p++ {
		lo, hi := p*per, min(n, (p+1)*per)
		wg.Add(1)
		go func() {
			defer wg.Done()
			tops[p] = v.scan(q, qn, lo, hi, k)
		}()
	}
	wg.Wait()
	var all []scored
	for _, t := range tops {
		all = append(all, t...)
	}
	sort.SliceStable(all, func(i, j int) bool { return better(all[i], all[j]) })
	all = all[:min(k, len(all))]
	out := make([]VectorMatch, len(all))
	for i, s := range all {
		out[i] = VectorMatch{ID: v.id(s.i), Score: s.score, Ref: v.ref(s.i)}
	}
	return out, nil
}

type scored struct {
	i     int
	score float64
}

func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.i < b.i
}

// scan keeps the k best of vectors lo to hi, best first.
func (v *VectorFile) scan(q []float32, qn float64, lo, hi, k int) []scored {
	top := make([]scored, 0, k+1)
	for i := lo; i < hi; i++ {
		s := 0.0
		if vn := float64(v.norms[i]); vn != 0 && qn != 0 {
			s = float64(dot(q, v.vector(i))) / (qn * vn)
		}
		if len(top) == k && s <= top[k-1].score {
			continue
		}
		j := sort.Search(len(top), func(j int) bool { return s > top[j].score })
		top = append(top, scored{})
		copy(top[j+1:], top[j:])
		top[j] = scored{i, s}
		if len(top) > k {
			top = top[:k]
		}
	}
	return top
}

// Fingerprint identifies the content of an index file (its two
// checksums): a vector store records the one it was synced with.
func (r *Reader) Fingerprint() uint64 {
	return uint64(le.Uint32(r.data[hCRC:]))<<32 | uint64(le.Uint32(r.data[hBlobCRC:]))
}
