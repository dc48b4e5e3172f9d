package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/wording"
	"github.com/wstools/ws/pkg/schema"
	"github.com/wstools/ws/pkg/search"
	"github.com/wstools/ws/pkg/search/engine"
)

// SearchHit is one document found by search.
type SearchHit struct {
	ID        Bytes             `json:"id"`      // {"bytes": base64} when not UTF-8
	Content   Bytes             `json:"content"` // {"bytes": base64} when not UTF-8
	Score     float64           `json:"score"`
	LineRange *search.LineRange `json:"line_range,omitempty"`
	// SourceFile is the file a chunk of a long file came from.
	SourceFile Bytes `json:"source_file,omitempty"`
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
	Path      Bytes `json:"path"`      // {"bytes": base64} when not UTF-8
	Documents int   `json:"documents"` // documents in the index afterwards
	textOut
}

// RefreshIndexRequest is the input of `ws index --auto` (a ws command,
// not a Mastra tool).
type RefreshIndexRequest struct{}

// RefreshIndexResult says what a refresh of the autoIndexPaths did.
type RefreshIndexResult struct {
	// The files' names are {"bytes": base64} when not UTF-8.
	Files   int     `json:"files"`   // files indexed from the autoIndexPaths
	Added   []Bytes `json:"added"`   // files new to the index
	Changed []Bytes `json:"changed"` // files read again
	Removed []Bytes `json:"removed"` // files dropped
	// Files and patterns of the autoIndexPaths not indexed (or indexed
	// only in part), and why: binary, unreadable, matching nothing.
	Skipped   []SkippedPath `json:"skipped"`
	Documents int           `json:"documents"` // documents in the index afterwards
	textOut
}

// maxSkipsShown is how many skipped paths the text lists; --json data
// has them all.
const maxSkipsShown = 20

// Warnings that do not fail a call (a skill skipped, a damaged index
// rebuilt) go to a sink that cmd sets; tools never print.
// warn reports a problem that does not fail the call (Options.Warn).
func (w *Workspace) warn(msg string) {
	if w.warnf != nil {
		w.warnf(msg)
	}
}

// searchEngine is the search index engine over the workspace's files,
// state directory and config as they are now.
func (w *Workspace) searchEngine() *engine.Engine {
	return engine.New(engine.Options{Files: w.fs, StateDir: w.stateDir, IndexDir: w.indexDir(), Params: w.cfg.BM25Params,
		AutoPaths: w.cfg.AutoIndexPaths, VectorName: w.IndexName(), Embedder: w.cfg.Embedder,
		NewEmbedder: engine.ConfiguredEmbedder(w.cfg.Embedder, w.base, w.hostEnv), Warn: w.warn})
}

// indexDir is where, below the state directory, this workspace's search
// index lives: "" (search/) when the state directory is its own, else,
// when its workspace.json names another root (one state directory given
// to several workspaces), search/roots/<16 hex of the SHA-256 of the real
// root>. So one workspace's search never drops another's documents as
// gone, nor shows them.
func (w *Workspace) indexDir() string {
	if owner := w.stateRoot(); owner == "" || owner == w.fs.RealBase() {
		return ""
	}
	return filepath.Join("search", "roots", hashHex(w.fs.RealBase(), 16))
}

// offerSearchModes offers only the search modes this workspace can run,
// as Mastra's schema does: bm25 with bm25 on, vector with an embedder,
// hybrid with both. A call naming another is still taken, and refused
// with the reason (Search).
func (w *Workspace) offerSearchModes(p schema.Params) schema.Params {
	var modes []string
	if w.cfg.BM25 {
		modes = append(modes, search.ModeBM25)
	}
	if w.cfg.Embedder != nil {
		modes = append(modes, search.ModeVector)
		if w.cfg.BM25 {
			modes = append(modes, search.ModeHybrid)
		}
	}
	return p.WithEnum("mode", modes)
}

