package fsroot

import (
	"context"
	"runtime"
	"slices"
	"strings"

	"github.com/wstools/ws/pkg/errs"
	"golang.org/x/sys/unix"
)

// WalkOptions say which entries a walk meets and in what order. ws's own
// temporary files are never met, and symlinked directories never entered.
type WalkOptions struct {
	Hidden  bool // dot names too
	SkipGit bool // leave out .git directories
	// Ignore holds the .gitignore rules in force above the start directory
	// (from IgnoreFor); the walk adds each directory's own file and leaves
	// out what they exclude (git does not follow symlinks). Nil: no rules.
	Ignore *Ignore
	Links  bool // read symlinks: their target's type and their text
	// MaxDepth stops the walk from entering directories at that depth (the
	// start directory's own entries are at depth 1); 0 is no limit.
	MaxDepth int
	// Compare orders a directory's entries (as slices.SortFunc's cmp); nil
	// is bytewise by name.
	Compare func(a, b DirEntry) int
	// Unreadable, when set, is told of each directory below the start
	// that could not be opened or listed (its Rel path), from the walk's
	// goroutine, in walk order.
	Unreadable func(rel string, err error)
	// GitSkipped, when set, is told (once per directory) that SkipGit
	// left out a .git directory there.
	GitSkipped func(rel string)
	// Override, when set, is asked of each entry (its Rel path, and
	// whether it is a directory, not a symlink to one) before dot names
	// and the .gitignore rules: when it decides, its answer (keep it or
	// leave it out) stands over theirs (ripgrep's -g globs). .git
	// directories and ws's temporary files are left out first. It may be
	// called from any goroutine.
	Override func(rel string, isDir bool) (keep, decided bool)
}

// WalkEntry is one entry a walk meets. It is only valid during the visit
// call that gets it (the walk reuses it); keep what it says, not it.
type WalkEntry struct {
	DirEntry
	Depth  int // 1 for the start directory's own entries
	Parent any // what visit answered for the directory that holds it (the start: Walk's data)
	dirRel string
	dirLoc Loc
}

// Rel is the entry's slash-separated path, starting with the rel given to
// Walk.
func (e *WalkEntry) Rel() string { return JoinRel(e.dirRel, e.Name) }

// Loc is where the entry is, to open or stat it.
func (e *WalkEntry) Loc() Loc { return e.dirLoc.Child(e.Name) }

// A walk lists directories ahead of its visit on at most listWorkers
// goroutines a processor, and at most maxAhead listings (each holding a
// descriptor) wait for the walk to reach them; past that, a directory is
// opened and listed when the walk gets there.
const (
	listWorkers = 4
	maxAhead    = 128
)

