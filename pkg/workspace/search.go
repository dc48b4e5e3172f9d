package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/glob"
	"github.com/wstools/ws/pkg/grep"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/media"
	"github.com/wstools/ws/pkg/search"
	"golang.org/x/sys/unix"
)

// SearchHit is one document found by search.
type SearchHit struct {
	ID        string            `json:"id"`
	Content   Bytes             `json:"content"` // {"bytes": base64} when not UTF-8
	Score     float64           `json:"score"`
	LineRange *search.LineRange `json:"line_range,omitempty"`
	// SourceFile is the file a chunk of a long file came from.
	SourceFile string `json:"source_file,omitempty"`
	// Metadata is what the index call stored with the document.
	Metadata json.RawMessage `json:"metadata,omitempty"`
	// ScoreDetails are the raw scores of each kind of search that found
	// the document (Mastra's scoreDetails).
	ScoreDetails search.ScoreDetails `json:"score_details"`
}

// SearchResult is the outcome of search.
type SearchResult struct {
	Mode    string      `json:"mode"`
	Results []SearchHit `json:"results"`
	textOut
}

// IndexResult is the outcome of index.
type IndexResult struct {
	Path      string `json:"path"`
	Documents int    `json:"documents"` // documents in the index afterwards
	textOut
}

// RefreshIndexRequest is the input of `ws index --auto` (a ws command,
// not a Mastra tool).
type RefreshIndexRequest struct{}

// RefreshIndexResult says what a refresh of the autoIndexPaths did.
type RefreshIndexResult struct {
	Files     int      `json:"files"`     // files indexed from the autoIndexPaths
	Added     []string `json:"added"`     // files new to the index
	Changed   []string `json:"changed"`   // files read again
	Removed   []string `json:"removed"`   // files dropped
	Documents int      `json:"documents"` // documents in the index afterwards
	textOut
}

// Warnings that do not fail a call (a skill skipped, a damaged index
// rebuilt) go to a sink that cmd sets; tools never print.
// warn reports a problem that does not fail the call (Options.Warn).
func (w *Workspace) warn(msg string) {
	if w.warnf != nil {
		w.warnf(msg)
	}
}

// searchLockTimeout bounds the wait for another process changing the index.
const searchLockTimeout = 30 * time.Second

func (w *Workspace) searchStore() search.Store {
	return search.Store{Dir: filepath.Join(w.stateDir, "search")}
}

// Search ranks the indexed documents: by keywords (BM25), by meaning
// (vector: cosine similarity of embeddings) or both (hybrid), in the mode
// Mastra's rules pick (search.EffectiveMode). Asking for vector or hybrid
// with no embedder configured is an error (SPEC 16a), not Mastra's silent
// fallback. Files indexed from disk that changed since are read again
// first, and deleted ones dropped (SPEC 16b).
func (w *Workspace) Search(ctx context.Context, req SearchRequest) (*SearchResult, error) {
	canVector := w.cfg.Embedder != nil
	switch req.Mode {
	case "", search.ModeBM25:
	case search.ModeVector, search.ModeHybrid:
		if !canVector {
			return nil, errs.NeedsEmbedder(req.Mode)
		}
	default:
		return nil, errs.UnknownSearchMode(req.Mode)
	}
	mode := search.EffectiveMode(req.Mode, w.cfg.BM25, canVector)
	if mode == search.ModeBM25 && !w.cfg.BM25 {
		return nil, errs.NeedsBM25()
	}
	topK, minScore := 5.0, 0.0
	if req.TopK != nil {
		topK = *req.TopK
	}
	if req.MinScore != nil {
		minScore = *req.MinScore
	}
	r, done, err := w.openSearchIndex(ctx, mode != search.ModeBM25)
	if err != nil {
		return nil, err
	}
	defer done()
	var hits []search.Scored
	if r != nil {
		switch mode {
		case search.ModeBM25:
			for _, h := range r.Search(req.Query, topK, minScore) {
				s := h.Score
				hits = append(hits, search.Scored{Hit: h, Details: search.ScoreDetails{BM25: &s}})
			}
		case search.ModeVector:
			hits, err = w.vectorSearch(ctx, r, req.Query, topK, req.MinScore)
		default:
			k := search.HybridTopK(topK)
			var vec []search.Scored
			vec, err = w.vectorSearch(ctx, r, req.Query, k, nil)
			plain := make([]search.Hit, len(vec))
			for i, v := range vec {
				plain[i] = v.Hit
			}
			hits = search.Merge(plain, r.Search(req.Query, k, 0), 0.5, topK, req.MinScore)
		}
		if err != nil {
			return nil, err
		}
		// Mastra's Workspace.search takes topK again of what the engine
		// returned: a negative topK drops that many results twice.
		hits = hits[:search.SliceEnd(len(hits), topK)]
	}
	plain := make([]search.Hit, len(hits))
	res := &SearchResult{Mode: mode, Results: make([]SearchHit, len(hits))}
	for i, h := range hits {
		plain[i] = h.Hit
		res.Results[i] = SearchHit{ID: h.ID, Content: Bytes(h.Content), Score: h.Score, LineRange: h.Range,
			SourceFile: h.SourceFile, ScoreDetails: h.Details}
		if len(h.Meta) > 0 {
			res.Results[i].Metadata = h.Meta
		}
	}
	res.text = search.FormatResults(plain, mode)
	return res, nil
}

