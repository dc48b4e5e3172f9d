package procstate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/statefile"
)

// commitRecord makes a record directory in s and commits r in it, as a
// supervisor does for the process it starts.
func commitRecord(t *testing.T, s *Store, r *Record) {
	t.Helper()
	dir, err := s.NewDir()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(dir, r); err != nil {
		t.Fatal(err)
	}
}

func TestStoreListFind(t *testing.T) {
	s := Open(t.TempDir())
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	add := func(pid int, start uint64, root string, at time.Duration) {
		t.Helper()
		commitRecord(t, s, &Record{PID: pid, StartTime: start, Root: statefile.String(root), StartedAt: t0.Add(at)})
	}
	if all, err := s.All(); err != nil || all != nil {
		t.Fatalf("empty store: %v %v", all, err)
	}
	add(10, 1, "/a", 2*time.Second)
	add(10, 5, "/a", 5*time.Second) // pid 10 again, later
	add(11, 2, "/b", time.Second)
	add(12, 3, "/a", 3*time.Second)
	// A corrupt record and a directory still being made are skipped.
	if err := os.MkdirAll(s.Dir("13-4"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.Dir("13-4"), "record.json"), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.NewDir(); err != nil {
		t.Fatal(err)
	}

	ids := func(es []*Entry) (out []string) {
		for _, e := range es {
			out = append(out, e.Record.ID)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		got  []*Entry
		want []string
	}{
		{"all, oldest first", must(s.All()), []string{"11-2", "10-1", "12-3", "10-5"}},
		{"list of one root", must(s.List("/a")), []string{"10-1", "12-3", "10-5"}},
		{"list of the other", must(s.List("/b")), []string{"11-2"}},
		{"list of none", must(s.List("/c")), nil},
	} {
		if got := ids(tc.got); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	// The corrupt record is counted (whatever root it had), the directory
	// still being made is not.
	if es, skipped, err := s.ListSkipped("/a"); err != nil || len(es) != 3 || !slices.Equal(skipped, []string{"13-4"}) {
		t.Errorf("ListSkipped: %d records, skipped %q, %v; want 3 and [13-4]", len(es), skipped, err)
	}
	for _, tc := range []struct {
		root string
		pid  int
		want string
	}{
		{"/a", 10, "10-5"}, // the newest of two
		{"/a", 12, "12-3"},
		{"/a", 11, ""}, // another root's
		{"/b", 11, "11-2"},
		{"/a", 1, ""}, // a prefix of 10 and 11 is not their pid
	} {
		e, err := s.Find(tc.root, tc.pid)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if e != nil {
			got = e.Record.ID
		}
		if got != tc.want {
			t.Errorf("Find(%s, %d) = %q, want %q", tc.root, tc.pid, got, tc.want)
		}
	}
}

// A pid whose only record cannot be read is not "no such process": Find
// says which record is damaged, and RemoveDamaged removes it once the
// process it names has ended (not while it runs, nor a record that reads
// well).
func TestDamagedRecord(t *testing.T) {
	s := Open(t.TempDir())
	damage := func(id string) {
		if err := os.MkdirAll(s.Dir(id), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(s.Dir(id), "record.json"), []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	damage("13-4")
	_, err := s.Find("/a", 13)
	var de *DamagedError
	if !errors.As(err, &de) || de.ID != "13-4" || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Find of a damaged record: %v, want a DamagedError of 13-4", err)
	}
	if e, err := s.Find("/a", 14); e != nil || err != nil {
		t.Errorf("Find(14) = %v, %v; want nothing", e, err)
	}
	// This process's own record, damaged: it runs, so it stays.
	self, err := StartTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	live := fmt.Sprintf("%d-%d", os.Getpid(), self)
	damage(live)
	for _, tc := range []struct {
		id   string
		want bool
	}{{"13-4", true}, {live, false}, {"13-4", false}, {"nope", false}} {
		if got, err := s.RemoveDamaged(tc.id); got != tc.want || err != nil {
			t.Errorf("RemoveDamaged(%s) = %v, %v; want %v", tc.id, got, err, tc.want)
		}
	}
	if _, skipped, _ := s.ListSkipped("/a"); !slices.Equal(skipped, []string{live}) {
		t.Errorf("left: %q, want only %s", skipped, live)
	}
}

func must(es []*Entry, err error) []*Entry {
	if err != nil {
		panic(err)
	}
	return es
}

// A cursor is written into its record's directory, and never makes a
// removed one again (a follow still running while ws destroy removed the
// state directory brought a procs/ID/seen back).
func TestWriteCursorRemovedRecord(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "procs", "7-1")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	want := Cursor{Stdout: 3, Stderr: 4}
	if err := WriteCursor(dir, "t", want); err != nil {
		t.Fatal(err)
	}
	if err := WriteCursor(dir, "t", want); err != nil { // seen/ exists now
		t.Fatal(err)
	}
	if got, err := ReadCursor(dir, "t"); err != nil || got != want {
		t.Fatalf("read back %+v %v, want %+v", got, err, want)
	}
	if err := os.RemoveAll(filepath.Dir(dir)); err != nil {
		t.Fatal(err)
	}
	if err := WriteCursor(dir, "t", want); err == nil {
		t.Error("a cursor was written into a removed record")
	}
	if _, err := os.Stat(filepath.Dir(dir)); !os.IsNotExist(err) {
		t.Errorf("the removed directory came back: %v", err)
	}
}

// A reader racing Remove (ws ps --prune in another process) finds an
// exited record whole or not at all, never without its exit: before, the
// directory was deleted file by file, exit.json could go first, and ws ps
// and ps-output showed the exited process as lost ("its supervisor was
// killed"). Remove now renames the directory away first: while its files
// are deleted, Load of its id says it does not exist.
func TestRemoveNeverShowsRecordWithoutExit(t *testing.T) {
	s := Open(t.TempDir())
	commitRecord(t, s, &Record{PID: 21, StartTime: 7, Root: "/a"})
	const id = "21-7"
	if err := s.WriteExit(id, &Exit{ExitCode: 3}); err != nil {
		t.Fatal(err)
	}
	if e, err := s.Load(id); err != nil || e.Exit == nil {
		t.Fatalf("before Remove: %+v %v, want the record with its exit", e, err)
	}
	// A directory a killed Remove left behind is swept up.
	left := filepath.Join(s.dir, goneDirPrefix+"9-9-1-1")
	if err := os.MkdirAll(filepath.Join(left, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	seen := 0
	removeTree = func(path string) error {
		if filepath.Base(path) != filepath.Base(left) {
			seen++
			// Its exit.json deleted first, as os.RemoveAll may.
			os.Remove(filepath.Join(path, "exit.json"))
			e, err := s.Load(id)
			if !errors.Is(err, os.ErrNotExist) {
				t.Errorf("Load while the record is being removed: %+v %v, want it gone", e, err)
			}
			if all, err := s.All(); err != nil || len(all) != 0 {
				t.Errorf("All while the record is being removed: %v %v, want none", all, err)
			}
		}
		return os.RemoveAll(path)
	}
	defer func() { removeTree = os.RemoveAll }()
	if err := s.Remove(id); err != nil {
		t.Fatal(err)
	}
	if seen != 1 {
		t.Fatalf("the record's directory was deleted %d times, want once", seen)
	}
	if names, _ := os.ReadDir(s.dir); len(names) != 0 {
		t.Errorf("left in the store: %v", names)
	}
	if err := s.Remove(id); err != nil {
		t.Errorf("Remove of a removed record: %v, want none", err)
	}
}

// A Load that has read record.json when the record is taken away reads
// no exit.json and must not take that for a process without an exit.
func TestLoadExitOfRemovedRecord(t *testing.T) {
	s := Open(t.TempDir())
	commitRecord(t, s, &Record{PID: 22, StartTime: 8, Root: "/a"})
	if x, err := s.loadExit("22-8"); x != nil || err != nil {
		t.Fatalf("no exit yet: %+v %v, want none", x, err)
	}
	if err := os.Rename(s.Dir("22-8"), filepath.Join(s.dir, goneDirPrefix+"22-8-1-1")); err != nil {
		t.Fatal(err)
	}
	if x, err := s.loadExit("22-8"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("exit of a record taken away: %+v %v, want ErrNotExist", x, err)
	}
}
