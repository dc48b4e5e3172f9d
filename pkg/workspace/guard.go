package workspace

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/statefile"
)

// isoMillis formats a time as Node's fs.Stats dates print with
// toISOString: the time in milliseconds as the double sec·1e3 + nsec/1e6,
// rounded half up (Math.round), so .987654321 s is .988 and .000499999 s,
// which that double holds as .5 ms, is .001.
func isoMillis(t time.Time) string {
	ms := float64(t.Unix())*1e3 + float64(t.Nanosecond())/1e6
	r := math.Floor(ms)
	if ms-r >= 0.5 {
		r++
	}
	return time.UnixMilli(int64(r)).UTC().Format("2006-01-02T15:04:05.000Z")
}

// staleTimes formats the recorded and current times of a file for a
// stale-write message: Mastra's millisecond forms when they differ;
// otherwise (the change is below a millisecond, or only the size changed)
// nanoseconds, with the sizes when they differ.
func staleTimes(a, b time.Time, sizeA, sizeB int64) (x, y, sizes string) {
	x, y = isoMillis(a), isoMillis(b)
	if x != y {
		return x, y, ""
	}
	x, y = a.UTC().Format("2006-01-02T15:04:05.000000000Z"), b.UTC().Format("2006-01-02T15:04:05.000000000Z")
	if sizeA != sizeB {
		sizes = fmt.Sprintf("; expected size %d bytes, actual %d bytes", sizeA, sizeB)
	}
	return x, y, sizes
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
	if path == "" {
		return nil, nil, errs.EmptyFilePath()
	}
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

// stateFile reports whether the real path real lies in ws's state
// directory, one that does not hold the workspace (--state-dir .. would
// make every file of it one).
func (w *Workspace) stateFile(real string) bool {
	return w.inState(real) && !w.fs.HoldsRoot(fsroot.RealpathPartial(w.stateDir))
}

// guardAt is guardWrite for a write to l, whose real path is real. A
// file in ws's state directory (in the workspace when the user put it
// there) is refused, as delete and move refuse it: its records are ws's.
func (w *Workspace) guardAt(t *fsroot.Target, l fsroot.Loc, real, toolID string) (*writeGuard, error) {
	if w.stateFile(real) {
		return nil, errs.Protected(strings.TrimPrefix(toolID, "mastra_workspace_"), t.Input, "it is in ws's state directory")
	}
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
	policy := w.readPolicy(toolID)
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
	readAt, now, sizes := staleTimes(time.Unix(0, rec.MtimeNS), cur.Mtime(), rec.Size, cur.Size)
	if policy {
		return errs.ModifiedSinceRead(t.Input, readAt, now, sizes)
	}
	return errs.ModifiedExternally(t.Input, readAt, now, sizes)
}

// readPolicy is the requireReadBeforeWrite of the tool toolID: its own
// setting; for ws's tools that edit files (multi_edit, apply_patch,
// notebook_edit) without one, edit_file's. Otherwise a policy set on
// edit_file was no policy at all for a model offered them too.
func (w *Workspace) readPolicy(toolID string) bool {
	switch toolID {
	case MultiEdit, ApplyPatch, NotebookEdit:
		if w.cfg.Tool(toolID).RequireReadBeforeWrite == nil {
			toolID = EditFile
		}
	}
	return w.cfg.RequireReadBeforeWrite(toolID)
}