// Index adds a document to the index, or replaces the one with the same
// id. The index lives in the state directory, so later calls see it.
// With Auto (ws index --auto) it walks the autoIndexPaths again instead.
func (w *Workspace) Index(ctx context.Context, req IndexRequest) (Result, error) {
	if req.Auto {
		return w.RefreshIndex(ctx, RefreshIndexRequest{})
	}
	var n int
	err := w.changeIndex(ctx, w.cfg.Embedder != nil, func(x *search.Index) error {
		x.Add(search.Doc{ID: req.Path, Content: req.Content, Source: -1, Meta: req.Metadata})
		n = x.Len()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &IndexResult{Path: req.Path, Documents: n, textOut: textOut{"Indexed " + req.Path}}, nil
}

// RefreshIndex walks the autoIndexPaths again: new files are indexed,
// changed ones read again, files that are gone or no longer match dropped.
func (w *Workspace) RefreshIndex(ctx context.Context, _ RefreshIndexRequest) (*RefreshIndexResult, error) {
	res := &RefreshIndexResult{Added: []string{}, Changed: []string{}, Removed: []string{}}
	var data []byte
	err := w.changeIndexData(ctx, true, w.cfg.Embedder != nil, func(x *search.Index) error {
		w.autoIndex(ctx, x, res)
		res.Documents = x.Len()
		return nil
	}, &data)
	if err != nil {
		return nil, err
	}
	res.text = fmt.Sprintf("Indexed %d %s from autoIndexPaths (%d new, %d changed, %d removed); %d %s in the index",
		res.Files, pluralWord(res.Files, "file", "files"), len(res.Added), len(res.Changed), len(res.Removed),
		res.Documents, pluralWord(res.Documents, "document", "documents"))
	return res, nil
}

// openSearchIndex returns the index to query, brought up to date first:
// the autoIndexPaths indexed if the index lacks them, changed files read
// again and deleted ones dropped; with vectors, the vector store brought
// in line with it too. A nil reader is an empty index.
func (w *Workspace) openSearchIndex(ctx context.Context, vectors bool) (*search.Reader, func(), error) {
	nop := func() {}
	params := w.cfg.BM25Params
	if w.stateDir == "" {
		if vectors {
			return nil, nop, errs.NoVectorState()
		}
		x := search.NewIndexWith(params)
		w.autoIndex(ctx, x, nil)
		r, err := search.Open(x.Encode())
		if err != nil {
			return nil, nop, errs.Wrap(err)
		}
		r.Built(params)
		return r, nop, nil
	}
	store := w.searchStore()
	m, err := store.Load()
	if err == nil && m != nil && !m.Built(params) {
		// Built with other bm25 settings: tokenized again below.
		m.Close()
		m, err = nil, errIndexChange
	}
	if err == nil && !w.autoPathsCurrent(m) {
		m.Close()
		m, err = nil, errIndexChange
	}
	var stale []string
	if err == nil && m != nil {
		stale = w.staleSources(ctx, m.Reader)
		if len(stale) == 0 && (!vectors || w.vectorsCurrent(m.Reader)) {
			return m.Reader, func() { m.Close() }, nil
		}
		m.Close()
		err = errIndexChange
	}
	if err == nil && m == nil && len(w.cfg.AutoIndexPaths) == 0 {
		return nil, nop, nil
	}
	if err != nil && !errors.Is(err, errIndexChange) && !errors.Is(err, search.ErrCorrupt) {
		return nil, nop, w.indexError(err)
	}
	// Something to change: do it under the lock, on what is there now.
	var data []byte
	err = w.changeIndexData(ctx, false, vectors, func(x *search.Index) error {
		w.refreshStale(ctx, x, stale)
		return nil
	}, &data)
	if err != nil {
		return nil, nop, err
	}
	r, err := search.Open(data)
	if err != nil {
		return nil, nop, w.indexError(err)
	}
	r.Built(params)
	return r, nop, nil
}

var errIndexChange = errors.New("index needs a change")

// autoPathsCurrent reports whether the index was built from the
// autoIndexPaths the config has now (no index counts as current when there
// are none).
func (w *Workspace) autoPathsCurrent(m *search.Mapped) bool {
	want := w.cfg.AutoIndexPaths
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

func (w *Workspace) indexError(err error) error {
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
	return stateError(err)
}

func (w *Workspace) changeIndex(ctx context.Context, vectors bool, change func(*search.Index) error) error {
	var data []byte
	return w.changeIndexData(ctx, false, vectors, change, &data)
}

// changeIndexData is the read-modify-write of the index: under the store's
// lock it loads the index (a damaged one is set aside and rebuilt, with a
// warning), indexes the autoIndexPaths if the index lacks them, applies
// change and saves the result atomically. The new file's bytes are left in
// *data. With refresh, change walks the autoIndexPaths itself. With
// vectors, the documents are embedded (those whose content the vector
// store does not hold yet) before anything is saved, so an embedder that
// fails leaves the index as it was.
func (w *Workspace) changeIndexData(ctx context.Context, refresh, vectors bool, change func(*search.Index) error, data *[]byte) error {
	var store search.Store
	var x *search.Index
	params := w.cfg.BM25Params
	if w.stateDir == "" {
		x = search.NewIndexWith(params)
	} else {
		store = w.searchStore()
		lock, err := store.Lock(searchLockTimeout)
		if err != nil {
			return w.indexError(err)
		}
		defer lock.Release()
		m, err := store.Load()
		switch {
		case errors.Is(err, search.ErrCorrupt):
			if serr := store.SetAside(); serr != nil {
				return w.indexError(serr)
			}
			w.warn("the search index was damaged (" + strings.TrimPrefix(err.Error(), search.ErrCorrupt.Error()+": ") +
				"); it was set aside as search/index.corrupt in the state directory and built again: documents added with the index tool must be indexed again")
			x = search.NewIndexWith(params)
		case err != nil:
			return w.indexError(err)
		case m == nil:
			x = search.NewIndexWith(params)
		default:
			x, err = search.Decode(m.Bytes())
			m.Close()
			if err != nil {
				return w.indexError(err)
			}
			x.Reparam(params)
		}
	}
	before := append([]string(nil), x.AutoPaths...)
	hadAuto := x.AutoPaths != nil
	if (!slices.Equal(x.AutoPaths, w.cfg.AutoIndexPaths) || x.AutoPaths == nil && len(w.cfg.AutoIndexPaths) > 0) && !refresh {
		w.autoIndex(ctx, x, nil)
	}
	if err := change(x); err != nil {
		return err
	}
	*data = x.Encode()
	if vectors {
		if err := w.syncVectors(ctx, x, *data); err != nil {
			return err
		}
	}
	unchanged := x.Changes() == 0 && hadAuto == (x.AutoPaths != nil) && slices.Equal(before, x.AutoPaths)
	if w.stateDir == "" || unchanged {
		return nil
	}
	if err := store.Save(*data); err != nil {
		return w.indexError(err)
	}
	return nil
}

// autoFile is a file the autoIndexPaths name.
type autoFile struct {
	id  string // the document id: the path as the pattern spells it
	loc fsroot.Loc
}

// autoIndex brings the documents read from disk in line with the
// autoIndexPaths: files that no longer match are dropped; new files, and
// files whose size or mtime changed, are (re)indexed in walk order. Like
// Mastra, a file of more than 4000 characters becomes line-based chunks.
func (w *Workspace) autoIndex(ctx context.Context, x *search.Index, res *RefreshIndexResult) {
	files := w.resolveAutoPaths(ctx)
	want := map[string]bool{}
	for _, f := range files {
		want[f.id] = true
	}
	for _, s := range append([]search.Source(nil), x.Sources...) {
		if !want[s.Path] {
			x.RemoveSource(s.Path)
			if res != nil {
				res.Removed = append(res.Removed, s.Path)
			}
		}
	}
	known := map[string]search.Source{}
	for _, s := range x.Sources {
		known[s.Path] = s
	}
	live := map[string]bool{}
	for _, d := range x.Docs() {
		if d.Source >= 0 {
			live[x.Sources[d.Source].Path] = true
		}
	}
	indexed := 0
	for _, f := range files {
		if ctx.Err() != nil {
			break
		}
		st, err := w.fs.Stat(f.loc)
		if err != nil {
			continue
		}
		old, had := known[f.id]
		if had && live[f.id] && old.Size == st.Size && old.MtimeNS == st.MtimeNS {
			indexed++
			continue
		}
		if w.indexFile(x, f) {
			indexed++
			if res != nil {
				if had && live[f.id] {
					res.Changed = append(res.Changed, f.id)
				} else {
					res.Added = append(res.Added, f.id)
				}
			}
		}
	}
	if res != nil {
		res.Files = indexed
	}
	x.AutoPaths = append([]string{}, w.cfg.AutoIndexPaths...)
}

// indexFile reads one file and indexes it (as chunks when long), replacing
// what was indexed from it before. Binary files are left out. It reports
// whether the file was indexed.
func (w *Workspace) indexFile(x *search.Index, f autoFile) bool {
	fd, err := w.fs.Open(f.loc, unix.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		x.RemoveSource(f.id)
		return false
	}
	file := os.NewFile(uintptr(fd), f.id)
	defer file.Close()
	st, err := fsroot.Fstat(fd)
	if err != nil || !st.Mode.IsRegular() {
		x.RemoveSource(f.id)
		return false
	}
	data, err := io.ReadAll(io.LimitReader(file, 256<<20))
	if err != nil {
		x.RemoveSource(f.id)
		return false
	}
	x.RemoveSource(f.id)
	if grep.IsBinary(path.Base(f.id), data[:min(len(data), media.SniffLen)]) {
		return false
	}
	src := x.AddSource(search.Source{Path: f.id, MtimeNS: st.MtimeNS, Size: st.Size})
	content := string(data) // as it is: the text shown decodes it, --json data keeps the bytes
	chunks := search.SplitIntoChunks(content)
	if len(chunks) == 1 {
		x.Add(search.Doc{ID: f.id, Content: content, Source: src})
		return true
	}
	for i, c := range chunks {
		x.Add(search.Doc{ID: fmt.Sprintf("%s#chunk-%d", f.id, i), Content: c.Content, Source: src, StartLine: c.StartLine})
	}
	return true
}

// resolveAutoPaths lists the files the autoIndexPaths name, in Mastra's
// order: for each pattern, the files it matches directly, then the files
// below the directories it matches (ten levels deep, symlinked directories
// not entered); a file named twice is listed once. Patterns that name
// nothing, or what the workspace refuses, are skipped.
func (w *Workspace) resolveAutoPaths(ctx context.Context) []autoFile {
	var out []autoFile
	seen := map[string]bool{}
	add := func(f autoFile) {
		if !seen[f.id] {
			seen[f.id] = true
			out = append(out, f)
		}
	}
	for _, p := range w.cfg.AutoIndexPaths {
		if ctx.Err() != nil {
			break
		}
		if len(p) > 1 && strings.HasSuffix(p, "/") {
			p = p[:len(p)-1]
		}
		if !glob.Has(p) {
			t, err := w.fs.Resolve(p)
			if err != nil {
				continue
			}
			st, err := w.fs.Stat(t.Loc())
			switch {
			case err != nil:
			case st.IsDir():
				w.allFiles(ctx, t.Loc(), p, add)
			default:
				add(autoFile{id: p, loc: t.Loc()})
			}
			continue
		}
		base := glob.Base(p)
		t, err := w.fs.Resolve(base)
		if err != nil {
			continue
		}
		var dirs []autoFile
		w.walkMatches(ctx, t.Loc(), base, p, func(f autoFile, isDir bool) {
			if !isDir {
				add(f)
				return
			}
			for _, d := range dirs {
				if f.id == d.id || strings.HasPrefix(f.id, d.id+"/") {
					return
				}
			}
			dirs = append(dirs, f)
		})
		for _, d := range dirs {
			w.allFiles(ctx, d.loc, d.id, add)
		}
	}
	return out
}

const autoIndexDepth = 10

// listDir reads a directory through the chokepoint, entries in byte order
// (as Node's readdir returns them).
// allFiles is Mastra's getAllFiles: every file below dir, depth first,
// down to autoIndexDepth levels (symlinked directories not entered).
func (w *Workspace) allFiles(ctx context.Context, l fsroot.Loc, id string, add func(autoFile)) {
	opts := fsroot.WalkOptions{Hidden: true, Links: true, MaxDepth: autoIndexDepth}
	_, _ = w.fs.Walk(ctx, l, id, opts, nil, func(e *fsroot.WalkEntry) (bool, any) {
		if !e.IsDir {
			add(autoFile{id: e.Rel(), loc: e.Loc()})
		}
		return true, nil
	})
}

// walkMatches is Mastra's walkAll with the glob filter: every entry below
// dir whose path matches the pattern (dot files only when it names them).
func (w *Workspace) walkMatches(ctx context.Context, l fsroot.Loc, id, pattern string, found func(autoFile, bool)) {
	opts := fsroot.WalkOptions{Hidden: true, Links: true, MaxDepth: autoIndexDepth}
	_, _ = w.fs.Walk(ctx, l, id, opts, nil, func(e *fsroot.WalkEntry) (bool, any) {
		if e.IsDir && e.IsLink {
			return false, nil
		}
		if glob.Match(pattern, e.Rel(), false) {
			found(autoFile{id: e.Rel(), loc: e.Loc()}, e.IsDir)
		}
		return true, nil
	})
}

// sourceLoc finds an indexed file again. Relative ids (the usual case) are
// opened beneath the root directly; anything else goes through Resolve.
func (w *Workspace) sourceLoc(id string) (fsroot.Loc, bool) {
	clean := path.Clean(strings.TrimPrefix(id, "./"))
	if !strings.HasPrefix(id, "/") && !strings.HasPrefix(id, "~") && clean != ".." && !strings.HasPrefix(clean, "../") && w.fs.Contained() {
		return w.fs.BelowBase(clean)
	}
	t, err := w.fs.Resolve(id)
	if err != nil {
		return fsroot.Loc{}, false
	}
	return t.Loc(), true
}

// staleSources lists the indexed files whose size or mtime changed, or
// that are gone. Files are checked with one fstatat(2) each, relative to
// their directory opened through the chokepoint (a symlink is followed
// through the chokepoint instead), by a few goroutines: ten thousand
// indexed files take a few milliseconds.
func (w *Workspace) staleSources(ctx context.Context, r *search.Reader) []string {
	n := r.NumSources()
	if n == 0 {
		return nil
	}
	srcs := make([]search.Source, n)
	for i := range srcs {
		srcs[i] = r.Source(i)
	}
	workers := min(n/256+1, max(2, runtime.GOMAXPROCS(0)))
	var mu sync.Mutex
	var stale []string
	var wg sync.WaitGroup
	per := (n + workers - 1) / workers
	for k := 0; k < n; k += per {
		part := srcs[k:min(n, k+per)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			var st statChecker
			defer st.close()
			for _, s := range part {
				if ctx.Err() != nil {
					return
				}
				if !w.sourceFresh(&st, s) {
					mu.Lock()
					stale = append(stale, s.Path)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil
	}
	return stale
}

// statChecker keeps the directory of the last file checked open.
type statChecker struct {
	dir string
	fd  int
	ok  bool
}

func (c *statChecker) close() {
	if c.ok {
		unix.Close(c.fd)
		c.ok = false
	}
}

// sourceFresh reports whether an indexed file still has the size and
// mtime it was indexed with.
func (w *Workspace) sourceFresh(c *statChecker, s search.Source) bool {
	l, ok := w.sourceLoc(s.Path)
	if !ok {
		return false
	}
	if l.InRoot() && l.Sub() != "." {
		dl, name := l.Parent()
		dir := dl.Sub()
		if !c.ok || c.dir != dir {
			c.close()
			if fd, err := w.fs.Open(dl, unix.O_PATH|unix.O_DIRECTORY, 0); err == nil {
				c.dir, c.fd, c.ok = dir, fd, true
			}
		}
		if c.ok && c.dir == dir {
			var st unix.Stat_t
			if err := unix.Fstatat(c.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				return false
			}
			if st.Mode&unix.S_IFMT != unix.S_IFLNK {
				return st.Size == s.Size && st.Mtim.Nano() == s.MtimeNS
			}
		}
	}
	st, err := w.fs.Stat(l)
	return err == nil && st.Size == s.Size && st.MtimeNS == s.MtimeNS
}

// refreshStale reads again the indexed files among paths that changed
// and drops the ones that are gone (SPEC 16b). It checks each again: the
// index may have been brought up to date by another process meanwhile.
func (w *Workspace) refreshStale(ctx context.Context, x *search.Index, paths []string) {
	check := map[string]bool{}
	for _, p := range paths {
		check[p] = true
	}
	for _, s := range append([]search.Source(nil), x.Sources...) {
		if ctx.Err() != nil {
			return
		}
		if !check[s.Path] {
			continue
		}
		l, ok := w.sourceLoc(s.Path)
		if !ok {
			x.RemoveSource(s.Path)
			continue
		}
		st, err := w.fs.Stat(l)
		if err != nil {
			x.RemoveSource(s.Path)
			continue
		}
		if st.Size != s.Size || st.MtimeNS != s.MtimeNS {
			w.indexFile(x, autoFile{id: s.Path, loc: l})
		}
	}
}
