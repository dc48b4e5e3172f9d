package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/statefile"
)

// readRecord is what the read tracker remembers about one file for one
// thread: its identity and its size and mtime when the thread last saw it.
type readRecord struct {
	Path    statefile.String `json:"path"`     // real absolute path (the key), its bytes kept
	Scope   string           `json:"scope"`    // "local:<real base path>"
	ReadAt  string           `json:"read_at"`  // RFC 3339, UTC
	Mtime   string           `json:"mtime"`    // RFC 3339 with nanoseconds, UTC
	MtimeNS int64            `json:"mtime_ns"` // the comparison uses these two
	Size    int64            `json:"size"`
}

func hashHex(s string, n int) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:n]
}

// threadDir is the read tracker's directory for this workspace's thread.
// Thread ids are data: they are hashed, never used as path components.
func (w *Workspace) threadDir() string {
	name := "workspace"
	if w.thread != "" {
		name = "thread-" + hashHex(w.thread, 32)
	}
	return filepath.Join(w.stateDir, "reads", name)
}

func (w *Workspace) recordFile(real string) string {
	return filepath.Join(w.threadDir(), hashHex(real, 32)+".json")
}

func (w *Workspace) scope() string { return "local:" + w.fs.RealBase() }

// recordRead remembers that this thread has seen the file at real with st.
func (w *Workspace) recordRead(real string, st fsroot.FileStat) error {
	if w.stateDir == "" {
		return nil
	}
	rec := readRecord{
		Path:    statefile.String(real),
		Scope:   w.scope(),
		ReadAt:  w.now().UTC().Format(time.RFC3339Nano),
		Mtime:   st.Mtime().UTC().Format(time.RFC3339Nano),
		MtimeNS: st.MtimeNS,
		Size:    st.Size,
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return w.writeStateFile(w.recordFile(real), append(data, '\n'))
}

// recordWrite tells the read tracker about a file this thread just wrote:
// records come from reads, so a thread that has a record of the file gets
// it updated to the new size and mtime (it knows the content it wrote),
// and a blind write (no record) leaves none behind. A later write of a
// file never read is then blind too and never fails as stale. The file is
// written already: a record that cannot be updated (a full or unwritable
// state directory) is dropped with a warning (untrack), not made the
// call's failure. It returns nil.
func (w *Workspace) recordWrite(real string, st fsroot.FileStat) error {
	if w.stateDir == "" {
		return nil
	}
	if _, err := os.Stat(w.recordFile(real)); err != nil {
		return nil
	}
	if err := w.recordRead(real, st); err != nil {
		w.untrack(real, "write", err)
	}
	return nil
}

// untrack drops this thread's record of the file at real after the read
// tracker failed (err) to record a write (what) of it, and warns.
// The tool did its work; a record left as it was would refuse this
// thread's next write of the file as modified by someone else.
func (w *Workspace) untrack(real, what string, err error) {
	name := filepath.Base(real)
	if rel, ok := fsroot.Within(w.fs.RealBase(), real); ok {
		name = rel
	}
	if rerr := os.Remove(w.recordFile(real)); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
		w.warn(fmt.Sprintf("the read tracker could not record this %s of %s (%v), nor drop its earlier record: a next write of the file may be refused as modified since", what, name, err))
		return
	}
	w.warn(fmt.Sprintf("the read tracker could not record this %s of %s (%v); it keeps no record of the file now", what, name, err))
}

// lookupRead returns this thread's record of the file at real, or nil.
// A record that cannot be decoded, or that names another file, is reported
// rather than trusted.
func (w *Workspace) lookupRead(real, input string) (*readRecord, error) {
	if w.stateDir == "" {
		return nil, nil
	}
	file := w.recordFile(real)
	data, err := statefile.Read(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, errs.ReadRecordUnreadable(input, err)
	}
	var rec readRecord
	if err := json.Unmarshal(data, &rec); err != nil || string(rec.Path) != real {
		return nil, errs.ReadRecordCorrupt(input, err)
	}
	return &rec, nil
}

// writeStateFile writes a state file atomically (see pkg/statefile).
func (w *Workspace) writeStateFile(file string, data []byte) error {
	if err := statefile.Write(file, data); err != nil {
		return w.stateError(err)
	}
	return nil
}

// stateError is a failure in the state directory as a tool error. Its
// message names the files relative to the state directory, never the
// machine's absolute path; a state directory that is itself unusable is
// named, with the reason.
func (w *Workspace) stateError(err error) error {
	if p := statefile.DirProblem(w.stateDir, err); p != "" {
		return errs.StateDir(w.stateDir, p, err)
	}
	return errs.State(statefile.Relative(w.stateDir, err))
}

// lockPath takes the write lock of the file at real, waiting at most
// tools.writeLockTimeoutMs in all. The lock is an flock(2) on a file in the
// state directory, so a writer that dies never leaves it held. Lock files
// are removed by pruneLocks; to make that safe, a taker holds a shared lock
// on locks/.gc from opening its lock file until it holds (or gives up) the
// lock, and pruning takes .gc exclusively: a file can then only be removed
// while nobody has it open to wait on. The wait for .gc counts against the
// same timeout, so a pruner that was stopped (SIGSTOP) holding it cannot
// hold up writers for longer.
func (w *Workspace) lockPath(real, input string) (*statefile.Lock, error) {
	if w.stateDir == "" {
		return nil, nil
	}
	dir := filepath.Join(w.stateDir, "locks")
	ms := w.cfg.Tools.WriteLockTimeoutMs
	deadline := time.Now().Add(time.Duration(ms) * time.Millisecond)
	gc, err := statefile.AcquireSharedWait(context.Background(), filepath.Join(dir, ".gc"), time.Until(deadline))
	switch {
	case errors.Is(err, statefile.ErrLockTimeout):
		return nil, errs.WriteLockTimeout(input, normalizeKey(input), ms)
	case err != nil:
		return nil, w.stateError(err)
	}
	defer gc.Release()
	l, err := statefile.Acquire(filepath.Join(dir, hashHex(real, 32)+".lock"), max(time.Until(deadline), 0))
	switch {
	case errors.Is(err, statefile.ErrLockTimeout):
		return nil, errs.WriteLockTimeout(input, normalizeKey(input), ms)
	case err != nil:
		return nil, w.stateError(err)
	}
	return l, nil
}

// pruneLocks removes the lock files nobody holds or waits on. It gives up
// at once (and removes nothing) while any writer is taking a lock.
func (w *Workspace) pruneLocks() int {
	dir := filepath.Join(w.stateDir, "locks")
	gc, ok := statefile.TryAcquire(filepath.Join(dir, ".gc"))
	if !ok {
		return 0
	}
	defer gc.Release()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	removed := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".lock") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if l, ok := statefile.TryAcquire(path); ok {
			if os.Remove(path) == nil {
				removed++
			}
			l.Release()
		}
	}
	return removed
}
