package listing

import (
	"context"
	"iter"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/wstools/ws/pkg/glob"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/js"
)

// Options are a listing's filters and the bounds of its text.
type Options struct {
	// Name is the directory as the caller named it ("." for the root);
	// hints build their paths from it.
	Name string
	// MaxDepth is Mastra's maxDepth: levels are shown while their depth
	// is below it (a fraction rounds up; NaN, 0 or less shows nothing).
	// The summary names it as given.
	MaxDepth float64
	Hidden   bool // show dot-names
	DirsOnly bool // show directories only
	// Exclude leaves out entries: a glob (matched against the name and
	// the path below the directory) or else a substring of the name.
	Exclude   []string
	Extension string   // show only files whose name ends with it (".ts")
	Patterns  []string // show only files whose path below the directory matches one
	Gitignore bool     // leave out what .gitignore files exclude
	Long      bool     // each entry's size (files) and last change
	Budget    int      // the text's budget, in tokens
	Flags     bool     // hints name ws ls's flags, not the JSON parameters
}

// Listing is a listed directory: its counts, its text, and the tree
// behind them.
type Listing struct {
	Directories int  // shown
	Files       int  // shown
	Truncated   bool // something lies deeper than MaxDepth
	OutputCut   bool // the text was cut to the budget
	// Skipped are the directories that could not be read, in walk
	// order; the text names them on its last line.
	Skipped []Skipped
	Text    string
	root    *node
}

// Skipped is a directory a listing could not read, and why.
type Skipped struct {
	Path   string // workspace-relative
	Reason string
}

// Entry is one shown entry of a listing.
type Entry struct {
	Path   string // below the listed directory
	Dir    bool   // for a symlink: whether its target is a directory
	Depth  int    // 0 for the directory's own entries
	Target string // a symlink's text
	// With Options.Long, when the entry could be stat'ed: its size and
	// last change (of a symlink's target, or of the link itself when it
	// is broken), the time in RFC 3339, UTC.
	Stat     bool
	Size     int64
	Modified string
}

// node is a shown entry with its shown children.
type node struct {
	fsroot.DirEntry
	parent   *node
	children []*node
	hidden   bool // has entries below MaxDepth that were not shown
	stat     bool
	size     int64
	mtimeNS  int64
}

func (n *node) modified() string {
	return time.Unix(0, n.mtimeNS).UTC().Format(time.RFC3339)
}

// relPath is the node's path below the listed directory ("." for it).
func (n *node) relPath() string {
	if n.parent == nil {
		return "."
	}
	if n.parent.parent == nil {
		return n.Name
	}
	return n.parent.relPath() + "/" + n.Name
}

// List lists the directory dir (resolved through fsys) as o says. It
// fails only when dir itself cannot be opened or read, with the walk's
// error; a directory below it that cannot be read is shown without its
// entries, as Mastra shows it, and named on the text's last line.
func List(ctx context.Context, fsys *fsroot.FS, dir *fsroot.Target, o Options) (*Listing, error) {
	depth := depthOf(o.MaxDepth)
	root := &node{DirEntry: fsroot.DirEntry{IsDir: true}}
	l := &Listing{root: root}
	gitDir, err := fill(ctx, fsys, dir, root, o, depth, &l.Skipped)
	if err != nil {
		return nil, err
	}
	l.Text = l.write(o, depth, gitDir)
	return l, nil
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

// fill lists the directory dir into root: depth levels are shown; the
// level below is listed only to note, on each directory at the last
// shown level, whether it holds something the depth leaves out. It
// returns the first .git directory it left out (relative to the
// workspace root), if any.
func fill(ctx context.Context, fsys *fsroot.FS, dir *fsroot.Target, root *node, o Options, depth int, skipped *[]Skipped) (string, error) {
	gitDir := ""
	wo := fsroot.WalkOptions{Hidden: o.Hidden, Links: true, MaxDepth: depth + 1, Compare: dirsFirst,
		Unreadable: func(rel string, err error) {
			*skipped = append(*skipped, Skipped{fsroot.JoinRel(string(dir.Rel()), rel), fsroot.SkipReason(err)})
		},
		// A path into .git is listed (it was asked for); below any other
		// path, .git directories are left out, as Mastra leaves them out.
		SkipGit: !slices.Contains(strings.Split(string(dir.Rel()), "/"), ".git"),
		GitSkipped: func(rel string) {
			if gitDir == "" {
				gitDir = fsroot.JoinRel(string(dir.Rel()), rel)
			}
		}}
	if o.Gitignore {
		wo.Ignore = fsys.IgnoreFor(dir)
	}
	_, err := fsys.Walk(ctx, dir.Loc(), "", wo, root, func(e *fsroot.WalkEntry) (bool, any) {
		parent := e.Parent.(*node)
		if !o.keep(e) {
			return false, nil
		}
		if e.Depth > depth {
			parent.hidden = true
			return false, nil
		}
		c := &node{DirEntry: e.DirEntry, parent: parent}
		if o.Long {
			st, err := fsys.Stat(e.Loc())
			if err != nil {
				st, err = fsys.Lstat(e.Loc())
			}
			if err == nil {
				c.stat, c.size, c.mtimeNS = true, st.Size, st.MtimeNS
			}
		}
		parent.children = append(parent.children, c)
		return true, c
	})
	return gitDir, err
}

// dirsFirst orders a listing: directories first, then names in UTF-16
// order (as JavaScript sorts them).
func dirsFirst(a, b fsroot.DirEntry) int {
	if a.IsDir != b.IsDir {
		if a.IsDir {
			return -1
		}
		return 1
	}
	return js.CompareUTF16(a.Name, b.Name)
}

// keep applies the filters the walk leaves to ls, in Mastra's order
// (after .git, hidden names and .gitignore): exclude, dirsOnly, then
// (files only) extension and pattern.
func (o Options) keep(e *fsroot.WalkEntry) bool {
	for _, x := range o.Exclude {
		if matchExclude(x, e.Name, e.Rel()) {
			return false
		}
	}
	if o.DirsOnly {
		return e.IsDir
	}
	if e.IsDir {
		return true
	}
	if o.Extension != "" && !strings.HasSuffix(e.Name, o.Extension) {
		return false
	}
	if len(o.Patterns) > 0 {
		for _, g := range o.Patterns {
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

// Entries are the shown entries in display order: depth first, each
// level directories first.
func (l *Listing) Entries() iter.Seq[Entry] {
	return func(yield func(Entry) bool) {
		var walk func(n *node, depth int) bool
		walk = func(n *node, depth int) bool {
			for _, c := range n.children {
				e := Entry{Path: c.relPath(), Dir: c.IsDir, Depth: depth, Target: c.Target}
				if c.stat {
					e.Stat, e.Size, e.Modified = true, c.size, c.modified()
				}
				if !yield(e) || !walk(c, depth+1) {
					return false
				}
			}
			return true
		}
		walk(l.root, 0)
	}
}
