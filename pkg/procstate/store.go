package procstate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/wstools/ws/pkg/statefile"
)

// Record describes a started background process.
type Record struct {
	ID        string `json:"id"`  // directory name: <pid>-<start time>
	PID       int    `json:"pid"` // the shell running the command
	PGID      int    `json:"pgid"`
	StartTime uint64 `json:"start_time"` // /proc/<pid>/stat starttime, clock ticks after boot
	BootID    string `json:"boot_id"`
	// The strings keep their bytes in JSON (see Spec).
	Command   statefile.String `json:"command"`
	Cwd       statefile.String `json:"cwd"`
	Root      statefile.String `json:"root"` // the workspace that started it
	Thread    statefile.String `json:"thread,omitempty"`
	StartedAt time.Time        `json:"started_at"`
	TimeoutMs float64          `json:"timeout_ms,omitempty"` // fractions kept (older records: whole ms)
	// The supervisor (ws __supervise) that waits for the process.
	SupervisorPID   int    `json:"supervisor_pid"`
	SupervisorStart uint64 `json:"supervisor_start_time"`
	// SpareLeader: the leader of the group is bwrap, which signals that
	// ask must spare (see StopSignal).
	SpareLeader bool `json:"spare_leader,omitempty"`
	// TTY: the process runs on a pseudo-terminal (Spec.TTY): stdout.log
	// holds all its output, and its input goes to the terminal.
	TTY bool `json:"tty,omitempty"`
	// Foreground: a foreground command's run, filed once it had ended
	// (KeepRun): it had no supervisor, and its group is not recorded.
	Foreground bool `json:"foreground,omitempty"`
}

// Exit is how a background process ended.
type Exit struct {
	ExitCode int       `json:"exit_code"`
	Signal   int       `json:"signal,omitempty"` // the signal that ended it, if any
	TimedOut bool      `json:"timed_out,omitempty"`
	Killed   bool      `json:"killed,omitempty"` // ended by ws kill
	EndedAt  time.Time `json:"ended_at"`
	Error    string    `json:"error,omitempty"` // the supervisor could not run it
	// LostBytes counts the output the supervisor could not write to the
	// logs before the end (the state directory's file system was full).
	LostBytes int64 `json:"lost_bytes,omitempty"`
}

// Store is the procs/ directory of one state directory.
type Store struct{ dir string }

// Open returns the store under stateDir (created on first write).
func Open(stateDir string) *Store { return &Store{dir: filepath.Join(stateDir, "procs")} }

// Dir is the directory of one record.
func (s *Store) Dir(id string) string { return filepath.Join(s.dir, id) }

// NewDir creates a fresh directory for a process about to start; Commit
// renames it to its final id once the pid is known.
func (s *Store) NewDir() (string, error) {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return "", err
	}
	return os.MkdirTemp(s.dir, ".new-")
}

// Commit moves a NewDir directory to the record's id and writes the record,
// and the room its exit will take (see WriteExit).
func (s *Store) Commit(tmpDir string, rec *Record) error {
	_ = os.WriteFile(filepath.Join(tmpDir, exitRoomName), bytes.Repeat([]byte{' '}, exitRoomSize), 0o600)
	return s.commit(tmpDir, rec)
}

// commit writes the record into a NewDir directory and moves it to the
// record's id.
func (s *Store) commit(tmpDir string, rec *Record) error {
	rec.ID = fmt.Sprintf("%d-%d", rec.PID, rec.StartTime)
	if err := statefile.WriteJSON(filepath.Join(tmpDir, "record.json"), rec); err != nil {
		return err
	}
	return os.Rename(tmpDir, s.Dir(rec.ID))
}

// startLockName is the store's lock file. A start holds it shared from
// the moment its directory is made until its record is (LockStart), and
// ws destroy holds it exclusively while it stops the processes and
// removes their records (LockOutStarts): otherwise a record made after
// destroy listed them was removed with the rest, and its process ran on
// out of reach of ps, kill and destroy.
const startLockName = ".start.lock"

// LockStart takes the store's start lock shared (see startLockName),
// waiting while destroy holds it, at most timeout (statefile.ErrLockTimeout)
// and not past the end of ctx.
func (s *Store) LockStart(ctx context.Context, timeout time.Duration) (*statefile.Lock, error) {
	return s.lockStarts(func(path string) (*statefile.Lock, error) {
		return statefile.AcquireSharedWait(ctx, path, timeout)
	})
}

