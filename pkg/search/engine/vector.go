package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/embed"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/runner"
	"github.com/wstools/ws/pkg/search"
)

// ConfiguredEmbedder returns the maker of the embedder e describes (nil:
// none, which it reports as needing one): a command run in dir with the
// environment env, else an HTTP endpoint. The API key is read from the
// environment variable the config names, at each use; it is never kept.
func ConfiguredEmbedder(e *config.Embedder, dir string, env []string) func() (embed.Embedder, error) {
	return func() (embed.Embedder, error) {
		if e == nil {
			return nil, errs.NeedsEmbedder(search.ModeVector)
		}
		timeout := time.Duration(e.TimeoutMs) * time.Millisecond
		if e.Command != nil {
			return &embed.Command{Argv: e.Command, Name: e.Model, Dir: dir, Env: env, Batch: e.MaxBatchSize, Timeout: timeout}, nil
		}
		key := ""
		if e.APIKeyEnv != "" {
			key = envValue(env, e.APIKeyEnv)
			if key == "" {
				return nil, errs.EmbedderKeyMissing(e.APIKeyEnv)
			}
		}
		retries := embed.DefaultMaxRetries
		if e.MaxRetries != nil {
			retries = *e.MaxRetries
		}
		return &embed.HTTP{URL: e.URL, Name: e.Model, Key: key, Dims: e.Dimensions, Batch: e.MaxBatchSize,
			Timeout: timeout, Retries: retries, Backoff: embed.DefaultBackoff}, nil
	}
}

// envValue is a variable of an environment list ("" when unset).
func envValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}

// embedder makes the configured embedder.
func (e *Engine) embedder() (embed.Embedder, error) {
	if e.o.NewEmbedder == nil {
		return nil, errs.NeedsEmbedder(search.ModeVector)
	}
	return e.o.NewEmbedder()
}

// vectorFile is the embedded vector store, next to the keyword index.
func (e *Engine) vectorFile() string {
	return filepath.Join(e.indexDir(), e.o.VectorName+".vectors")
}

// embedderModel is the model the configured embedder's vectors are
// recorded under.
func (e *Engine) embedderModel() string {
	c := e.o.Embedder
	if c.Model != "" {
		return c.Model
	}
	return strings.Join(c.Command, " ")
}

// vectorsCurrent reports whether the vector store holds the vectors of
// this index's documents, made by the configured model.
func (e *Engine) vectorsCurrent(r *search.Reader) bool {
	m, err := search.ReadVectorMeta(e.vectorFile())
	return err == nil && m.Synced == r.Fingerprint() && m.Model == e.embedderModel()
}

// syncVectors brings the vector store at file in line with the index x
// (whose file's bytes are data): each document with content gets a
// vector, taken from the store when it holds one made from the same
// content by the same model, else embedded (each distinct content once).
// A change of model or of dimension embeds everything again: dim, when
// not 0, is the dimension the embedder gives now (a query's vector had
// it), and a store of vectors of another dimension is embedded again even
// when it is current. A damaged store is rebuilt.
func (e *Engine) syncVectors(ctx context.Context, x *search.Index, data []byte, file string, dim int) error {
	r, err := search.Open(data)
	if err != nil {
		return e.indexError(err)
	}
	fp := r.Fingerprint()
	emb, err := e.embedder()
	if err != nil {
		return err
	}
	store, err := search.OpenVectors(file)
	if err != nil {
		if !errors.Is(err, search.ErrCorrupt) {
			return e.indexError(err)
		}
		e.warn("the vector store was damaged (" + strings.TrimPrefix(err.Error(), search.ErrCorrupt.Error()+": ") + "); every document is embedded again")
		store = &search.VectorFile{Path: file}
	}
	defer store.Close()
	old := store.Meta()
	model := e.embedderModel()
	sameDim := dim == 0 || old.Count == 0 || old.Dim == dim
	if old.Synced == fp && old.Model == model && sameDim {
		return nil
	}
	reuse := old.Model == model && sameDim && store.Verify() == nil
	for attempt := 0; ; attempt++ {
		records, err := e.vectorRecords(ctx, emb, x, store, reuse)
		var dimErr *dimChange
		if errors.As(err, &dimErr) && attempt == 0 {
			reuse = false // the model changed under its name: embed all again
			continue
		}
		if err != nil {
			return err
		}
		dim := 0
		if len(records) > 0 {
			dim = len(records[0].Vector)
		}
		if err := store.Replace(search.VectorMeta{Model: model, Dim: dim, Synced: fp}, records); err != nil {
			return e.indexError(err)
		}
		return nil
	}
}

// dimChange: the embedder's vectors no longer have the stored dimension
// (another model, or the model behind the same name changed).
type dimChange struct{ old, new int }

func (e *dimChange) Error() string {
	return fmt.Sprintf("dimension changed from %d to %d", e.old, e.new)
}

