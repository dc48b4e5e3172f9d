package workspace

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/glob"
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
	pattern := strings.TrimPrefix(req.Pattern, "./")
	if strings.TrimSpace(strings.TrimPrefix(pattern, "/")) == "" {
		return nil, errs.Invalid("pattern", "is empty")
	}
	if !doublestar.ValidatePattern(pattern) {
		return nil, errs.Invalid("pattern", fmt.Sprintf("%q is not a valid glob", req.Pattern))
	}
	p, t, err := w.resolveListed(req.Path)
	if err != nil {
		return nil, err
	}
	top := string(t.Rel())
	pattern, anchored, err := w.anchorGlob(pattern, top, dialectOf(ctx))
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
	opts := fsroot.WalkOptions{Hidden: hidden, SkipGit: true, Links: true, MaxDepth: globDepth(pattern, anchored, top)}
	if req.RespectGitignore == nil || *req.RespectGitignore {
		opts.Ignore = w.fs.IgnoreFor(t)
	}
	res := &GlobResult{Files: []GlobFile{}, Skipped: []SkippedPath{}}
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
		rel := full(e.Rel())
		name := e.Rel()
		if anchored {
			name = rel
		}
		if ok, _ := doublestar.Match(pattern, name); !ok {
			return false, nil
		}
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
	limit := globCap
	if req.MaxResults != nil {
		limit = *req.MaxResults
	}
	if limit > 0 && res.Total > limit {
		res.Files, res.Truncated = res.Files[:limit], true
	}
	if req.Null {
		// The paths alone, each ended by a NUL for xargs -0; what the
		// text would add after them is said on stderr.
		var sb strings.Builder
		for _, f := range res.Files {
			sb.WriteString(string(f.Path) + "\x00")
		}
		res.text = sb.String()
		more, skipped := globNotes(res, dialectOf(ctx))
		for _, note := range []string{more, skipped} {
			if note != "" {
				w.warn(note)
			}
		}
		return res, nil
	}
	res.text = globText(res, dialectOf(ctx))
	return res, nil
}

// globDepth is how deep below PATH a pattern without ** can match: one
// level a slash, at most (a slash in braces or escaped counts too, which
// only lets the walk go deeper than it needs). The walk enters no
// directory deeper: '*.go' lists the top level without walking the whole
// tree, or naming the unreadable directories below as skipped, which no
// match could have been in. 0 (no limit) for a pattern with **, or one
// matched against workspace-relative paths below a PATH.
func globDepth(pattern string, anchored bool, top string) int {
	if strings.Contains(pattern, "**") || anchored && top != "." {
		return 0
	}
	return strings.Count(pattern, "/") + 1
}

// anchorGlob reads a pattern that names a place: an absolute one whose
// directory is inside the workspace is made relative to the root (anchored:
// it is matched against workspace-relative paths, not paths below PATH);
// one that climbs above PATH (../) or names a directory outside the
// workspace is refused, saying to give the directory as PATH, where either
// matched nothing without a word. A pattern with a leading / whose first
// name is below PATH keeps Mastra's reading (the / is dropped).
func (w *Workspace) anchorGlob(pattern, top string, d Dialect) (string, bool, error) {
	instead := func(dir, rest string) string {
		if rest == "" {
			rest = "*"
		}
		if d == CLIFlags {
			return fmt.Sprintf("give the directory as PATH (ws glob %s %s)", wording.ShellWord(rest), wording.ShellWord(dir))
		}
		return fmt.Sprintf("give the directory as path (pattern %q, path %q)", rest, dir)
	}
	below := "below PATH"
	if d != CLIFlags {
		below = "below path"
	}
	if clean := path.Clean(pattern); clean == ".." || strings.HasPrefix(clean, "../") {
		base := glob.Base(clean)
		rest := strings.TrimPrefix(strings.TrimPrefix(clean, base), "/")
		return "", false, errs.Invalid("pattern", fmt.Sprintf("%q climbs above the directory it is matched in: patterns match %s; %s",
			pattern, below, instead(path.Join(top, base), rest)))
	}
	if !strings.HasPrefix(pattern, "/") {
		return pattern, false, nil
	}
	stripped := strings.TrimPrefix(pattern, "/")
	base := glob.Base(pattern)
	if base == "." || base == "/" {
		return stripped, false, nil
	}
	t, err := w.fs.Resolve(base)
	if err != nil {
		// Mastra's reading, when the first name is there below PATH.
		first, _, _ := strings.Cut(stripped, "/")
		if lt, err := w.fs.Resolve(path.Join(top, first)); err == nil && !glob.Has(first) {
			if _, err := w.fs.Lstat(lt.Loc()); err == nil {
				return stripped, false, nil
			}
		}
		return "", false, errs.Invalid("pattern", fmt.Sprintf("%q names a directory outside the workspace: patterns match %s", pattern, below))
	}
	rel := string(t.Rel())
	rest := strings.TrimPrefix(strings.TrimPrefix(pattern, base), "/")
	if top != "." && rel != "." && rel != top && !strings.HasPrefix(rel, top+"/") && !strings.HasPrefix(top, rel+"/") {
		// It can match nothing below PATH.
		return "", false, errs.Invalid("pattern", fmt.Sprintf("%q names %s, which is not %s %s; %s", pattern, rel, below[:5], top, instead(rel, rest)))
	}
	if rel == "." {
		return rest, true, nil
	}
	if rest == "" {
		return rel, true, nil
	}
	return rel + "/" + rest, true, nil
}

func globText(res *GlobResult, d Dialect) string {
	more, skipped := globNotes(res, d)
	if skipped != "" {
		skipped = "(" + skipped + ")"
	}
	if res.Total == 0 {
		return strings.TrimSpace("No files found " + skipped)
	}
	lines := make([]string, 0, len(res.Files)+2)
	for _, f := range res.Files {
		lines = append(lines, wording.Name(string(f.Path))) // as ls prints names
	}
	if more != "" {
		lines = append(lines, "["+more+"]")
	}
	if skipped != "" {
		lines = append(lines, skipped)
	}
	return strings.Join(lines, "\n")
}

// globNotes are what glob's text says after the paths: how many more
// matched than were shown, and the paths the walk could not look at ("" for
// neither that is not so).
func globNotes(res *GlobResult, d Dialect) (more, skipped string) {
	if res.Truncated {
		how := "a more specific pattern or path, or raise maxResults (0 shows all)"
		if d == CLIFlags {
			how = "a more specific PATTERN or a PATH, or raise --max-results (0 shows all)"
		}
		more = fmt.Sprintf("showing the %d newest of %d files; narrow it with %s", len(res.Files), res.Total, how)
	}
	if n := len(res.Skipped); n > 0 {
		skipped = fmt.Sprintf("%d %s skipped: %s", n, wording.Plural(n, "path", "paths"), skippedNames(res.Skipped, d))
	}
	return more, skipped
}