// Walk visits the tree below the directory at start depth-first, each directory's
// entries in order, calling visit once per entry from one goroutine. For a
// directory, visit answers whether to enter it and what its entries get as
// Parent. While visit works through one directory, the subdirectories it
// may enter are listed, filtered and sorted ahead on other goroutines, so
// the walk reads the disk in parallel yet visits in a fixed order. It stops early
// when ctx is done. It fails when the start directory cannot be opened or
// read; otherwise it returns how many directories below it could not be.
// Entries' Rel paths start with rel, the start directory's own.
func (fsys *FS) Walk(ctx context.Context, start Loc, rel string, opts WalkOptions, data any, visit func(e *WalkEntry) (enter bool, data any)) (unreadable int, err error) {
	fd, err := fsys.Open(start, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return 0, err
	}
	w := &walker{ctx: ctx, opts: opts, visit: visit, workers: make(chan struct{}, listWorkers*runtime.GOMAXPROCS(0))}
	ls := &listing{fd: fd, done: closedChan}
	if w.prepare(ls, opts.Ignore, "", rel, 1); ls.err != nil {
		unix.Close(fd)
		return 0, ls.err
	}
	w.dir(ls, rel, start, opts.Ignore, "", 1, data)
	return w.unreadable, nil
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

type walker struct {
	ctx        context.Context
	opts       WalkOptions
	visit      func(*WalkEntry) (bool, any)
	workers    chan struct{} // a place for each goroutine listing ahead
	ahead      int           // listings made ahead and not yet released (the walk's goroutine keeps it)
	unreadable int
}

// listing is a directory opened and made ready for its visit, perhaps
// ahead of time: its entries the walk meets, in order, and its rules.
type listing struct {
	fd         int
	ents       []DirEntry
	ig         *Ignore
	gitSkipped bool   // SkipGit left out a .git here
	igErr      error  // why its ignore file igBad could not be read
	igBad      string // .gitignore or .ignore
	err        error
	prepared   bool
	done       chan struct{} // closed when the work ahead is over
	ahead      bool
	later      bool // not opened yet: the walk opens it when it gets there
}

// open opens the listing left for later, the subdirectory name of the
// directory open at fd.
func (ls *listing) open(fd int, name string) {
	if ls.later {
		ls.later = false
		ls.fd, ls.err = OpenDirAt(fd, name)
	}
}

// prepare lists the directory open at ls.fd, which is name in the
// directory whose rules are parent ("" for the start), whose path is rel
// and whose entries are at depth, and readies it for the visit: its own .gitignore added to
// the rules, what the walk never meets left out, the rest sorted. When it
// has no subdirectory the walk may enter, its descriptor is closed at
// once (the visit reaches entries by path). It may run on any goroutine.
func (w *walker) prepare(ls *listing, parent *Ignore, name, rel string, depth int) {
	if ls.prepared || ls.err != nil {
		return
	}
	ls.prepared = true
	all, err := ReadDirFD(ls.fd, w.opts.Links)
	if err != nil {
		ls.err = err
		return
	}
	ls.ig, ls.igBad, ls.igErr = parent.Child(name, ls.fd, slices.ContainsFunc(all, func(e DirEntry) bool { return slices.Contains(IgnoreFiles, e.Name) }))
	ents := all[:0]
	for _, e := range all {
		switch {
		case w.opts.SkipGit && e.IsDir && e.Name == ".git":
			ls.gitSkipped = true
			continue
		case IsTempName(e.Name):
			continue
		}
		if w.opts.Override != nil {
			if keep, ok := w.opts.Override(JoinRel(rel, e.Name), e.IsDir && !e.IsLink); ok {
				if keep {
					ents = append(ents, e)
				}
				continue
			}
		}
		if !w.opts.Hidden && IsHidden(e.Name) || ls.ig.Ignored(e.Name, e.IsDir && !e.IsLink) {
			continue
		}
		ents = append(ents, e)
	}
	if w.opts.Compare != nil {
		slices.SortFunc(ents, w.opts.Compare)
	} else {
		slices.SortFunc(ents, func(a, b DirEntry) int { return strings.Compare(a.Name, b.Name) })
	}
	ls.ents = ents
	if !slices.ContainsFunc(ents, func(e DirEntry) bool { return w.enterable(e, depth) }) {
		unix.Close(ls.fd)
		ls.fd = -1
	}
}

// prefetch opens and prepares the subdirectory name (whose path is rel)
// of the directory at fd (whose rules are ig), whose entries are at depth, on another
// goroutine, unless maxAhead listings already wait; then the directory is
// opened (see open) and prepared when the walk gets there, so a directory
// with more subdirectories than descriptors the process may hold is walked
// whole.
func (w *walker) prefetch(fd int, ig *Ignore, name, rel string, depth int) *listing {
	ls := &listing{fd: -1}
	if w.ahead >= maxAhead {
		ls.done, ls.later = closedChan, true
		return ls
	}
	w.ahead++
	ls.ahead, ls.done = true, make(chan struct{})
	go func() {
		defer close(ls.done)
		w.workers <- struct{}{}
		defer func() { <-w.workers }()
		if ls.fd, ls.err = OpenDirAt(fd, name); ls.err == nil {
			w.prepare(ls, ig, name, rel, depth)
		}
	}()
	return ls
}

func (w *walker) release(ls *listing) {
	<-ls.done
	if ls.fd >= 0 {
		unix.Close(ls.fd)
		ls.fd = -1
	}
	if ls.ahead {
		ls.ahead = false
		w.ahead--
	}
}

// failed counts a directory that could not be read and reports it.
func (w *walker) failed(rel string, err error) {
	w.unreadable++
	if w.opts.Unreadable != nil {
		w.opts.Unreadable(rel, err)
	}
}

// enterable reports whether the walk may enter a directory entry at depth.
func (w *walker) enterable(e DirEntry, depth int) bool {
	return e.IsDir && !e.IsLink && (w.opts.MaxDepth == 0 || depth < w.opts.MaxDepth)
}

// dir visits the entries of the directory ls, which is name in the
// directory whose .gitignore rules are parent ("" for the start).
func (w *walker) dir(ls *listing, rel string, dirLoc Loc, parent *Ignore, name string, depth int, data any) {
	defer w.release(ls)
	<-ls.done
	w.prepare(ls, parent, name, rel, depth)
	if ls.err != nil {
		w.failed(rel, ls.err)
		return
	}
	if ls.igErr != nil && w.opts.Unreadable != nil {
		// Its rules are not applied: what they leave out is met. Said
		// as of an unreadable directory, so that nothing shows more
		// than it should without a word.
		w.opts.Unreadable(JoinRel(rel, ls.igBad), ls.igErr)
	}
	if ls.gitSkipped && w.opts.GitSkipped != nil {
		w.opts.GitSkipped(JoinRel(rel, ".git"))
	}
	ents, ig := ls.ents, ls.ig
	// Subdirectories are listed ahead, in the order they will be visited.
	ahead := make([]*listing, len(ents))
	for i, e := range ents {
		if w.enterable(e, depth) {
			ahead[i] = w.prefetch(ls.fd, ig, e.Name, JoinRel(rel, e.Name), depth+1)
		}
	}
	defer func() {
		for _, a := range ahead {
			if a != nil {
				w.release(a)
			}
		}
	}()
	we := &WalkEntry{Depth: depth, Parent: data, dirRel: rel, dirLoc: dirLoc}
	for i, e := range ents {
		if w.ctx.Err() != nil {
			return
		}
		we.DirEntry = e
		enter, cdata := w.visit(we)
		a := ahead[i]
		if a == nil {
			continue
		}
		ahead[i] = nil
		if !enter {
			w.release(a)
			continue
		}
		<-a.done
		a.open(ls.fd, e.Name)
		if a.err != nil {
			w.failed(we.Rel(), a.err)
			w.release(a)
			continue
		}
		w.dir(a, we.Rel(), we.Loc(), ig, e.Name, depth+1, cdata)
	}
}

// ReadDir lists the directory at l, in name order (bytewise), without ws's
// temporary files; symlinks are read for their target's type and text.
func (fsys *FS) ReadDir(l Loc) ([]DirEntry, error) {
	fd, err := fsys.Open(l, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	es, err := ReadDirFD(fd, true)
	if err != nil {
		return nil, err
	}
	kept := es[:0]
	for _, e := range es {
		if !IsTempName(e.Name) {
			kept = append(kept, e)
		}
	}
	slices.SortFunc(kept, func(a, b DirEntry) int { return strings.Compare(a.Name, b.Name) })
	return kept, nil
}

// SkipReason says in a few words why a walk could not look into or at
// a path (grep, glob and ls name the paths they skip).
func SkipReason(err error) string {
	switch err {
	case unix.EXDEV:
		return "symlink outside the workspace"
	case unix.EACCES, unix.EPERM:
		return "permission denied"
	case unix.ELOOP, errs.ErrLinkLoop:
		return "symlink loop"
	case unix.ENOENT, unix.ENOTDIR:
		return "gone while searching"
	case unix.EIO:
		return "input/output error"
	}
	if errno, ok := err.(unix.Errno); ok {
		return "read error: " + errno.Error()
	}
	return "read error: " + err.Error()
}
