package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/glob"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/js"
	"github.com/wstools/ws/pkg/tokens"
)

// ListEntry is one shown entry of a listing.
type ListEntry struct {
	Path   Bytes  `json:"path"` // relative to the listed directory; {"bytes": base64} when not UTF-8
	Type   string `json:"type"` // file, directory
	Depth  int    `json:"depth"`
	Target Bytes  `json:"target,omitempty"` // a symlink's text
	// With ws ls --long: the size in bytes (files) and the last change.
	Size     *int64 `json:"size,omitempty"`
	Modified string `json:"modified,omitempty"` // RFC 3339, UTC
}

// ListResult is the outcome of ls. Its entries are made from the tree only
// when JSON is asked for.
type ListResult struct {
	Path        Bytes `json:"path"`
	Directories int   `json:"directories"`
	Files       int   `json:"files"`
	Truncated   bool  `json:"truncated_at_depth"` // something lies deeper than maxDepth
	OutputCut   bool  `json:"output_truncated"`
	tree        *treeNode
	textOut
}

// MarshalJSON adds the shown entries, in display order.
func (r *ListResult) MarshalJSON() ([]byte, error) {
	type plain ListResult
	entries := []ListEntry{}
	var walk func(n *treeNode, depth int)
	walk = func(n *treeNode, depth int) {
		for _, c := range n.children {
			typ := "file"
			if c.IsDir {
				typ = "directory"
			}
			var target Bytes
			if c.Target != "" {
				target = Bytes(c.Target)
			}
			le := ListEntry{Path: Bytes(c.relPath()), Type: typ, Depth: depth, Target: target}
			if c.meta {
				le.Modified = c.modified()
				if !c.IsDir {
					le.Size = &c.size
				}
			}
			entries = append(entries, le)
			walk(c, depth+1)
		}
	}
	if r.tree != nil {
		walk(r.tree, 0)
	}
	return json.Marshal(struct {
		*plain
		Entries []ListEntry `json:"entries"`
	}{(*plain)(r), entries})
}

const defaultListTokens = 1000

// listOpts are a listing's filters, decided once.
type listOpts struct {
	maxDepth   int
	showHidden bool
	dirsOnly   bool
	excludes   []string
	extension  string
	patterns   []string
	ignore     *fsroot.Ignore
	skipGit    bool
	long       bool
}

// treeNode is a listed directory entry with its shown children.
type treeNode struct {
	fsroot.DirEntry
	parent   *treeNode
	children []*treeNode
	hidden   bool // has entries below maxDepth that were not shown
	// --long: the entry's size and mtime (of a symlink's target, or of
	// the link itself when it is broken).
	meta    bool
	size    int64
	mtimeNS int64
}

func (n *treeNode) modified() string {
	return time.Unix(0, n.mtimeNS).UTC().Format(time.RFC3339)
}

// relPath is the node's path below the listed directory ("." for it).
func (n *treeNode) relPath() string {
	if n.parent == nil {
		return "."
	}
	if n.parent.parent == nil {
		return n.Name
	}
	return n.parent.relPath() + "/" + n.Name
}

// List shows a directory tree: directories first, then files, each level
// sorted, indented with tabs, with a count of what was shown.
func (w *Workspace) List(ctx context.Context, req ListRequest) (*ListResult, error) {
	p, t, err := w.resolveListed(req.Path)
	if err != nil {
		return nil, err
	}
	opts := listOpts{maxDepth: 2}
	if req.MaxDepth != nil {
		opts.maxDepth = depthOf(*req.MaxDepth)
	}
	opts.showHidden = req.ShowHidden != nil && *req.ShowHidden
	opts.long = req.Long
	opts.dirsOnly = req.DirsOnly != nil && *req.DirsOnly
	for _, x := range strings.Split(req.Exclude, "|") {
		if x = strings.TrimSpace(x); x != "" {
			opts.excludes = append(opts.excludes, x)
		}
	}
	if req.Extension != "" {
		opts.extension = "." + strings.TrimPrefix(req.Extension, ".")
	}
	for _, g := range req.Pattern {
		if strings.TrimSpace(g) != "" {
			opts.patterns = append(opts.patterns, strings.TrimPrefix(strings.TrimPrefix(g, "./"), "/"))
		}
	}

	res := &ListResult{Path: Bytes(p)}
	root := &treeNode{DirEntry: fsroot.DirEntry{IsDir: true}}
	res.tree = root
	// A path into .git is listed (it was asked for); below any other
	// path, .git directories are left out, as Mastra leaves them out.
	opts.skipGit = !slices.Contains(strings.Split(string(t.Rel()), "/"), ".git")
	if req.RespectGitignore == nil || *req.RespectGitignore {
		opts.ignore = w.fs.IgnoreFor(t)
	}
	gitDir, err := w.fillTree(ctx, t, root, opts)
	if err != nil {
		return nil, errs.FromOS("list", p, err, true)
	}
	var text listText
	flatten(root, 0, res, &text)
	summary := fmt.Sprintf("%d %s, %d %s", res.Directories, pluralWord(res.Directories, "directory", "directories"),
		res.Files, pluralWord(res.Files, "file", "files"))
	if res.Truncated {
		depth := "2"
		if req.MaxDepth != nil {
			depth = js.FormatNumber(*req.MaxDepth)
		}
		summary += " (truncated at depth " + depth + ")"
	}
	res.text = w.capListing(&text, summary, root, res, dialectOf(ctx), opts.maxDepth)
	if gitDir != "" && opts.showHidden {
		// Hidden names were asked for, and .git alone was left out.
		how := fmt.Sprintf("set path to %q", gitDir)
		if dialectOf(ctx) == CLIFlags {
			how = "ws ls " + shellWord(gitDir)
		}
		res.text += "\nhint: " + gitDir + " is not listed; .git directories are listed only when named (" + how + ")"
	}
	return res, nil
}

