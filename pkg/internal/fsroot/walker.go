package fsroot

import (
	"context"
	"slices"
	"strings"

	"github.com/wstools/ws/pkg/gitignore"
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

// prefetchSlots bounds the directories a walk lists ahead of its visit
// (each holds a descriptor until the walk reaches it).
const prefetchSlots = 16

// Walk visits the tree below the directory at start depth-first, each directory's
// entries in order, calling visit once per entry from one goroutine. For a
// directory, visit answers whether to enter it and what its entries get as
// Parent. While visit works through one directory, the subdirectories it
// is likely to enter are listed ahead on other goroutines, so the walk
// reads the disk in parallel yet visits in a fixed order. It stops early
// when ctx is done. It fails when the start directory cannot be opened or
// read; otherwise it returns how many directories below it could not be.
// Entries' Rel paths start with rel, the start directory's own.
func (fsys *FS) Walk(ctx context.Context, start Loc, rel string, opts WalkOptions, data any, visit func(e *WalkEntry) (enter bool, data any)) (unreadable int, err error) {
	fd, err := fsys.Open(start, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return 0, err
	}
	w := &walker{ctx: ctx, opts: opts, visit: visit, slots: make(chan struct{}, prefetchSlots)}
	ls := &listing{fd: fd, done: closedChan}
	if w.read(ls); ls.err != nil {
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
	slots      chan struct{}
	unreadable int
}

// listing is a directory opened and read, perhaps ahead of time.
type listing struct {
	fd      int
	ents    []DirEntry
	err     error
	read    bool
	done    chan struct{}
	hasSlot bool
}

func (w *walker) read(ls *listing) {
	if ls.err == nil && !ls.read {
		ls.ents, ls.err = ReadDirFD(ls.fd, w.opts.Links)
		ls.read = true
	}
}

// prefetch opens and lists the subdirectory name of the directory at fd on
// another goroutine when a slot is free; otherwise the listing is done when
// the walk gets there.
func (w *walker) prefetch(fd int, name string) *listing {
	ls := &listing{fd: -1}
	select {
	case w.slots <- struct{}{}:
	default:
		ls.done = closedChan
		ls.fd, ls.err = OpenDirAt(fd, name)
		return ls
	}
	ls.hasSlot, ls.done = true, make(chan struct{})
	go func() {
		defer close(ls.done)
		if ls.fd, ls.err = OpenDirAt(fd, name); ls.err == nil {
			w.read(ls)
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
	if ls.hasSlot {
		ls.hasSlot = false
		<-w.slots
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
	w.read(ls)
	if ls.err != nil {
		w.failed(rel, ls.err)
		return
	}
	ig := parent.Child(name, ls.fd, slices.ContainsFunc(ls.ents, func(e DirEntry) bool { return e.Name == gitignore.FileName }))
	ents := ls.ents[:0]
	for _, e := range ls.ents {
		switch {
		case w.opts.SkipGit && e.IsDir && e.Name == ".git":
			if w.opts.GitSkipped != nil {
				w.opts.GitSkipped(JoinRel(rel, e.Name))
			}
			continue
		case IsTempName(e.Name), !w.opts.Hidden && IsHidden(e.Name),
			ig.Ignored(e.Name, e.IsDir && !e.IsLink):
			continue
		}
		ents = append(ents, e)
	}
	if w.opts.Compare != nil {
		slices.SortFunc(ents, w.opts.Compare)
	} else {
		slices.SortFunc(ents, func(a, b DirEntry) int { return strings.Compare(a.Name, b.Name) })
	}
	// Subdirectories are listed ahead, in the order they will be visited.
	ahead := make([]*listing, len(ents))
	for i, e := range ents {
		if w.enterable(e, depth) {
			ahead[i] = w.prefetch(ls.fd, e.Name)
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