// LockOutStarts takes the store's start lock exclusively (see
// startLockName): it waits for the starts under way to have made their
// records, as long as a start may take, and keeps new starts waiting
// until it is released.
func (s *Store) LockOutStarts() (*statefile.Lock, error) {
	l, err := s.lockStarts(func(path string) (*statefile.Lock, error) { return statefile.Acquire(path, startTimeout+5*time.Second) })
	if errors.Is(err, statefile.ErrLockTimeout) {
		return nil, errors.New("background processes are still being started (procs/" + startLockName + " stays held)")
	}
	return l, err
}

// lockStarts takes the start lock with take. A lock on a file that was
// removed meanwhile (by destroy, which removes the store once it is
// done) is taken again on the file now at its path.
func (s *Store) lockStarts(take func(path string) (*statefile.Lock, error)) (*statefile.Lock, error) {
	path := filepath.Join(s.dir, startLockName)
	for {
		l, err := take(path)
		if err != nil || l.Is(path) {
			return l, err
		}
		l.Release()
	}
}

// Entry is a record with its exit, if it has one.
type Entry struct {
	Record Record
	Exit   *Exit
}

// Exited reports whether the process has ended (as far as the record says).
func (e *Entry) Exited() bool { return e.Exit != nil }

// ErrCorrupt marks a record that cannot be decoded.
var ErrCorrupt = errors.New("corrupt process record")

// Load reads the record and exit of one id.
func (s *Store) Load(id string) (*Entry, error) {
	var e Entry
	if err := readJSON(filepath.Join(s.Dir(id), "record.json"), &e.Record); err != nil {
		return nil, err
	}
	if e.Record.ID != id {
		return nil, fmt.Errorf("%w: %s names %q", ErrCorrupt, id, e.Record.ID)
	}
	x, err := s.loadExit(id)
	if err != nil {
		return nil, err
	}
	e.Exit = x
	return &e, nil
}