// vectorRecords makes the records of x's documents, in index order.
func (e *Engine) vectorRecords(ctx context.Context, emb embed.Embedder, x *search.Index, store search.VectorStore, reuse bool) ([]search.VectorRecord, error) {
	docs := x.Docs()
	records := make([]search.VectorRecord, 0, len(docs))
	var texts []string
	pending := map[search.Hash]int{} // content → its place in texts
	var slot []int                   // per record: its place in texts, or -1
	reused := 0
	for i, d := range docs {
		if d.Content == "" {
			continue // nothing to embed, and nothing a query could be similar to
		}
		h := search.HashContent(d.Content)
		rec := search.VectorRecord{VectorEntry: search.VectorEntry{ID: d.ID, Hash: h}, Ref: i}
		at := -1
		if vec, ok := store.Lookup(h); ok && reuse {
			rec.Vector = vec
			reused++
		} else if j, ok := pending[h]; ok {
			at = j
		} else {
			at = len(texts)
			pending[h] = at
			texts = append(texts, d.Content)
		}
		records = append(records, rec)
		slot = append(slot, at)
	}
	if len(texts) == 0 {
		return records, nil
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return nil, embedError(err)
	}
	if reused > 0 && len(vecs[0]) != store.Meta().Dim {
		return nil, &dimChange{store.Meta().Dim, len(vecs[0])}
	}
	if d := e.o.Embedder.Dimensions; d > 0 && len(vecs[0]) != d {
		return nil, errs.Embedder(&embed.Error{Endpoint: emb.Endpoint(),
			Msg: fmt.Sprintf("returned vectors of %d dimensions, the config says %d", len(vecs[0]), d)})
	}
	for i := range records {
		if slot[i] >= 0 {
			records[i].Vector = vecs[slot[i]]
		}
	}
	return records, nil
}

// dimError is err, a query vector's dimension that is still not the
// store's after the documents were embedded again (an embedder whose
// dimension changes from call to call), as a tool error.
func (e *Engine) dimError(err error) error {
	var dc *dimChange
	if !errors.As(err, &dc) {
		return err
	}
	endpoint := e.embedderModel()
	if emb, eerr := e.embedder(); eerr == nil {
		endpoint = emb.Endpoint()
	}
	return errs.Embedder(&embed.Error{Endpoint: endpoint,
		Msg: fmt.Sprintf("returned a query vector of %d dimensions, and vectors of %d for the documents embedded again just before", dc.new, dc.old)})
}

// embedError is an embedder failure as a tool error; ws's own stop
// signals and cancellations pass through.
func embedError(err error) error {
	var sig *runner.SignalError
	if errors.As(err, &sig) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return errs.Embedder(err)
}

// vectorSearch embeds the query and ranks the documents of r by cosine
// similarity with the vectors of the store at file: the best topK
// (JavaScript's slice rules), those below minScore (when set) left out,
// each found in the index for its content. A query vector whose dimension
// is not the store's is a *dimChange: the caller embeds the documents
// again (syncVectors with that dimension) and searches once more.
func (e *Engine) vectorSearch(ctx context.Context, r *search.Reader, file, query string, topK float64, minScore *float64) ([]search.Scored, error) {
	store, err := search.OpenVectors(file)
	if err != nil {
		return nil, e.indexError(err)
	}
	defer store.Close()
	meta := store.Meta()
	k := search.SliceEnd(meta.Count, topK)
	if meta.Count == 0 || k == 0 {
		return nil, nil
	}
	emb, err := e.embedder()
	if err != nil {
		return nil, err
	}
	vecs, err := emb.Embed(ctx, []string{query})
	if err != nil {
		return nil, embedError(err)
	}
	if d := e.o.Embedder.Dimensions; d > 0 && len(vecs[0]) != d {
		return nil, errs.Embedder(&embed.Error{Endpoint: emb.Endpoint(),
			Msg: fmt.Sprintf("returned a query vector of %d dimensions, the config says %d", len(vecs[0]), d)})
	}
	if len(vecs[0]) != meta.Dim {
		return nil, &dimChange{old: meta.Dim, new: len(vecs[0])}
	}
	matches, err := store.Query(vecs[0], k)
	if err != nil {
		return nil, e.indexError(err)
	}
	var out []search.Scored
	for _, m := range matches {
		if minScore != nil && m.Score < *minScore {
			continue
		}
		i, ok := r.FindDoc(m.ID, m.Ref)
		if !ok {
			continue
		}
		s := m.Score
		out = append(out, search.Scored{Hit: r.DocHit(i, query, m.Score), Details: search.ScoreDetails{Vector: &s}})
	}
	return out, nil
}

// skillVectorFile holds the vectors of the skills' documents (their
// instructions and references), apart from the workspace's index; the
// hyphen keeps it from any searchIndexName (an identifier).
func (e *Engine) skillVectorFile() string {
	return filepath.Join(e.o.StateDir, "search", "skill-documents.vectors")
}

// RankSkills ranks all the skills' documents (the index x, built with p)
// for query in mode, vector or hybrid, best first: their vectors are kept
// by content in a store of their own, so a skill is embedded again only
// when it changes.
func (e *Engine) RankSkills(ctx context.Context, x *search.Index, p search.Params, query, mode string) ([]search.Hit, error) {
	if e.o.StateDir == "" {
		return nil, errs.NoVectorState()
	}
	data := x.Encode()
	if err := e.syncVectors(ctx, x, data, e.skillVectorFile(), 0); err != nil {
		return nil, err
	}
	r, err := search.Open(data)
	if err != nil {
		return nil, e.indexError(err)
	}
	r.Built(p)
	all := math.Inf(1)
	vec, err := e.vectorSearch(ctx, r, e.skillVectorFile(), query, all, nil)
	var dc *dimChange
	if errors.As(err, &dc) {
		if err := e.syncVectors(ctx, x, data, e.skillVectorFile(), dc.new); err != nil {
			return nil, err
		}
		vec, err = e.vectorSearch(ctx, r, e.skillVectorFile(), query, all, nil)
	}
	if err != nil {
		return nil, e.dimError(err)
	}
	var ranked []search.Scored
	if mode == search.ModeHybrid {
		ranked = search.Merge(plainHits(vec), r.Search(query, all, 0), 0.5, all, nil)
	} else {
		ranked = vec
	}
	hits := make([]search.Hit, len(ranked))
	for i, s := range ranked {
		hits[i] = s.Hit
		hits[i].Score = s.Score
	}
	return hits, nil
}
