package workspace

import (
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

	"github.com/wstools/ws/pkg/statefile"
	"golang.org/x/sys/unix"
)

// readRecord is what the read tracker remembers about one file for one
// thread: its identity and its size and mtime when the thread last saw it.
type readRecord struct {
	Path    string `json:"path"`     // real absolute path (the key)
	Scope   string `json:"scope"`    // "local:<real base path>"
	ReadAt  string `json:"read_at"`  // RFC 3339, UTC
	Mtime   string `json:"mtime"`    // RFC 3339 with nanoseconds, UTC
	MtimeNS int64  `json:"mtime_ns"` // the comparison uses these two
	Size    int64  `json:"size"`
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

func (w *Workspace) scope() string { return "local:" + w.roots[0].real }

// recordRead remembers that this thread has seen the file at real with st.
func (w *Workspace) recordRead(real string, st fileStat) error {
	if w.stateDir == "" {
		return nil
	}
	rec := readRecord{
		Path:    real,
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
	return writeStateFile(w.recordFile(real), append(data, '\n'))
}

// lookupRead returns this thread's record of the file at real, or nil.
// A record that cannot be decoded, or that names another file, is reported
// rather than trusted.
func (w *Workspace) lookupRead(real, input string) (*readRecord, error) {
	if w.stateDir == "" {
		return nil, nil
	}
	file := w.recordFile(real)
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &Error{Code: StateCorrupt, Path: input, Err: err,
			Message: fmt.Sprintf("cannot read the read-tracker record of %s: %s", input, errnoText(err))}
	}
	var rec readRecord
	if err := json.Unmarshal(data, &rec); err != nil || rec.Path != real {
		return nil, &Error{Code: StateCorrupt, Path: input, Err: err,
			Message: fmt.Sprintf("the read-tracker record of %s is corrupt; read the file again to rebuild it", input)}
	}
	return &rec, nil
}

// writeStateFile writes a state file atomically (see pkg/statefile).
func writeStateFile(file string, data []byte) error {
	if err := statefile.Write(file, data); err != nil {
		return stateError(err)
	}
	return nil
}

func stateError(err error) error {
	return &Error{Code: EIO, Message: "state directory: " + err.Error(), Err: err}
}

// writeLock is a held cross-process lock on one workspace file.
type writeLock struct{ fd int }

func (l *writeLock) release() {
	if l != nil && l.fd >= 0 {
		unix.Flock(l.fd, unix.LOCK_UN)
		unix.Close(l.fd)
		l.fd = -1
	}
}

// lockPath takes the write lock of the file at real, waiting at most
// tools.writeLockTimeoutMs. The lock is an flock(2) on a file in the state
// directory, so a writer that dies never leaves it held. Lock files are
// removed by pruneLocks; to make that safe, a taker holds a shared lock
// on locks/.gc from opening its lock file until it holds (or gives up) the
// lock, and pruning takes .gc exclusively: a file can then only be removed
// while nobody has it open to wait on.
func (w *Workspace) lockPath(real, input string) (*writeLock, error) {
	if w.stateDir == "" {
		return &writeLock{fd: -1}, nil
	}
	dir := filepath.Join(w.stateDir, "locks")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, stateError(err)
	}
	gc, err := unix.Open(filepath.Join(dir, ".gc"), unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, stateError(err)
	}
	defer unix.Close(gc)
	if err := flockRetry(gc, unix.LOCK_SH); err != nil {
		return nil, stateError(err)
	}
	fd, err := unix.Open(filepath.Join(dir, hashHex(real, 32)+".lock"), unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, stateError(err)
	}
	timeout := time.Duration(w.cfg.Tools.WriteLockTimeoutMs) * time.Millisecond
	deadline := time.Now().Add(timeout)
	wait := time.Millisecond
	for {
		err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return &writeLock{fd: fd}, nil
		}
		if err != unix.EWOULDBLOCK && err != unix.EINTR {
			unix.Close(fd)
			return nil, stateError(err)
		}
		left := time.Until(deadline)
		if left <= 0 {
			unix.Close(fd)
			return nil, &Error{Code: LockTimeout, Path: input, Message: fmt.Sprintf(
				"write-lock timeout on \"%s\" after %dms", normalizeKey(input), w.cfg.Tools.WriteLockTimeoutMs)}
		}
		time.Sleep(min(wait, left))
		wait = min(wait*2, 50*time.Millisecond)
	}
}

func flockRetry(fd, how int) error {
	for {
		if err := unix.Flock(fd, how); err != unix.EINTR {
			return err
		}
	}
}

// pruneLocks removes the lock files nobody holds or waits on. It gives up
// at once (and removes nothing) while any writer is taking a lock.
func (w *Workspace) pruneLocks() int {
	dir := filepath.Join(w.stateDir, "locks")
	gc, err := unix.Open(filepath.Join(dir, ".gc"), unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0
	}
	defer unix.Close(gc)
	if unix.Flock(gc, unix.LOCK_EX|unix.LOCK_NB) != nil {
		return 0
	}
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
		fd, err := unix.Open(path, unix.O_RDWR|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) == nil && os.Remove(path) == nil {
			removed++
		}
		unix.Close(fd)
	}
	return removed
}
