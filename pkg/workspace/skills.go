package workspace

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/search"
	"github.com/wstools/ws/pkg/skills"
	"golang.org/x/sys/unix"
)

// SkillResult is the outcome of skill: the skill's instructions and files.
type SkillResult struct {
	Skill    *skills.Skill `json:"skill"`
	Warnings []string      `json:"warnings,omitempty"`
	textOut
}

// SkillSearchResult is the outcome of skill_search.
type SkillSearchResult struct {
	// Mode is "bm25" when the workspace has search, else "substring".
	Mode     string       `json:"mode"`
	Results  []skills.Hit `json:"results"`
	Warnings []string     `json:"warnings,omitempty"`
	textOut
}

// SkillReadResult is the outcome of skill_read.
type SkillReadResult struct {
	Skill      Bytes    `json:"skill"` // the skill's path; {"bytes": base64} when not UTF-8
	Path       Bytes    `json:"path"`  // {"bytes": base64} when not UTF-8
	Kind       string   `json:"kind"`  // text, binary, past_end or empty_range
	Content    *string  `json:"content,omitempty"`
	Size       int      `json:"size"`
	StartLine  int      `json:"start_line,omitempty"`
	EndLine    int      `json:"end_line,omitempty"`
	TotalLines int      `json:"total_lines"`
	Warnings   []string `json:"warnings,omitempty"`
	textOut
}

// Skill activates a skill: its instructions and the lists of its
// references, scripts and assets.
func (w *Workspace) Skill(ctx context.Context, req SkillRequest) (*SkillResult, error) {
	set, sk, err := w.findSkill(req.Name)
	if err != nil {
		return nil, err
	}
	return &SkillResult{Skill: sk, Warnings: set.Warnings, textOut: textOut{skills.Activation(sk)}}, nil
}

// SkillSearch searches the skills' instructions and references. Unlike
// Mastra, skill documents have an index of their own: they never show up
// in the workspace's search, and workspace documents never in this one.
func (w *Workspace) SkillSearch(ctx context.Context, req SkillSearchRequest) (*SkillSearchResult, error) {
	set, err := w.discoverSkills()
	if err != nil {
		return nil, err
	}
	topK := 5.0
	if req.TopK != nil {
		topK = *req.TopK
	}
	var bm25 *search.Params
	if w.cfg.BM25 {
		bm25 = &w.cfg.BM25Params
	}
	mode := skills.ModeSubstring
	if w.cfg.BM25 {
		mode = skills.ModeBM25
	}
	var rank skills.Ranker
	if w.cfg.Embedder != nil {
		mode = search.EffectiveMode("", w.cfg.BM25, true)
		rank = func(x *search.Index, p search.Params, query string) ([]search.Hit, error) {
			return w.searchEngine().RankSkills(ctx, x, p, query, mode)
		}
	}
	hits, err := set.Search(req.Query, req.SkillNames, topK, bm25, rank)
	w.flushSkillWarnings(set)
	var we *errs.Error
	if errors.As(err, &we) {
		return nil, err // the embedder's, or the vector store's
	}
	if err != nil {
		return nil, errs.Coded(errs.NotUnique, err)
	}
	return &SkillSearchResult{Mode: mode, Results: hits, Warnings: set.Warnings, textOut: textOut{skills.FormatHits(hits)}}, nil
}

