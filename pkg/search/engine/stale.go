package engine

import (
	"context"
	"path"
	"runtime"
	"strings"
	"sync"

	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/search"
	"golang.org/x/sys/unix"
)

// sourceLoc finds an indexed file again. Relative ids (the usual case) are
// opened beneath the root directly; anything else goes through Resolve.
func (e *Engine) sourceLoc(id string) (fsroot.Loc, bool) {
	clean := path.Clean(strings.TrimPrefix(id, "./"))
	if !strings.HasPrefix(id, "/") && !strings.HasPrefix(id, "~") && clean != ".." && !strings.HasPrefix(clean, "../") && e.o.Files.Contained() {
		return e.o.Files.BelowBase(clean)
	}
	t, err := e.o.Files.Resolve(id)
	if err != nil {
		return fsroot.Loc{}, false
	}
	return t.Loc(), true
}

// staleSources lists the indexed files whose size or mtime changed, or
// that are gone. Files are checked with one fstatat(2) each, relative to
// their directory opened through the chokepoint (a symlink is followed
// through the chokepoint instead), by a few goroutines: ten thousand
// indexed files take a few milliseconds.
func (e *Engine) staleSources(ctx context.Context, r *search.Reader) []string {
	n := r.NumSources()
	if n == 0 {
		return nil
	}
	srcs := make([]search.Source, n)
	for i := range srcs {
		srcs[i] = r.Source(i)
	}
	workers := min(n/256+1, max(2, runtime.GOMAXPROCS(0)))
	var mu sync.Mutex
	var stale []string
	var wg sync.WaitGroup
	per := (n + workers - 1) / workers
	for k := 0; k < n; k += per {
		part := srcs[k:min(n, k+per)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			var st statChecker
			defer st.close()
			for _, s := range part {
				if ctx.Err() != nil {
					return
				}
				if !e.sourceFresh(&st, s) {
					mu.Lock()
					stale = append(stale, s.Path)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil
	}
	return stale
}

// statChecker keeps the directory of the last file checked open.
type statChecker struct {
	dir string
	fd  int
	ok  bool
}

func (c *statChecker) close() {
	if c.ok {
		unix.Close(c.fd)
		c.ok = false
	}
}

// sourceFresh reports whether an indexed file still has the size and
// mtime it was indexed with.
func (e *Engine) sourceFresh(c *statChecker, s search.Source) bool {
	l, ok := e.sourceLoc(s.Path)
	if !ok {
		return false
	}
	if l.InRoot() && l.Sub() != "." {
		dl, name := l.Parent()
		dir := dl.Sub()
		if !c.ok || c.dir != dir {
			c.close()
			if fd, err := e.o.Files.Open(dl, unix.O_PATH|unix.O_DIRECTORY, 0); err == nil {
				c.dir, c.fd, c.ok = dir, fd, true
			}
		}
		if c.ok && c.dir == dir {
			var st unix.Stat_t
			if err := unix.Fstatat(c.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				return false
			}
			if st.Mode&unix.S_IFMT != unix.S_IFLNK {
				return st.Size == s.Size && st.Mtim.Nano() == s.MtimeNS
			}
		}
	}
	st, err := e.o.Files.Stat(l)
	return err == nil && st.Size == s.Size && st.MtimeNS == s.MtimeNS
}

// refreshStale reads again the indexed files among paths that changed
// and drops the ones that are gone (SPEC 16b). It checks each again: the
// index may have been brought up to date by another process meanwhile.
func (e *Engine) refreshStale(ctx context.Context, x *search.Index, paths []string) {
	check := map[string]bool{}
	for _, p := range paths {
		check[p] = true
	}
	for _, s := range append([]search.Source(nil), x.Sources...) {
		if ctx.Err() != nil {
			return
		}
		if !check[s.Path] {
			continue
		}
		l, ok := e.sourceLoc(s.Path)
		if !ok {
			x.RemoveSource(s.Path)
			continue
		}
		st, err := e.o.Files.Stat(l)
		if err != nil {
			x.RemoveSource(s.Path)
			continue
		}
		if st.Size != s.Size || st.MtimeNS != s.MtimeNS {
			e.indexFile(x, autoFile{id: s.Path, loc: l})
		}
	}
}
