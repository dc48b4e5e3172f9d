package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/embed"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/search"
	"github.com/wstools/ws/pkg/statefile"
)

// Files is what the engine needs of the workspace's filesystem: the path
// chokepoint and the primitives beneath it (*fsroot.FS has them).
type Files interface {
	Resolve(input string) (*fsroot.Target, error)
	Stat(l fsroot.Loc) (fsroot.FileStat, error)
	Lstat(l fsroot.Loc) (fsroot.FileStat, error)
	Open(l fsroot.Loc, flags int, mode uint32) (int, error)
	Walk(ctx context.Context, start fsroot.Loc, rel string, opts fsroot.WalkOptions, data any, visit func(e *fsroot.WalkEntry) (enter bool, data any)) (unreadable int, err error)
	// Contained reports whether paths outside the allowed roots are refused.
	Contained() bool
	// BelowBase is the place of a clean relative path below the base.
	BelowBase(sub string) (fsroot.Loc, bool)
}

// Options build an Engine from the workspace's config and state.
type Options struct {
	Files Files
	// StateDir holds the index (search/ in it); "" is no state: each query
	// indexes the autoIndexPaths in memory, and vectors are refused.
	StateDir string
	// IndexDir, when set, is the directory below StateDir that holds the
	// index and its vectors instead of search/ (a workspace whose state
	// directory another workspace owns keeps its index apart).
	IndexDir  string
	Params    search.Params // the bm25 settings
	AutoPaths []string      // the autoIndexPaths
	// VectorName is the vector index's name (searchIndexName), which names
	// its file next to the index.
	VectorName string
	// Embedder is the configured embedder (nil: none); its model names the
	// vectors and its dimensions, when set, are checked.
	Embedder *config.Embedder
	// NewEmbedder makes the embedder at each use (see ConfiguredEmbedder).
	NewEmbedder func() (embed.Embedder, error)
	// Warn receives problems that do not fail the call (a damaged index or
	// vector store rebuilt). Nil drops them.
	Warn func(msg string)
	// LockTimeout bounds the wait for another process changing the index;
	// 0 is 30 seconds.
	LockTimeout time.Duration
}

// Engine is a workspace's search index, kept in line with its files.
type Engine struct{ o Options }

// New returns the engine the options describe; it opens nothing yet.
func New(o Options) *Engine {
	if o.LockTimeout == 0 {
		o.LockTimeout = defaultLockTimeout
	}
	return &Engine{o: o}
}

// defaultLockTimeout bounds the wait for another process changing the index.
const defaultLockTimeout = 30 * time.Second

func (e *Engine) warn(msg string) {
	if e.o.Warn != nil {
		e.o.Warn(msg)
	}
}

func (e *Engine) store() search.Store {
	return search.Store{Dir: e.indexDir()}
}

// indexDir is the directory of the index and its vectors.
func (e *Engine) indexDir() string { return filepath.Join(e.o.StateDir, e.indexRel()) }

// indexRel is indexDir relative to the state directory.
func (e *Engine) indexRel() string {
	if e.o.IndexDir != "" {
		return e.o.IndexDir
	}
	return "search"
}

// vectors reports whether the index is kept with vectors (an embedder is
// configured).
func (e *Engine) vectors() bool { return e.o.Embedder != nil }

// Search ranks the indexed documents for query in mode (search.ModeBM25,
// ModeVector or ModeHybrid, as search.EffectiveMode picked it): the best
// topK (JavaScript's slice rules), those below minScore (when set) left
// out. The index is brought up to date first (see Open).
func (e *Engine) Search(ctx context.Context, query, mode string, topK float64, minScore *float64) ([]search.Scored, error) {
	r, done, err := e.Open(ctx, mode != search.ModeBM25)
	if err != nil {
		return nil, err
	}
	defer done()
	if r == nil {
		return nil, nil
	}
	hits, err := e.rank(ctx, r, query, mode, topK, minScore)
	var dc *dimChange
	if errors.As(err, &dc) {
		// The embedder's vectors changed dimension: embed the documents
		// again, then search the index that holds their new vectors.
		var data []byte
		data, err = e.changeVectors(ctx, false, dc.new, func(*search.Index) {})
		if err != nil {
			return nil, err
		}
		if r, err = search.Open(data); err != nil {
			return nil, e.indexError(err)
		}
		r.Built(e.o.Params)
		hits, err = e.rank(ctx, r, query, mode, topK, minScore)
	}
	if err != nil {
		return nil, e.dimError(err)
	}
	// Mastra's Workspace.search takes topK again of what the engine
	// returned: a negative topK drops that many results twice.
	return hits[:search.SliceEnd(len(hits), topK)], nil
}

