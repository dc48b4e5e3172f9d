package history

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func closeFD(fd int) { unix.Close(fd) }

const (
	helperDir  = "WS_HISTORY_HELPER_DIR"
	helperMode = "WS_HISTORY_HELPER_MODE"
	helperName = "WS_HISTORY_HELPER_NAME"
	helperMax  = "WS_HISTORY_HELPER_MAX"
)

// slowLockWait is the lock wait of the concurrency tests. They check that
// no change is lost or torn, not how fast the lock is handed on: 20
// writers under -race on a busy machine can keep one waiting longer than
// the default ten seconds.
const slowLockWait = 2 * time.Minute

// recordMany records n changes of the file name, version i keeping the
// bytes "name i" (the previous version's after).
func recordMany(s *Store, name string, n int) error {
	prev := AbsentState()
	for i := range n {
		data := []byte(fmt.Sprintf("%s %d", name, i))
		p, err := s.Begin(OpWrite, Change{Key: key(name), Path: name, Before: prev})
		if err != nil {
			return err
		}
		if _, err := p.Commit(FileFingerprint(data, int64(i+1))); err != nil {
			return err
		}
		prev = FileState(data, 0o644, int64(i+1))
	}
	return nil
}

// TestHelperProcess is not a test: the concurrency tests run the test
// binary again with it to get more recording processes.
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv(helperDir)
	if dir == "" {
		t.Skip("run by the concurrency tests")
	}
	maxEntries, _ := strconv.Atoi(os.Getenv(helperMax))
	s := Open(dir, Options{MaxEntries: maxEntries, LockTimeout: slowLockWait})
	name := os.Getenv(helperName)
	switch os.Getenv(helperMode) {
	case "record":
		if err := recordMany(s, name, perWriter); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	case "crash":
		// Begin, then die before the write's Commit.
		if _, err := s.Begin(OpEdit, Change{Key: key(name), Path: name, Before: FileState([]byte("before the crash"), 0o644, 1)}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(0)
}

func startHelper(t *testing.T, dir, mode, name string, maxEntries int) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), helperDir+"="+dir, helperMode+"="+mode, helperName+"="+name,
		helperMax+"="+strconv.Itoa(maxEntries))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

const perWriter = 20

func TestConcurrentRecorders(t *testing.T) {
	tests := []struct {
		name       string
		goroutines int
		processes  int
		maxEntries int // 0: the default, nothing dropped
	}{
		{"goroutines", 8, 0, 0},
		{"processes and goroutines", 4, 3, 0},
		{"with caps collecting", 4, 3, 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.processes > 0 && testing.Short() {
				t.Skip("starts processes")
			}
			dir := filepath.Join(t.TempDir(), "history")
			s := Open(dir, Options{MaxEntries: tt.maxEntries, LockTimeout: slowLockWait})
			var names []string
			var cmds []*exec.Cmd
			for i := range tt.processes {
				name := fmt.Sprintf("proc%d", i)
				names = append(names, name)
				cmds = append(cmds, startHelper(t, dir, "record", name, tt.maxEntries))
			}
			var wg sync.WaitGroup
			errs := make(chan error, tt.goroutines)
			for i := range tt.goroutines {
				name := fmt.Sprintf("g%d", i)
				names = append(names, name)
				wg.Go(func() {
					// A separate Store value per goroutine, as separate
					// calls of ws would have.
					if err := recordMany(Open(dir, Options{MaxEntries: tt.maxEntries, LockTimeout: slowLockWait}), name, perWriter); err != nil {
						errs <- err
					}
					// Readers run while others write.
					if _, err := s.LastGroup(); err != nil {
						errs <- err
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			for _, c := range cmds {
				if err := c.Wait(); err != nil {
					t.Errorf("helper: %v", err)
				}
			}

			total, ids := 0, map[string]bool{}
			for _, name := range names {
				list, err := s.List(key(name))
				if err != nil {
					t.Fatal(err)
				}
				if tt.maxEntries == 0 && len(list) != perWriter {
					t.Errorf("%s: %d entries, want %d", name, len(list), perWriter)
				}
				for j, e := range list {
					if ids[e.ID] {
						t.Errorf("id %s twice", e.ID)
					}
					ids[e.ID] = true
					if j > 0 && e.ID >= list[j-1].ID {
						t.Errorf("%s: ids out of order", name)
					}
					// Newest first: the j-th entry replaced version n-2-j.
					st := content(t, s, e)
					v := perWriter - 2 - j
					if want := fmt.Sprintf("%s %d", name, v); v >= 0 && string(st.Data) != want {
						t.Errorf("%s entry %d: %q, want %q", name, j, st.Data, want)
					}
					if v < 0 && st.Kind != KindAbsent {
						t.Errorf("%s: first entry is %s, want absent", name, st.Kind)
					}
				}
				total += len(list)
			}
			if tt.maxEntries > 0 && total != tt.maxEntries {
				t.Errorf("%d entries kept, want the cap %d", total, tt.maxEntries)
			}
			// Every blob is referred to; every referred blob is there.
			blobs, _ := os.ReadDir(filepath.Join(dir, "blobs"))
			want := total - len(names) // every writer's first change kept "absent"
			if tt.maxEntries > 0 {
				want = -1
			}
			if want >= 0 && len(blobs) != want {
				t.Errorf("%d blobs, want %d", len(blobs), want)
			}
			if n := countFiles(t, filepath.Join(dir, "pending")); n != 0 {
				t.Errorf("%d pending files left", n)
			}
		})
	}
}

func TestCrashedProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	dir := filepath.Join(t.TempDir(), "history")
	if err := startHelper(t, dir, "crash", "a", 0).Wait(); err != nil {
		t.Fatal(err)
	}
	s := Open(dir, Options{})
	if list, _ := s.List(key("a")); len(list) != 0 {
		t.Fatalf("uncommitted change listed: %v", ops(list))
	}
	// The write happened before the crash: Recover keeps the bytes.
	n, err := s.Recover(func(string, bool) (Fingerprint, error) { return FileFingerprint([]byte("written"), 2), nil })
	if n != 1 || err != nil {
		t.Fatalf("Recover = %d, %v", n, err)
	}
	e, _ := s.Last(key("a"))
	if e == nil || !e.Recovered {
		t.Fatalf("Last = %+v", e)
	}
	if st := content(t, s, e); string(st.Data) != "before the crash" {
		t.Errorf("recovered %q", st.Data)
	}
	if n := countFiles(t, filepath.Join(dir, "pending")); n != 0 {
		t.Errorf("%d pending files left", n)
	}
}
