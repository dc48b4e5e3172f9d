package workspace

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/internal/wording"
	"golang.org/x/sys/unix"
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
	// Skipped are the paths the walk could not look into or at (an
	// unreadable directory, a link that leads nowhere, out of the
	// workspace or round in a loop), in walk order.
	Skipped []SkippedPath `json:"skipped"`
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
	res := &GlobResult{Files: []GlobFile{}, Skipped: []SkippedPath{}}
	top := string(t.Rel())
	full := func(rel string) string {
		if top != "." {
			return top + "/" + rel
		}
		return rel
	}
	opts.Unreadable = func(rel string, err error) {
		res.Skipped = append(res.Skipped, SkippedPath{Path: Bytes(full(rel)), Reason: fsroot.SkipReason(err)})
	}
	_, err = w.fs.Walk(ctx, t.Loc(), "", opts, nil, func(e *fsroot.WalkEntry) (bool, any) {
		if e.IsDir {
			return true, nil
		}
		if ok, _ := doublestar.Match(pattern, e.Rel()); !ok {
			return false, nil
		}
		rel := full(e.Rel())
		fst, err := w.fs.Stat(e.Loc())
		if err != nil {
			// A link that leads nowhere, out of the workspace or round
			// in a loop: named, as grep names it.
			why := fsroot.SkipReason(err)
			if e.IsLink && err == unix.ENOENT {
				why = "broken symlink"
			}
			res.Skipped = append(res.Skipped, SkippedPath{Path: Bytes(rel), Reason: why})
			return false, nil
		}
		if fst.IsDir() {
			return false, nil // a link to a directory
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
	skipped := ""
	if n := len(res.Skipped); n > 0 {
		skipped = fmt.Sprintf("(%d %s skipped: %s)", n, wording.Plural(n, "path", "paths"), skippedNames(res.Skipped, d))
	}
	if res.Total == 0 {
		if skipped != "" {
			return "No files found " + skipped
		}
		return "No files found"
	}
	lines := make([]string, 0, len(res.Files)+2)
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
	if skipped != "" {
		lines = append(lines, skipped)
	}
	return strings.Join(lines, "\n")
}