// Search ranks the indexed documents: by keywords (BM25), by meaning
// (vector: cosine similarity of embeddings) or both (hybrid), in the mode
// Mastra's rules pick (search.EffectiveMode). Asking for vector or hybrid
// with no embedder configured, or hybrid without bm25, is an error (SPEC
// 16a), not Mastra's silent fallback. Files indexed from disk that changed since are read again
// first, and deleted ones dropped (SPEC 16b).
func (w *Workspace) Search(ctx context.Context, req SearchRequest) (*SearchResult, error) {
	canVector := w.cfg.Embedder != nil
	param := dialectOf(ctx).param("mode", "mode")
	switch req.Mode {
	case "", search.ModeBM25:
	case search.ModeVector, search.ModeHybrid:
		if !canVector {
			return nil, errs.NeedsEmbedderAs(req.Mode, param)
		}
		if req.Mode == search.ModeHybrid && !w.cfg.BM25 {
			// Mastra quietly runs a vector search then.
			return nil, errs.NeedsBM25(req.Mode, param)
		}
	default:
		return nil, errs.UnknownSearchMode(req.Mode)
	}
	mode := search.EffectiveMode(req.Mode, w.cfg.BM25, canVector)
	if mode == search.ModeBM25 && !w.cfg.BM25 {
		return nil, errs.NeedsBM25(search.ModeBM25, param)
	}
	topK := 5.0
	if req.TopK != nil {
		topK = *req.TopK
	}
	hits, err := w.searchEngine().Search(ctx, req.Query, mode, topK, req.MinScore)
	if err != nil {
		return nil, err
	}
	plain := make([]search.Hit, len(hits))
	res := &SearchResult{Mode: mode, Results: make([]SearchHit, len(hits))}
	for i, h := range hits {
		plain[i] = h.Hit
		res.Results[i] = SearchHit{ID: Bytes(h.ID), Content: Bytes(h.Content), Score: h.Score, LineRange: h.Range,
			SourceFile: Bytes(h.SourceFile), ScoreDetails: h.Details}
		if len(h.Meta) > 0 {
			res.Results[i].Metadata = validUTF8(h.Meta)
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
	n, err := w.searchEngine().Add(ctx, search.Doc{ID: req.Path, Content: req.Content, Source: -1, Meta: validUTF8(req.Metadata)})
	if err != nil {
		return nil, err
	}
	return &IndexResult{Path: Bytes(req.Path), Documents: n, textOut: textOut{"Indexed " + req.Path}}, nil
}

// validUTF8 is metadata (a JSON object) with every byte sequence that is
// not UTF-8 replaced by U+FFFD, as Mastra's JSON.parse reads it: the bytes
// can only be inside its strings, so the JSON stays valid, and --json
// output stays UTF-8 (an index written before this kept the bytes).
func validUTF8(meta []byte) []byte {
	if utf8.Valid(meta) {
		return meta
	}
	return []byte(strings.ToValidUTF8(string(meta), "\uFFFD"))
}

// RefreshIndex walks the autoIndexPaths again: new files are indexed,
// changed ones read again, files that are gone or no longer match dropped.
func (w *Workspace) RefreshIndex(ctx context.Context, _ RefreshIndexRequest) (*RefreshIndexResult, error) {
	r, err := w.searchEngine().Refresh(ctx)
	if err != nil {
		return nil, err
	}
	res := &RefreshIndexResult{Files: r.Files, Added: bytesOf(r.Added), Changed: bytesOf(r.Changed), Removed: bytesOf(r.Removed), Documents: r.Documents}
	res.text = fmt.Sprintf("Indexed %d %s from autoIndexPaths (%d new, %d changed, %d removed); %d %s in the index",
		res.Files, wording.Plural(res.Files, "file", "files"), len(res.Added), len(res.Changed), len(res.Removed),
		res.Documents, wording.Plural(res.Documents, "document", "documents"))
	if len(w.cfg.AutoIndexPaths) == 0 {
		res.text += ` (the config sets no autoIndexPaths, so there was nothing to walk: "autoIndexPaths": ["docs"] indexes a tree)`
	}
	res.Skipped = make([]SkippedPath, len(r.Skipped))
	var b strings.Builder
	for i, sk := range r.Skipped {
		res.Skipped[i] = SkippedPath{Path: Bytes(sk.Path), Reason: sk.Reason}
		if i < maxSkipsShown {
			fmt.Fprintf(&b, "\n  %s: %s", wording.Name(sk.Path), sk.Reason)
		}
	}
	if n := len(r.Skipped); n > 0 {
		res.text += fmt.Sprintf("\nSkipped %d:%s", n, b.String())
		if n > maxSkipsShown {
			res.text += fmt.Sprintf("\n  and %d more", n-maxSkipsShown)
		}
	}
	return res, nil
}
