package workspace

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/fsroot"
)

// GlobFile is one file glob found.
type GlobFile struct {
	Path     Bytes  `json:"path"` // workspace-relative
	Size     int64  `json:"size"`
	Modified string `json:"modified"` // RFC 3339, UTC
	mtime    int64
}

// GlobResult is the outcome of glob: files, newest first.
type GlobResult struct {
	Files     []GlobFile `json:"files"`
	Total     int        `json:"total"`     // files that matched, shown or not
	Truncated bool       `json:"truncated"` // more matched than were shown
	textOut
}

// globCap is how many files glob shows.
const globCap = 100

// Glob finds files by name pattern below a directory: a flat list,
// newest first (the files an agent is working on come first), at most
// 100, with a notice that says how to narrow it. Hidden names and what
// .gitignore files exclude are left out unless asked, as grep leaves
// them out; directories are not listed.
func (w *Workspace) Glob(ctx context.Context, req GlobRequest) (*GlobResult, error) {
	// A backslash escapes the next character ('\[x\].txt' is the file
	// "[x].txt"), as in picomatch and doublestar: it is no separator.
	pattern := strings.TrimPrefix(strings.TrimPrefix(req.Pattern, "./"), "/")
	if strings.TrimSpace(pattern) == "" {
		return nil, errs.Invalid("pattern", "is empty")
	}
	if !doublestar.ValidatePattern(pattern) {
		return nil, errs.Invalid("pattern", fmt.Sprintf("%q is not a valid glob", req.Pattern))
	}
	p, t, err := w.resolveListed(req.Path)
	if err != nil {
		return nil, err
	}
	st, err := w.fs.Stat(t.Loc())
	if err != nil {
		return nil, errs.FromOS("glob", p, err, true)
	}
	if !st.IsDir() {
		return nil, errs.NotDir(p, nil)
	}
	hidden := req.IncludeHidden != nil && *req.IncludeHidden
	opts := fsroot.WalkOptions{Hidden: hidden, SkipGit: true, Links: true}
	if req.RespectGitignore == nil || *req.RespectGitignore {
		opts.Ignore = w.fs.IgnoreFor(t)
	}
	res := &GlobResult{Files: []GlobFile{}}
	top := string(t.Rel())
	_, err = w.fs.Walk(ctx, t.Loc(), "", opts, nil, func(e *fsroot.WalkEntry) (bool, any) {
		if e.IsDir {
			return true, nil
		}
		if ok, _ := doublestar.Match(pattern, e.Rel()); !ok {
			return false, nil
		}
		fst, err := w.fs.Stat(e.Loc())
		if err != nil || fst.IsDir() {
			return false, nil // a broken link or a link to a directory
		}
		rel := e.Rel()
		if top != "." {
			rel = top + "/" + rel
		}
		res.Files = append(res.Files, GlobFile{Path: Bytes(rel), Size: fst.Size,
			Modified: fst.Mtime().UTC().Format("2006-01-02T15:04:05.000000000Z"), mtime: fst.MtimeNS})
		return false, nil
	})
	if err != nil {
		return nil, errs.FromOS("glob", p, err, true)
	}
	sort.SliceStable(res.Files, func(i, j int) bool {
		if res.Files[i].mtime != res.Files[j].mtime {
			return res.Files[i].mtime > res.Files[j].mtime
		}
		return string(res.Files[i].Path) < string(res.Files[j].Path)
	})
	res.Total = len(res.Files)
	if res.Total > globCap {
		res.Files, res.Truncated = res.Files[:globCap], true
	}
	res.text = globText(res, dialectOf(ctx))
	return res, nil
}

func globText(res *GlobResult, d Dialect) string {
	if res.Total == 0 {
		return "No files found"
	}
	lines := make([]string, 0, len(res.Files)+1)
	for _, f := range res.Files {
		lines = append(lines, string(f.Path)) // its bytes, as ls prints names
	}
	if res.Truncated {
		how := "a more specific pattern or path"
		if d == CLIFlags {
			how = "a more specific PATTERN or a PATH"
		}
		lines = append(lines, fmt.Sprintf("[showing the %d newest of %d files; narrow it with %s]", len(res.Files), res.Total, how))
	}
	return strings.Join(lines, "\n")
}