// loadExit reads the exit of the record id, nil when none is written
// yet. A record removed meanwhile (Remove takes its directory away
// before deleting its files) is fs.ErrNotExist, not a record without an
// exit: that is one whose process still runs or whose supervisor was
// killed, which a reader racing ws ps --prune was told before.
func (s *Store) loadExit(id string) (*Exit, error) {
	var x Exit
	err := readJSON(filepath.Join(s.Dir(id), "exit.json"), &x)
	switch {
	case err == nil:
		return &x, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	if _, err := os.Lstat(filepath.Join(s.Dir(id), "record.json")); err != nil {
		return nil, err
	}
	return nil, nil
}

// All returns every record in the store, whatever workspace it belongs
// to, oldest first. Corrupt records and directories still being made are
// skipped.
func (s *Store) All() ([]*Entry, error) {
	all, _, err := s.load(func(name string) bool { return !strings.HasPrefix(name, ".") })
	return all, err
}

// List returns every record that belongs to root, oldest first. Records of
// other workspaces (a shared state directory) and corrupt ones are skipped.
func (s *Store) List(root string) ([]*Entry, error) {
	out, _, err := s.ListSkipped(root)
	return out, err
}

// ListSkipped is List, and the ids of the records of the store it skipped
// because they cannot be read (damaged, or unreadable; whose they are is
// not known), in name order. A directory removed meanwhile is not counted.
func (s *Store) ListSkipped(root string) ([]*Entry, []string, error) {
	all, skipped, err := s.load(func(name string) bool { return !strings.HasPrefix(name, ".") })
	if err != nil {
		return nil, nil, err
	}
	out := all[:0]
	for _, e := range all {
		if string(e.Record.Root) == root {
			out = append(out, e)
		}
	}
	return out, skipped, nil
}

// DamagedError is Find's error when the only records of a pid cannot be
// read: one of them is ID.
type DamagedError struct {
	ID  string
	Err error
}

func (e *DamagedError) Error() string {
	return "process record " + e.ID + " is damaged: " + e.Err.Error()
}
func (e *DamagedError) Unwrap() error { return e.Err }

// Find returns the newest record of pid in root's records, or nil. When
// there is none but a record of pid cannot be read, the error is a
// *DamagedError: the process may be one of root's.
func (s *Store) Find(root string, pid int) (*Entry, error) {
	prefix := strconv.Itoa(pid) + "-"
	found, skipped, err := s.load(func(name string) bool { return strings.HasPrefix(name, prefix) })
	if err != nil {
		return nil, err
	}
	var best *Entry
	for _, e := range found {
		if string(e.Record.Root) == root && (best == nil || e.Record.StartedAt.After(best.Record.StartedAt)) {
			best = e
		}
	}
	if best == nil && len(skipped) > 0 {
		_, err := s.Load(skipped[0])
		if err == nil {
			err = ErrCorrupt // it has been mended meanwhile: ask again
		}
		return nil, &DamagedError{ID: skipped[0], Err: err}
	}
	return best, nil
}

// load reads the records whose directory name passes keep, oldest first;
// corrupt ones are skipped, and their ids returned (not one removed
// meanwhile).
func (s *Store) load(keep func(name string) bool) ([]*Entry, []string, error) {
	names, err := statefile.List(s.dir)
	if err != nil {
		return nil, nil, err
	}
	var out []*Entry
	var skipped []string
	for _, d := range names {
		if !d.IsDir() || !keep(d.Name()) {
			continue
		}
		switch e, err := s.Load(d.Name()); {
		case err == nil:
			out = append(out, e)
		case !errors.Is(err, fs.ErrNotExist):
			skipped = append(skipped, d.Name())
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Record.StartedAt.Before(out[j].Record.StartedAt) })
	return out, skipped, nil
}

// RemoveDamaged removes a record that cannot be read (one of
// ListSkipped's ids) when its process has ended (see DamagedEnded). It
// reports whether the record went; one whose process still runs, or that
// reads well again, stays.
func (s *Store) RemoveDamaged(id string) (bool, error) {
	if _, ended, ok := DamagedEnded(id); !ok || !ended {
		return false, nil
	}
	if _, err := s.Load(id); err == nil || errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err := s.Remove(id); err != nil {
		return false, err
	}
	return true, nil
}

// DamagedEnded tells of a record that cannot be read whether the process
// it was made for has ended: its directory's name, <pid>-<start time>,
// says which process that was. ok is false for a name that is no
// record's.
func DamagedEnded(id string) (pid int, ended, ok bool) {
	p, start, cut := strings.Cut(id, "-")
	n, err1 := strconv.Atoi(p)
	t, err2 := strconv.ParseUint(start, 10, 64)
	if !cut || err1 != nil || err2 != nil || n <= 0 || strings.HasPrefix(id, ".") {
		return 0, false, false
	}
	return n, !Same(n, t, ""), true
}

// The room for exit.json that Commit keeps: a file of exitRoomSize
// bytes, which WriteExit fills in place and renames.
const (
	exitRoomName = "exit.room"
	exitRoomSize = 1024
)

// WriteExit records how the process ended. The first exit written wins.
// The process's output may have filled the file system meanwhile, so the
// exit is written into the room the record kept for it, which takes no
// new space (the end was lost otherwise, and a reader took the process
// for one whose supervisor was killed); a record without one, or an exit
// that does not fit, is written as any state file is.
func (s *Store) WriteExit(id string, x *Exit) error {
	path := filepath.Join(s.Dir(id), "exit.json")
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	data, err := json.MarshalIndent(x, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if fillRoom(filepath.Join(s.Dir(id), exitRoomName), path, data) == nil {
		return nil
	}
	return statefile.Write(path, data)
}

// fillRoom writes data over the start of the file room, cuts it to
// data's length and renames it to path (atomically: a reader sees
// nothing at path until it is whole).
func fillRoom(room, path string, data []byte) error {
	f, err := os.OpenFile(room, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil && fi.Size() < int64(len(data)) {
		err = errors.New("the exit does not fit in the room kept for it")
	}
	if err == nil {
		_, err = f.WriteAt(data, 0)
	}
	if err == nil {
		err = f.Truncate(int64(len(data)))
	}
	if err = statefile.SyncClose(f, err); err == nil {
		err = os.Rename(room, path)
	}
	return err
}

// goneDirPrefix names a record's directory that Remove has taken away
// and is deleting (hidden, so no listing sees it).
const goneDirPrefix = ".gone-"

// removeTree deletes a directory and everything in it (a test seam).
var removeTree = os.RemoveAll

// Remove deletes a record and its logs. The directory is first renamed
// to a hidden name, in one step, and only then emptied: deleted in place,
// file by file, a reader could find the record without its exit.json
// (gone first) and take an exited process for one whose supervisor was
// killed. Such directories that a killed Remove left are deleted too.
func (s *Store) Remove(id string) error {
	gone := filepath.Join(s.dir, fmt.Sprintf("%s%s-%d-%d", goneDirPrefix, id, os.Getpid(), time.Now().UnixNano()))
	if err := os.Rename(s.Dir(id), gone); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed already, as os.RemoveAll has it
		}
		return err
	}
	if names, err := os.ReadDir(s.dir); err == nil {
		for _, n := range names {
			// Another Remove may be deleting it still: both may.
			if p := filepath.Join(s.dir, n.Name()); strings.HasPrefix(n.Name(), goneDirPrefix) && p != gone {
				_ = removeTree(p)
			}
		}
	}
	return removeTree(gone)
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrCorrupt, filepath.Base(path), err)
	}
	return nil
}
