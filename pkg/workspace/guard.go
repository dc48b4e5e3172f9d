package workspace

import (
	"fmt"
	"time"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/statefile"
)

// isoMillis formats a time as JavaScript's toISOString does.
func isoMillis(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// isoPair formats two times for a message, with nanoseconds when the
// millisecond forms would look the same (or are: only the size changed).
func isoPair(a, b time.Time) (string, string) {
	x, y := isoMillis(a), isoMillis(b)
	if x == y {
		x, y = a.UTC().Format("2006-01-02T15:04:05.000000000Z"), b.UTC().Format("2006-01-02T15:04:05.000000000Z")
	}
	return x, y
}

// writeGuard is held while a tool changes one file: the cross-process write
// lock, and what the read tracker knew of the file.
type writeGuard struct {
	lock *statefile.Lock
	real string     // real path: the lock, read-tracker and history key
	loc  fsroot.Loc // where the write goes: a final symlink followed
}

func (g *writeGuard) release() { g.lock.Release() }

// resolveGuarded resolves path and takes its write guard (guardWrite):
// where every tool that writes one file starts.
func (w *Workspace) resolveGuarded(path, toolID string) (*fsroot.Target, *writeGuard, error) {
	t, err := w.fs.Resolve(path)
	if err != nil {
		return nil, nil, err
	}
	g, err := w.guardWrite(t, toolID)
	return t, g, err
}

// guardWrite takes the write lock of t and applies the read tracker's one
// rule: a write is refused when this thread read the file and its size or
// mtime (in nanoseconds) has changed since; with requireReadBeforeWrite, an
// existing file must also have been read by this thread first.
func (w *Workspace) guardWrite(t *fsroot.Target, toolID string) (*writeGuard, error) {
	l, real := w.writeDest(t)
	return w.guardAt(t, l, real, toolID)
}

// writeDest is where a write to t goes (a final symlink followed) and its
// real path.
func (w *Workspace) writeDest(t *fsroot.Target) (fsroot.Loc, string) {
	l := t.Loc()
	if dest, err := w.fs.FollowFinalLink(l); err == nil {
		l = dest
	}
	return l, w.fs.RealPath(l)
}

// guardAt is guardWrite for a write to l, whose real path is real.
func (w *Workspace) guardAt(t *fsroot.Target, l fsroot.Loc, real, toolID string) (*writeGuard, error) {
	lock, err := w.lockPath(real, t.Input)
	if err != nil {
		return nil, err
	}
	g := &writeGuard{lock: lock, real: real, loc: l}
	if err := w.checkFresh(t, l, real, toolID); err != nil {
		g.release()
		return nil, err
	}
	return g, nil
}

func (w *Workspace) checkFresh(t *fsroot.Target, l fsroot.Loc, real, toolID string) error {
	cur, statErr := w.fs.Stat(l)
	exists := statErr == nil && !cur.IsDir()
	if !exists {
		return nil
	}
	rec, err := w.lookupRead(real, t.Input)
	if err != nil {
		return err
	}
	policy := w.cfg.RequireReadBeforeWrite(toolID)
	if policy {
		switch {
		case rec == nil:
			return errs.ReadRequired(t.Input)
		case rec.Scope != w.scope():
			return errs.ReadElsewhere(t.Input)
		}
	}
	if rec == nil || (cur.MtimeNS == rec.MtimeNS && cur.Size == rec.Size) {
		return nil
	}
	readAt, now := isoPair(time.Unix(0, rec.MtimeNS), cur.Mtime())
	sizes := ""
	if cur.Size != rec.Size {
		sizes = fmt.Sprintf("; expected size %d bytes, actual %d bytes", rec.Size, cur.Size)
	}
	if policy {
		return errs.ModifiedSinceRead(t.Input, readAt, now, sizes)
	}
	return errs.ModifiedExternally(t.Input, readAt, now, sizes)
}