// SkillRead reads a file of a skill, whole or as a range of lines.
func (w *Workspace) SkillRead(ctx context.Context, req SkillReadRequest) (*SkillReadResult, error) {
	set, sk, err := w.findSkill(req.SkillName)
	if err != nil {
		return nil, err
	}
	out, err := set.Read(sk, req.SkillName, req.Path, req.StartLine, req.EndLine)
	var inv *skills.ErrInvalidPath
	var nf *skills.NotFoundInSkill
	var big *skills.TooLargeError
	var we *errs.Error
	switch {
	case errors.As(err, &we):
		return nil, err // the workspace's refusal, with its code
	case errors.As(err, &big):
		return nil, errs.At(errs.Coded(errs.FileTooLarge, err), req.Path)
	case errors.As(err, &inv):
		return nil, errs.At(errs.Coded(errs.OutsideWorkspace, err), req.Path)
	case errors.As(err, &nf):
		return nil, errs.At(errs.Coded(errs.ENOENT, err), req.Path)
	case err != nil:
		return nil, errs.Coded(errs.EIO, err)
	}
	if (out.Kind == skills.ReadPastEnd || out.Kind == skills.ReadEmpty) && dialectOf(ctx) == CLIFlags {
		// Mastra's text names the parameters; the subcommand's, its flags.
		out.Text = strings.NewReplacer("startLine", "--start-line", "endLine", "--end-line").Replace(out.Text)
	}
	res := &SkillReadResult{Skill: Bytes(sk.Path), Path: Bytes(req.Path), Kind: out.Kind, Size: out.Size,
		StartLine: out.StartLine, EndLine: out.EndLine, TotalLines: out.TotalLines, Warnings: set.Warnings, textOut: textOut{out.Text}}
	if out.Kind == skills.ReadText {
		c := out.Content
		res.Content = &c
	}
	return res, nil
}

// discoverSkills loads the configured skills, reporting what it skipped.
func (w *Workspace) discoverSkills() (*skills.Set, error) {
	if err := w.lacks(NeedSkills); err != nil {
		return nil, err
	}
	set := skills.Discover(skillFS{w}, w.cfg.Skills)
	w.flushSkillWarnings(set)
	return set, nil
}

// flushSkillWarnings reports the set's warnings not reported yet.
func (w *Workspace) flushSkillWarnings(set *skills.Set) {
	for _, m := range set.NewWarnings() {
		w.warn(m)
	}
}

// findSkill discovers the skills and resolves a name or path; a skill
// that is not there is Mastra's "not found" text, as a failure.
func (w *Workspace) findSkill(id string) (*skills.Set, *skills.Skill, error) {
	set, err := w.discoverSkills()
	if err != nil {
		return nil, nil, err
	}
	sk, err := set.Get(id)
	w.flushSkillWarnings(set)
	if err != nil {
		return nil, nil, errs.Coded(errs.NotUnique, err)
	}
	if sk == nil {
		return nil, nil, errs.At(errs.Coded(errs.ENOENT, errors.New(set.NotFound(id))), id)
	}
	return set, sk, nil
}

// skillFS gives skill discovery the workspace's filesystem, through the
// path chokepoint: a skill cannot reach outside the allowed roots.
type skillFS struct{ w *Workspace }

func (f skillFS) ReadDir(p string) ([]skills.Entry, error) {
	t, err := f.w.fs.Resolve(p)
	if err != nil {
		return nil, err
	}
	es, err := f.w.fs.ReadDir(t.Loc())
	if err != nil {
		return nil, errs.FromOS("readdir", p, err, true)
	}
	out := make([]skills.Entry, 0, len(es))
	for _, e := range es {
		out = append(out, skills.Entry{Name: e.Name, IsDir: e.IsDir, IsLink: e.IsLink})
	}
	return out, nil
}

// maxSkillFile bounds what one skill file read takes into memory.
const maxSkillFile = 64 << 20

func (f skillFS) ReadFile(p string) ([]byte, error) {
	_, file, _, err := f.w.openRead(p)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, maxSkillFile+1))
	if err == nil && len(data) > maxSkillFile {
		return nil, &skills.TooLargeError{Path: p, Limit: maxSkillFile}
	}
	return data, err
}

func (f skillFS) Exists(p string) (bool, error) {
	t, err := f.w.fs.Resolve(p)
	if err != nil {
		return false, err // refused: outside the roots, or a symlink leading out
	}
	_, err = f.w.fs.Stat(t.Loc())
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR):
		return false, nil
	}
	return false, errs.FromOS("stat", p, err, false)
}

func (f skillFS) RealPath(p string) (string, error) {
	t, err := f.w.fs.Resolve(p)
	if err != nil {
		return "", err
	}
	fd, err := f.w.fs.Open(t.Loc(), unix.O_PATH, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	return fsroot.RealPathOf(fd, string(t.Abs)), nil
}