// rank ranks the documents of r for query in mode (see Search).
func (e *Engine) rank(ctx context.Context, r *search.Reader, query, mode string, topK float64, minScore *float64) ([]search.Scored, error) {
	switch mode {
	case search.ModeBM25:
		least := 0.0
		if minScore != nil {
			least = *minScore
		}
		var hits []search.Scored
		for _, h := range r.Search(query, topK, least) {
			s := h.Score
			hits = append(hits, search.Scored{Hit: h, Details: search.ScoreDetails{BM25: &s}})
		}
		return hits, nil
	case search.ModeVector:
		return e.vectorSearch(ctx, r, e.vectorFile(), query, topK, minScore)
	}
	k := search.HybridTopK(topK)
	vec, err := e.vectorSearch(ctx, r, e.vectorFile(), query, k, nil)
	if err != nil {
		return nil, err
	}
	return search.Merge(plainHits(vec), r.Search(query, k, 0), 0.5, topK, minScore), nil
}

// plainHits are the hits of scored results.
func plainHits(scored []search.Scored) []search.Hit {
	plain := make([]search.Hit, len(scored))
	for i, s := range scored {
		plain[i] = s.Hit
	}
	return plain
}

// Add adds a document to the index, or replaces the one with the same id,
// and returns the number of documents in the index afterwards.
func (e *Engine) Add(ctx context.Context, doc search.Doc) (int, error) {
	if n, ok, err := e.addToJournal(doc); ok || err != nil {
		return n, err
	}
	var n int
	_, err := e.change(ctx, false, e.vectors(), func(x *search.Index) {
		x.Add(doc)
		n = x.Len()
	})
	return n, err
}

// maxJournal is how long the journal may grow, as a part of the index
// file (and at least minJournal): past it, an added document is taken in
// with the journal by a rewrite of the index.
const (
	maxJournalPart = 8 // an eighth of the index file
	minJournal     = 1 << 20
)

// addToJournal adds a document by appending it to the index's journal
// (see search.Store.AppendJournal), when the index file is there and
// current (its settings and autoIndexPaths are the config's), no vectors
// are kept, and the journal is still short: ok is false when it cannot,
// and Add rewrites the index instead. It returns the number of documents.
func (e *Engine) addToJournal(doc search.Doc) (n int, ok bool, err error) {
	if e.o.StateDir == "" || e.vectors() || doc.Source != -1 {
		return 0, false, nil
	}
	store := e.store()
	lock, err := store.Lock(e.o.LockTimeout)
	if err != nil {
		return 0, false, e.indexError(err)
	}
	defer lock.Release()
	m, err := store.Load()
	if err != nil || m == nil {
		return 0, false, nil // a damaged index is for change to set aside
	}
	defer m.Close()
	if !m.Built(e.o.Params) || !e.autoPathsCurrent(m) || m.VerifyBlob() != nil {
		return 0, false, nil
	}
	base := m.Bytes()
	j, err := store.ReadJournal(base)
	if err != nil {
		return 0, false, e.indexError(err)
	}
	limit := max(int64(len(base))/maxJournalPart, minJournal)
	if j.Size()+int64(len(doc.ID)+len(doc.Content)+len(doc.Meta)) > limit {
		return 0, false, nil
	}
	n = m.NumDocs()
	if j != nil {
		n = j.Count
	}
	if !j.Has(doc.ID) && !m.HasID(doc.ID) {
		n++
	}
	if err := store.AppendJournal(base, j, doc, n); err != nil {
		return 0, false, e.indexError(err)
	}
	return n, true, nil
}

// Refresh says what a walk of the autoIndexPaths did.
type Refresh struct {
	Files     int      // files indexed from the autoIndexPaths
	Added     []string // files new to the index
	Changed   []string // files read again
	Removed   []string // files dropped
	Skipped   []Skip   // files and patterns not indexed, or cut, and why
	Documents int      // documents in the index afterwards
}

// Skip is a file or pattern of the autoIndexPaths that a walk did not
// index (or indexed only in part), and why.
type Skip struct {
	Path   string // as the pattern spells it
	Reason string
}

