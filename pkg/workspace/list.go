package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path"
	"runtime"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/glob"
	"github.com/wstools/ws/pkg/js"
	"github.com/wstools/ws/pkg/schema"
	"github.com/wstools/ws/pkg/tokens"
	"golang.org/x/sys/unix"
)

// ListRequest is the input of ls (mastra_workspace_list_files).
type ListRequest struct {
	Path             string                 `json:"path,omitempty" default:"\".\"" desc:"Directory to list, relative to the workspace root."`
	MaxDepth         *float64               `json:"maxDepth,omitempty" default:"2" desc:"How many levels to show (default 2)."`
	ShowHidden       *bool                  `json:"showHidden,omitempty" default:"false" desc:"Show names that start with a dot."`
	DirsOnly         *bool                  `json:"dirsOnly,omitempty" default:"false" desc:"Show directories only."`
	Exclude          string                 `json:"exclude,omitempty" desc:"Leave out entries matching any of these '|'-separated globs or name substrings, e.g. 'node_modules|*.min.js'."`
	Extension        string                 `json:"extension,omitempty" desc:"Show only files with this extension, e.g. 'ts' or '.ts'."`
	Pattern          schema.StringOrStrings `json:"pattern,omitempty" desc:"Show only files whose path (relative to the listed directory) matches this glob, or any of these globs, e.g. '**/*.test.ts'."`
	RespectGitignore *bool                  `json:"respectGitignore,omitempty" default:"true" desc:"Leave out what .gitignore files exclude (default true)."`
}

// ListEntry is one shown entry of a listing.
type ListEntry struct {
	Path   Bytes  `json:"path"` // relative to the listed directory; {"bytes": base64} when not UTF-8
	Type   string `json:"type"` // file, directory
	Depth  int    `json:"depth"`
	Target Bytes  `json:"target,omitempty"` // a symlink's text
}

// ListResult is the outcome of ls. Its entries are made from the tree only
// when JSON is asked for.
type ListResult struct {
	Path        string `json:"path"`
	Directories int    `json:"directories"`
	Files       int    `json:"files"`
	Truncated   bool   `json:"truncated_at_depth"` // something lies deeper than maxDepth
	OutputCut   bool   `json:"output_truncated"`
	text        string
	tree        *treeNode
}

