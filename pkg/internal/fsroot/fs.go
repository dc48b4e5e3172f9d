package fsroot

import (
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Options describe the directories a workspace may touch.
type Options struct {
	Base         string   // the workspace base path (absolute, cleaned)
	Home         string   // what `~` expands to
	AllowedPaths []string // further directories, absolute or relative to Base
	Contained    bool     // refuse paths outside Base and AllowedPaths
	Now          func() time.Time
}

// FS is the workspace's filesystem: every path a tool is given goes
// through its Resolve, and every file is then opened beneath the allowed
// root that holds it.
type FS struct {
	base      string
	home      string
	roots     []*allowedRoot
	contained bool
	now       func() time.Time

	mu      sync.Mutex
	rootFDs map[*allowedRoot]int
	osRoots map[*allowedRoot]*os.Root // the fallback where openat2 is missing
}

// New returns the filesystem of a workspace.
func New(o Options) *FS {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	fsys := &FS{
		base:      o.Base,
		home:      o.Home,
		contained: o.Contained,
		now:       now,
		rootFDs:   map[*allowedRoot]int{},
		osRoots:   map[*allowedRoot]*os.Root{},
	}
	fsys.roots = append(fsys.roots, &allowedRoot{path: o.Base, real: RealpathPartial(o.Base)})
	for _, p := range o.AllowedPaths {
		abs := fsys.Absolute(p)
		fsys.roots = append(fsys.roots, &allowedRoot{path: abs, real: RealpathPartial(abs)})
	}
	return fsys
}

// Base is the workspace base path.
func (fsys *FS) Base() string { return fsys.base }

// RealBase is the base path with symlinks resolved.
func (fsys *FS) RealBase() string { return fsys.roots[0].real }

// Contained reports whether paths outside the allowed roots are refused.
func (fsys *FS) Contained() bool { return fsys.contained }

// AllowedRoots lists the allowed roots after the base path: as configured
// (absolute) and with symlinks resolved.
func (fsys *FS) AllowedRoots() (paths, reals []string) {
	for _, r := range fsys.roots[1:] {
		paths, reals = append(paths, r.path), append(reals, r.real)
	}
	return paths, reals
}

// BelowBase is the place sub (a clean, slash-separated relative path that
// does not climb out) below the base path; ok is false when the workspace
// is not contained, where places have no root.
func (fsys *FS) BelowBase(sub string) (l Loc, ok bool) {
	if !fsys.contained {
		return Loc{}, false
	}
	return Loc{root: fsys.roots[0], sub: sub, abs: filepath.Join(fsys.base, filepath.FromSlash(sub))}, true
}

// Close releases the descriptors the filesystem holds.
func (fsys *FS) Close() error {
	fsys.mu.Lock()
	defer fsys.mu.Unlock()
	for r, fd := range fsys.rootFDs {
		closeFD(fd)
		delete(fsys.rootFDs, r)
	}
	for r, root := range fsys.osRoots {
		root.Close()
		delete(fsys.osRoots, r)
	}
	return nil
}