// Refresh walks the autoIndexPaths again: new files are indexed, changed
// ones read again, files that are gone or no longer match dropped.
func (e *Engine) Refresh(ctx context.Context) (*Refresh, error) {
	res := &Refresh{Added: []string{}, Changed: []string{}, Removed: []string{}, Skipped: []Skip{}}
	_, err := e.change(ctx, true, e.vectors(), func(x *search.Index) {
		e.autoIndex(ctx, x, res)
		res.Documents = x.Len()
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// Stats describes the index and the vector store in the state directory.
type Stats struct {
	Documents  int
	Vectors    int
	Model      string
	Dimensions int
	// Problem says why the index file could not be read ("" when it
	// could, or when there is none): damaged, or written by a newer ws.
	Problem string
}

// Stats reads what the state directory holds, changing nothing: what
// cannot be read counts as empty, and the index's problem is told.
func (e *Engine) Stats() Stats {
	var st Stats
	m, err := e.store().Load()
	switch {
	case errors.Is(err, search.ErrCorrupt):
		st.Problem = "damaged (" + strings.TrimPrefix(err.Error(), search.ErrCorrupt.Error()+": ") +
			"); the next search or index call sets it aside and builds it again"
	case errors.Is(err, search.ErrVersion):
		st.Problem = "written by a newer version of ws"
	case err != nil:
		st.Problem = "cannot be read (" + err.Error() + ")"
	case m != nil:
		st.Documents = m.NumDocs()
		if j, _ := e.store().ReadJournal(m.Bytes()); j != nil && len(j.Docs) > 0 {
			st.Documents = j.Count
		}
		m.Close()
	}
	if vm, err := search.ReadVectorMeta(e.vectorFile()); err == nil {
		st.Vectors, st.Model, st.Dimensions = vm.Count, vm.Model, vm.Dim
	}
	return st
}

// Open returns the index to query, brought up to date first: the
// autoIndexPaths indexed if the index lacks them, changed files read again
// and deleted ones dropped; with vectors, the vector store brought in line
// with it too. A nil reader is an empty index; done releases the reader.
func (e *Engine) Open(ctx context.Context, vectors bool) (r *search.Reader, done func(), err error) {
	nop := func() {}
	params := e.o.Params
	if e.o.StateDir == "" {
		if vectors {
			return nil, nop, errs.NoVectorState()
		}
		x := search.NewIndexWith(params)
		e.autoIndex(ctx, x, nil)
		r, err := search.Open(x.Encode())
		if err != nil {
			return nil, nop, errs.Wrap(err)
		}
		r.Built(params)
		return r, nop, nil
	}
	// The journal is looked at before the index file: one taken in
	// meanwhile is then either gone or extends an older index file.
	_, jerr := os.Stat(e.store().LogPath())
	journal := jerr == nil
	m, err := e.store().Load()
	if err == nil && m != nil && journal {
		// Documents added since the index file was written are taken in
		// below, by the change that rewrites it.
		j, _ := e.store().ReadJournal(m.Bytes())
		journal = j != nil && len(j.Docs) > 0
	}
	if err == nil && m != nil && !m.Built(params) {
		// Built with other bm25 settings: tokenized again below.
		m.Close()
		m, err = nil, errIndexChange
	}
	if err == nil && !e.autoPathsCurrent(m) {
		m.Close()
		m, err = nil, errIndexChange
	}
	var stale []string
	if err == nil && m != nil {
		stale = e.staleSources(ctx, m.Reader)
		if len(stale) == 0 && !journal && (!vectors || e.vectorsCurrent(m.Reader)) {
			return m.Reader, func() { m.Close() }, nil
		}
		m.Close()
		err = errIndexChange
	}
	if err == nil && m == nil && len(e.o.AutoPaths) == 0 {
		return nil, nop, nil
	}
	if err != nil && !errors.Is(err, errIndexChange) && !errors.Is(err, search.ErrCorrupt) {
		return nil, nop, e.indexError(err)
	}
	// Something to change: do it under the lock, on what is there now.
	data, err := e.change(ctx, false, vectors, func(x *search.Index) {
		e.refreshStale(ctx, x, stale)
	})
	if err != nil {
		return nil, nop, err
	}
	r, err = search.Open(data)
	if err != nil {
		return nil, nop, e.indexError(err)
	}
	r.Built(params)
	return r, nop, nil
}

var errIndexChange = errors.New("index needs a change")

// autoPathsCurrent reports whether the index was built from the
// autoIndexPaths the config has now (no index counts as current when there
// are none).
func (e *Engine) autoPathsCurrent(m *search.Mapped) bool {
	want := e.o.AutoPaths
	if m == nil {
		return len(want) == 0
	}
	got, err := m.AutoPaths()
	if err != nil {
		return false
	}
	if got == nil {
		return len(want) == 0
	}
	return slices.Equal(got, want)
}

// indexError is a failure of the index or vector files as a tool error.
// Its message names the files relative to the state directory (the state
// directory itself when that is what is unusable).
func (e *Engine) indexError(err error) error {
	var we *errs.Error
	if errors.As(err, &we) {
		return err
	}
	if errors.Is(err, search.ErrVersion) {
		return errs.IndexTooNew(err)
	}
	if errors.Is(err, search.ErrCorrupt) {
		return errs.IndexDamaged(err)
	}
	if p := statefile.DirProblem(e.o.StateDir, err); p != "" {
		return errs.StateDir(e.o.StateDir, p, err)
	}
	return errs.State(statefile.Relative(e.o.StateDir, err))
}

// change is the read-modify-write of the index: under the store's lock it
// loads the index (a damaged one is set aside and rebuilt, with a
// warning), indexes the autoIndexPaths if the index lacks them, applies
// fn and saves the result atomically. It returns the new file's bytes.
// With refresh, fn walks the autoIndexPaths itself. With vectors,
// the documents are embedded (those whose content the vector store does
// not hold yet) before anything is saved, so an embedder that fails leaves
// the index as it was.
func (e *Engine) change(ctx context.Context, refresh, vectors bool, fn func(*search.Index)) ([]byte, error) {
	dim := -1 // no vectors
	if vectors {
		dim = 0
	}
	return e.changeVectors(ctx, refresh, dim, fn)
}

// changeVectors is change, with vectors when dim ≥ 0: a dim above 0 is
// the dimension the embedder gives now, and vectors of another are all
// made again (see syncVectors).
func (e *Engine) changeVectors(ctx context.Context, refresh bool, dim int, fn func(*search.Index)) (_ []byte, err error) {
	saved := false
	var store search.Store
	var x *search.Index
	params := e.o.Params
	if e.o.StateDir == "" {
		x = search.NewIndexWith(params)
	} else {
		store = e.store()
		lock, err := store.Lock(e.o.LockTimeout)
		if err != nil {
			return nil, e.indexError(err)
		}
		defer lock.Release()
		m, err := store.Load()
		var journal *search.Journal
		if err == nil && m != nil {
			// Decode checks the strings too, which Load (for a query)
			// does not: damage found there is handled as Load's.
			x, err = search.Decode(m.Bytes())
			if err == nil {
				journal, err = store.ReadJournal(m.Bytes())
			}
			m.Close()
		}
		// The journal goes once the index file written below holds its
		// documents (a stale one, which extends no index file, too).
		defer func() {
			if saved {
				_ = store.RemoveJournal()
			}
		}()
		switch {
		case errors.Is(err, search.ErrCorrupt):
			if serr := store.SetAside(); serr != nil {
				return nil, e.indexError(serr)
			}
			e.warn("the search index was damaged (" + strings.TrimPrefix(err.Error(), search.ErrCorrupt.Error()+": ") +
				"); it was set aside as " + filepath.Join(e.indexRel(), "index.corrupt") + " in the state directory and built again: documents added with the index tool must be indexed again")
			x = search.NewIndexWith(params)
		case err != nil:
			return nil, e.indexError(err)
		case x == nil:
			x = search.NewIndexWith(params)
		default:
			x.Reparam(params)
			if journal != nil {
				for _, d := range journal.Docs {
					x.Add(d)
				}
			}
		}
	}
	before := append([]string(nil), x.AutoPaths...)
	hadAuto := x.AutoPaths != nil
	if (!slices.Equal(x.AutoPaths, e.o.AutoPaths) || x.AutoPaths == nil && len(e.o.AutoPaths) > 0) && !refresh {
		e.autoIndex(ctx, x, nil)
	}
	fn(x)
	data := x.Encode()
	if dim >= 0 {
		if err := e.syncVectors(ctx, x, data, e.vectorFile(), dim); err != nil {
			return nil, err
		}
	}
	unchanged := x.Changes() == 0 && hadAuto == (x.AutoPaths != nil) && slices.Equal(before, x.AutoPaths)
	if e.o.StateDir == "" || unchanged {
		saved = e.o.StateDir != ""
		return data, nil
	}
	if err := store.Save(data); err != nil {
		return nil, e.indexError(err)
	}
	saved = true
	return data, nil
}
