package fsroot

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// blockingSource writes its bytes, then blocks until the process is killed:
// a writer caught in the middle of a write.
type blockingSource []byte

func (b blockingSource) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(b)
	if err != nil {
		return int64(n), err
	}
	for {
		time.Sleep(time.Hour)
	}
}

// TestHelperStuckWriter is not a test: run by TestLeftoversOfKilledWriters
// in a child process, it starts a write into WS_TEST_DIR that never ends.
func TestHelperStuckWriter(t *testing.T) {
	dir := os.Getenv("WS_TEST_STUCK_WRITER")
	if dir == "" {
		t.Skip("helper process only")
	}
	fsys := New(Options{Base: dir, Contained: true})
	target, err := fsys.Resolve("f.txt")
	if err != nil {
		t.Fatal(err)
	}
	_, err = fsys.WriteAtomic(target.Loc(), blockingSource("partial new content"), WriteOptions{})
	t.Fatal("the write returned:", err)
}

// TestLeftoversOfKilledWriters kills writers in the middle of their write
// (SIGKILL, so they clean up nothing) and checks that the next write of the
// directory leaves only the file: the leftovers of writers that are gone
// are removed at once, also when that write fails.
func TestLeftoversOfKilledWriters(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) error {
		fsys := New(Options{Base: dir, Contained: true})
		target, err := fsys.Resolve(name)
		if err != nil {
			t.Fatal(err)
		}
		_, err = fsys.WriteAtomic(target.Loc(), bytes.NewReader([]byte(content)), WriteOptions{})
		return err
	}
	if err := write("f.txt", "old"); err != nil {
		t.Fatal(err)
	}
	killWriters := func(n int) {
		for i := 0; i < n; i++ {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperStuckWriter$")
			cmd.Env = append(os.Environ(), "WS_TEST_STUCK_WRITER="+dir)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Each writer cleans the leftovers of the one before; wait for
			// its own temporary file, named after its pid.
			mine := TempPrefix + strconv.Itoa(cmd.Process.Pid) + "-"
			has := func() bool {
				for _, n := range temps(t, dir) {
					if strings.HasPrefix(n, mine) {
						return true
					}
				}
				return false
			}
			deadline := time.Now().Add(10 * time.Second)
			for !has() && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			cmd.Process.Kill()
			cmd.Wait()
			if !has() {
				t.Fatal("the stuck writer left no temporary file to clean")
			}
		}
	}

	killWriters(3)
	// A writer that is alive and holds its file's lock is left alone.
	live, err := os.OpenFile(filepath.Join(dir, NewTempName()), os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if err := write("f.txt", "new"); err != nil {
		t.Fatal(err)
	}
	if got := temps(t, dir); len(got) != 1 || got[0] != filepath.Base(live.Name()) {
		t.Fatalf("after the next write: temporary files %v, want only the live writer's", got)
	}
	live.Close()
	os.Remove(live.Name())
	if data, _ := os.ReadFile(filepath.Join(dir, "f.txt")); string(data) != "new" {
		t.Fatalf("f.txt = %q", data)
	}

	// A write that fails (the target is a directory) still cleans first.
	killWriters(2)
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := write("d", "x"); err == nil {
		t.Fatal("writing over a directory succeeded")
	}
	if got := names(t, dir); strings.Join(got, " ") != "d f.txt" {
		t.Fatalf("after a failed write the directory holds %v, want [d f.txt]", got)
	}
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	sort.Strings(out)
	return out
}

func temps(t *testing.T, dir string) []string {
	var out []string
	for _, n := range names(t, dir) {
		if IsTempName(n) {
			out = append(out, n)
		}
	}
	return out
}

// TestUnstampedTemps: a temporary file without a writer stamp (named by an
// older ws) is removed only once it is old and unlocked.
func TestUnstampedTemps(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, TempPrefix+"0123456789abcdef")
	young := filepath.Join(dir, TempPrefix+"fedcba9876543210")
	for _, p := range []string{old, young} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-2 * staleTempAge)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	RemoveStaleTemps(int(d.Fd()), time.Now())
	if got := temps(t, dir); len(got) != 1 || got[0] != filepath.Base(young) {
		t.Fatalf("temporary files left: %v, want only the young one", got)
	}
}