// resolveListed resolves the directory ls or glob is asked about, the
// workspace root when no path is given; it also returns the path as it is
// named in messages ("." for the root).
func (w *Workspace) resolveListed(path string) (string, *fsroot.Target, error) {
	if path == "" {
		path = "."
	}
	t, err := w.fs.Resolve(path)
	return path, t, err
}

// depthOf reads maxDepth as Mastra's loop does with a non-integer number:
// levels are shown while depth < maxDepth.
func depthOf(f float64) int {
	switch {
	case math.IsNaN(f) || f <= 0:
		return 0
	case f > 1<<20:
		return 1 << 20
	}
	return int(math.Ceil(f))
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func filepathToSlash(p string) string { return strings.ReplaceAll(p, "\\", "/") }

// fillTree lists the directory t into root: maxDepth levels are shown;
// the level below is listed only to note, on each directory at the last
// shown level, whether it holds something the depth leaves out.
// Unreadable subdirectories are skipped, as Mastra does.
// It returns the first .git directory it left out (relative to the
// workspace root), if any.
func (w *Workspace) fillTree(ctx context.Context, t *fsroot.Target, root *treeNode, o listOpts) (string, error) {
	gitDir := ""
	wo := fsroot.WalkOptions{Hidden: o.showHidden, SkipGit: o.skipGit, Ignore: o.ignore, Links: true,
		MaxDepth: o.maxDepth + 1, Less: dirsFirst, GitSkipped: func(rel string) {
			if gitDir == "" {
				gitDir = fsroot.JoinRel(string(t.Rel()), rel)
			}
		}}
	_, err := w.fs.Walk(ctx, t.Loc(), "", wo, root, func(e *fsroot.WalkEntry) (bool, any) {
		parent := e.Parent.(*treeNode)
		if !o.keep(e) {
			return false, nil
		}
		if e.Depth > o.maxDepth {
			parent.hidden = true
			return false, nil
		}
		c := &treeNode{DirEntry: e.DirEntry, parent: parent}
		if o.long {
			st, err := w.fs.Stat(e.Loc())
			if err != nil {
				st, err = w.fs.Lstat(e.Loc())
			}
			if err == nil {
				c.meta, c.size, c.mtimeNS = true, st.Size, st.MtimeNS
			}
		}
		parent.children = append(parent.children, c)
		return true, c
	})
	return gitDir, err
}

// dirsFirst orders a listing: directories first, then names in UTF-16
// order (as JavaScript sorts them).
func dirsFirst(a, b fsroot.DirEntry) bool {
	if a.IsDir != b.IsDir {
		return a.IsDir
	}
	return js.LessUTF16(a.Name, b.Name)
}

// keep applies the filters the walk leaves to ls, in Mastra's order
// (after .git, hidden names and .gitignore): exclude, dirsOnly, then
// (files only) extension and pattern.
func (o listOpts) keep(e *fsroot.WalkEntry) bool {
	for _, x := range o.excludes {
		if matchExclude(x, e.Name, e.Rel()) {
			return false
		}
	}
	if o.dirsOnly {
		return e.IsDir
	}
	if e.IsDir {
		return true
	}
	if o.extension != "" && !strings.HasSuffix(e.Name, o.extension) {
		return false
	}
	if len(o.patterns) > 0 {
		for _, g := range o.patterns {
			if ok, _ := doublestar.Match(g, e.Rel()); ok {
				return true
			}
		}
		return false
	}
	return true
}

// matchExclude: an exclude with glob characters is a glob, matched against
// the name and the path below the listed directory; otherwise it is a
// substring of the name (Mastra's only form).
func matchExclude(x, name, rel string) bool {
	if glob.Has(x) {
		if ok, _ := doublestar.Match(x, name); ok {
			return true
		}
		ok, _ := doublestar.Match(x, rel)
		return ok
	}
	return strings.Contains(name, x)
}

// listText is the tree's lines, in one buffer.
type listText struct {
	buf  []byte
	ends []int // end offset of each line
}

func (t *listText) line(i int) []byte {
	start := 0
	if i > 0 {
		start = t.ends[i-1] + 1
	}
	return t.buf[start:t.ends[i]]
}

// flatten writes the tree depth-first and counts what it shows.
func flatten(n *treeNode, depth int, res *ListResult, t *listText) {
	if n.hidden {
		res.Truncated = true
	}
	for _, c := range n.children {
		if len(t.ends) > 0 {
			t.buf = append(t.buf, '\n')
		}
		for range depth {
			t.buf = append(t.buf, '\t')
		}
		t.buf = append(t.buf, c.Name...)
		if c.IsDir {
			res.Directories++
		} else {
			res.Files++
		}
		if c.IsLink && c.Target != "" {
			t.buf = append(t.buf, " -> "...)
			t.buf = append(t.buf, c.Target...)
		}
		if c.meta {
			size := "-"
			if !c.IsDir {
				size = strconv.FormatInt(c.size, 10)
			}
			t.buf = append(t.buf, "  "+size+"  "+c.modified()...)
		}
		t.ends = append(t.ends, len(t.buf))
		flatten(c, depth+1, res, t)
	}
}

// capListing joins the tree within the token budget. Output that fits is
// Mastra's text; otherwise the whole lines that fit the budget are kept,
// and the notice says how many entries were shown and how to narrow the
// listing, before the summary.
func (w *Workspace) capListing(t *listText, summary string, root *treeNode, res *ListResult, d Dialect, depth int) string {
	budget := w.cfg.MaxOutputTokens(ListFiles, defaultListTokens)
	full := ".\n\n" + summary
	if len(t.ends) > 0 {
		full = ".\n" + string(t.buf) + "\n\n" + summary
	}
	if tokens.Estimate(full) <= budget {
		return full
	}
	res.OutputCut = true
	hint := "narrow it with path"
	big := biggestDir(root)
	switch {
	case d == CLIFlags:
		hint = "narrow it with a path"
		if big != "" {
			hint += fmt.Sprintf(" (e.g. ws ls %s --max-depth %d)", shellWord(fsroot.JoinRel(string(res.Path), big)), max(depth, 1))
		}
		hint += ", a lower --max-depth, --pattern, --extension or --exclude"
	case big != "":
		hint += fmt.Sprintf(" (e.g. path=%q), a lower maxDepth, pattern, extension or exclude", fsroot.JoinRel(string(res.Path), big))
	default:
		hint += ", a lower maxDepth, pattern, extension or exclude"
	}
	total := len(t.ends)
	notice := func(shown int) string {
		return fmt.Sprintf("[output truncated: showing %d of %d entries; %s]", shown, total, hint)
	}
	// Only the content is charged, as Mastra's cut charges it: the "."
	// line and the entries; the notice and the summary come on top.
	used := tokens.Estimate(".")
	shown := 0
	for shown < total {
		n := tokens.Estimate(string(t.line(shown)))
		if used+n > budget {
			break
		}
		used += n
		shown++
	}
	if shown == total {
		// Every entry fits; only the summary went over: nothing is cut.
		res.OutputCut = false
		return full
	}
	var sb strings.Builder
	sb.WriteString(".\n")
	if shown > 0 {
		sb.Write(t.buf[:t.ends[shown-1]])
		sb.WriteByte('\n')
	}
	sb.WriteString(notice(shown) + "\n\n" + summary)
	return sb.String()
}

// biggestDir names the top-level directory with the most entries below it.
func biggestDir(root *treeNode) string {
	best, bestN := "", 0
	for _, c := range root.children {
		if n := countNodes(c); c.IsDir && n > bestN {
			best, bestN = c.Name, n
		}
	}
	return best
}

func countNodes(n *treeNode) int {
	total := len(n.children)
	for _, c := range n.children {
		total += countNodes(c)
	}
	return total
}

// shellWord quotes a path for a command line, when it needs quoting.
func shellWord(s string) string {
	for _, r := range s {
		if !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}