// MarshalJSON adds the shown entries, in display order.
func (r *ListResult) MarshalJSON() ([]byte, error) {
	type plain ListResult
	entries := []ListEntry{}
	var walk func(n *treeNode, depth int)
	walk = func(n *treeNode, depth int) {
		for _, c := range n.children {
			typ := "file"
			if c.isDir {
				typ = "directory"
			}
			var target Bytes
			if c.target != "" {
				target = Bytes(c.target)
			}
			entries = append(entries, ListEntry{Path: Bytes(c.relPath()), Type: typ, Depth: depth, Target: target})
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

// Text is the tool's output as the model sees it.
func (r *ListResult) Text() string { return r.text }

const defaultListTokens = 1000

// listOpts are a listing's filters, decided once.
type listOpts struct {
	maxDepth   int
	showHidden bool
	dirsOnly   bool
	excludes   []string
	extension  string
	patterns   []string
	ignore     *ignoreState
}

// treeNode is a listed directory entry with its shown children.
type treeNode struct {
	dirEntry
	parent   *treeNode
	children []*treeNode
	hidden   bool // has entries below maxDepth that were not shown
}

// relPath is the node's path below the listed directory ("." for it).
func (n *treeNode) relPath() string {
	if n.parent == nil {
		return "."
	}
	if n.parent.parent == nil {
		return n.name
	}
	return n.parent.relPath() + "/" + n.name
}

// List shows a directory tree: directories first, then files, each level
// sorted, indented with tabs, with a count of what was shown.
func (w *Workspace) List(ctx context.Context, req ListRequest) (*ListResult, error) {
	p := req.Path
	if p == "" {
		p = "."
	}
	t, err := w.Resolve(p)
	if err != nil {
		return nil, err
	}
	opts := listOpts{maxDepth: 2}
	if req.MaxDepth != nil {
		opts.maxDepth = depthOf(*req.MaxDepth)
	}
	opts.showHidden = req.ShowHidden != nil && *req.ShowHidden
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

	fd, err := w.open(t.loc(), unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, errs.FromOS("list", p, err, true)
	}
	defer unix.Close(fd)
	res := &ListResult{Path: p}
	root := &treeNode{dirEntry: dirEntry{isDir: true}}
	res.tree = root
	if base := path.Base(strings.TrimSuffix(filepathToSlash(p), "/")); base != ".git" {
		if req.RespectGitignore == nil || *req.RespectGitignore {
			opts.ignore = w.ignoreFor(t)
		}
		lw := &listWalker{opts: opts, sem: make(chan struct{}, 4*runtime.GOMAXPROCS(0))}
		if err := lw.fill(root, fd, 0, opts.ignore.child("", fd)); err != nil {
			return nil, errs.FromOS("list", p, err, true)
		}
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
	res.text = w.capListing(&text, summary, root, res)
	return res, nil
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

// listWalker fills a tree in parallel: subdirectories are listed by other
// goroutines while there are free slots.
type listWalker struct {
	opts listOpts
	sem  chan struct{}
}

// fill lists the directory open at fd into n, whose children sit at depth;
// ig holds the .gitignore rules that apply in it.
func (lw *listWalker) fill(n *treeNode, fd int, depth int, ig *ignoreState) error {
	ents, err := readDirFD(fd, true)
	if err != nil {
		return err
	}
	kept := ents[:0]
	dir := ""
	if lw.opts.needRel() {
		dir = n.relPath()
	}
	for _, e := range ents {
		if lw.keep(e, dir, ig) {
			kept = append(kept, e)
		}
	}
	if depth >= lw.opts.maxDepth {
		// Nothing is shown here; note whether anything would have been.
		n.hidden = len(kept) > 0
		return nil
	}
	sortEntries(kept)
	n.children = make([]*treeNode, len(kept))
	var wg sync.WaitGroup
	for i, e := range kept {
		c := &treeNode{dirEntry: e, parent: n}
		n.children[i] = c
		if !e.isDir || e.isLink {
			continue
		}
		cfd, err := openDirAt(fd, e.name)
		if err != nil {
			continue // unreadable subdirectories are skipped, as Mastra does
		}
		cig := ig.child(e.name, cfd)
		select {
		case lw.sem <- struct{}{}:
			wg.Add(1)
			go func() {
				defer wg.Done()
				lw.fill(c, cfd, depth+1, cig)
				unix.Close(cfd)
				<-lw.sem
			}()
		default:
			lw.fill(c, cfd, depth+1, cig)
			unix.Close(cfd)
		}
	}
	wg.Wait()
	return nil
}

func joinRel(dir, name string) string {
	if dir == "." || dir == "" {
		return name
	}
	return dir + "/" + name
}

// needRel reports whether the filters look at paths, not only names.
func (o listOpts) needRel() bool {
	if len(o.patterns) > 0 {
		return true
	}
	for _, x := range o.excludes {
		if glob.Has(x) {
			return true
		}
	}
	return false
}

// keep applies the filters in Mastra's order: .git, hidden names, exclude,
// .gitignore, dirsOnly, then (files only) extension and pattern.
func (lw *listWalker) keep(e dirEntry, dir string, ig *ignoreState) bool {
	o := lw.opts
	if e.isDir && e.name == ".git" || IsTempName(e.name) {
		return false
	}
	if !o.showHidden && isHidden(e.name) {
		return false
	}
	rel := joinRel(dir, e.name)
	for _, x := range o.excludes {
		if matchExclude(x, e.name, rel) {
			return false
		}
	}
	if ig.ignored(e.name, e.isDir && !e.isLink) { // git does not follow symlinks
		return false
	}
	if o.dirsOnly {
		return e.isDir
	}
	if e.isDir {
		return true
	}
	if o.extension != "" && !strings.HasSuffix(e.name, o.extension) {
		return false
	}
	if len(o.patterns) > 0 {
		for _, g := range o.patterns {
			if ok, _ := doublestar.Match(g, rel); ok {
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
		t.buf = append(t.buf, c.name...)
		if c.isDir {
			res.Directories++
		} else {
			res.Files++
		}
		if c.isLink && c.target != "" {
			t.buf = append(t.buf, " -> "...)
			t.buf = append(t.buf, c.target...)
		}
		t.ends = append(t.ends, len(t.buf))
		flatten(c, depth+1, res, t)
	}
}

// capListing joins the tree within the token budget. Output that fits is
// Mastra's text; otherwise whole lines are kept, and the notice says how
// many entries were shown and how to narrow the listing, before the summary.
func (w *Workspace) capListing(t *listText, summary string, root *treeNode, res *ListResult) string {
	budget := w.cfg.MaxOutputTokens(config.ListFiles, defaultListTokens)
	full := ".\n\n" + summary
	if len(t.ends) > 0 {
		full = ".\n" + string(t.buf) + "\n\n" + summary
	}
	if tokens.Estimate(full) <= budget {
		return full
	}
	res.OutputCut = true
	hint := "narrow it with path"
	if big := biggestDir(root); big != "" {
		hint += fmt.Sprintf(" (e.g. path=%q)", joinRel(res.Path, big))
	}
	hint += ", a lower maxDepth, pattern, extension or exclude"
	total := len(t.ends)
	notice := func(shown int) string {
		return fmt.Sprintf("[output truncated: showing %d of %d entries; %s]", shown, total, hint)
	}
	used := tokens.Estimate(".") + tokens.Estimate(notice(total)) + tokens.Estimate(summary)
	shown := 0
	for shown < total {
		n := tokens.Estimate(string(t.line(shown)))
		if used+n > budget {
			break
		}
		used += n
		shown++
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
		if n := countNodes(c); c.isDir && n > bestN {
			best, bestN = c.name, n
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
