// The state directory under concurrent use: read-tracker records, write
// locks, and writers racing on one file.

package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/statefile"
)

func TestCorruptReadRecord(t *testing.T) {
	w, _ := newTestWorkspace(t, nil, "a.txt")
	ctx := context.Background()
	_, err := w.Read(ctx, ReadRequest{Path: "a.txt"})
	must(t, err)
	real := w.fs.RealPath(testLoc(w, "a.txt"))
	must(t, os.WriteFile(w.recordFile(real), []byte("{not json"), 0o600))
	_, err = w.Write(ctx, WriteRequest{Path: "a.txt", Content: "x"})
	if errs.CodeOf(err) != errs.StateCorrupt || err.Error() != "the read-tracker record of a.txt is corrupt; read the file again to rebuild it" {
		t.Fatalf("write with a corrupt record: %v (%s)", err, errs.CodeOf(err))
	}
	_, err = w.Read(ctx, ReadRequest{Path: "a.txt"})
	must(t, err)
	_, err = w.Write(ctx, WriteRequest{Path: "a.txt", Content: "x"})
	must(t, err)

	// A record of another file under this file's name is not trusted.
	must(t, os.WriteFile(w.recordFile(real), []byte(`{"path":"/elsewhere","mtime_ns":1,"size":1}`), 0o600))
	if _, err := w.Write(ctx, WriteRequest{Path: "a.txt", Content: "y"}); errs.CodeOf(err) != errs.StateCorrupt {
		t.Fatalf("foreign record accepted: %v", err)
	}
}

func TestWriteLockTimeout(t *testing.T) {
	cfg := config.Default()
	cfg.Tools.WriteLockTimeoutMs = 80
	w, root := newTestWorkspace(t, cfg, "a.txt")
	held, err := w.lockPath(w.fs.RealPath(testLoc(w, "a.txt")), "a.txt")
	must(t, err)
	start := time.Now()
	_, err = w.Write(context.Background(), WriteRequest{Path: "./a.txt", Content: "x"})
	if errs.CodeOf(err) != errs.LockTimeout || err.Error() != `write-lock timeout on "a.txt" after 80ms` {
		t.Fatalf("write under a held lock: %v", err)
	}
	if d := time.Since(start); d < 80*time.Millisecond {
		t.Fatalf("gave up after %v, before the timeout", d)
	}
	held.Release()
	if _, err := w.Write(context.Background(), WriteRequest{Path: "a.txt", Content: "x"}); err != nil {
		t.Fatalf("write after the lock was released: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(data) != "x" {
		t.Fatalf("content %q", data)
	}
}

// TestWriteLockTimeoutGC: a pruner that holds locks/.gc (one stopped
// while it pruned) holds up a write for the write-lock timeout, not for
// ever, and the wait is the same error as a held lock's.
func TestWriteLockTimeoutGC(t *testing.T) {
	cfg := config.Default()
	cfg.Tools.WriteLockTimeoutMs = 80
	w, _ := newTestWorkspace(t, cfg, "a.txt")
	gcPath := filepath.Join(w.stateDir, "locks", ".gc")
	must(t, os.MkdirAll(filepath.Dir(gcPath), 0o700))
	must(t, os.WriteFile(gcPath, nil, 0o600))
	gc, ok := statefile.TryAcquire(gcPath)
	if !ok {
		t.Fatal("could not take locks/.gc")
	}
	done := make(chan error, 1)
	go func() {
		_, err := w.Write(context.Background(), WriteRequest{Path: "a.txt", Content: "x"})
		done <- err
	}()
	select {
	case err := <-done:
		if errs.CodeOf(err) != errs.LockTimeout || err.Error() != `write-lock timeout on "a.txt" after 80ms` {
			t.Fatalf("write while .gc is held: %v", err)
		}
	case <-time.After(30 * time.Second):
		gc.Release()
		t.Fatal("write waited on locks/.gc past its timeout")
	}
	gc.Release()
	if _, err := w.Write(context.Background(), WriteRequest{Path: "a.txt", Content: "x"}); err != nil {
		t.Fatalf("write once .gc is free: %v", err)
	}
}

// testLoc is the place of a path below the base path.
func testLoc(w *Workspace, rel string) fsroot.Loc {
	l, _ := w.fs.BelowBase(rel)
	return l
}

func TestPruneLocks(t *testing.T) {
	w, _ := newTestWorkspace(t, nil, "a.txt", "b.txt")
	ctx := context.Background()
	for _, p := range []string{"a.txt", "b.txt", "c.txt"} {
		if _, err := w.Write(ctx, WriteRequest{Path: p, Content: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	held, err := w.lockPath(w.fs.RealPath(testLoc(w, "a.txt")), "a.txt")
	must(t, err)
	if n := w.pruneLocks(); n != 2 {
		t.Fatalf("pruned %d lock files, want 2 (a.txt's is held)", n)
	}
	held.Release()
	if n := w.pruneLocks(); n != 1 {
		t.Fatalf("pruned %d, want 1", n)
	}
	// Writes still work after pruning.
	if _, err := w.Write(ctx, WriteRequest{Path: "a.txt", Content: "y"}); err != nil {
		t.Fatal(err)
	}
	res, err := w.PS(ctx, PSRequest{Prune: boolp(true)})
	must(t, err)
	if res.PrunedLocks != 1 {
		t.Fatalf("ps --prune removed %d lock files", res.PrunedLocks)
	}
}

// TestConcurrentEditsNeverLoseUpdates runs eight writers, each with its own
// Workspace (as eight ws processes would have), editing one file at once.
// Writers of one thread share what that thread knows of the file, so every
// edit must land: the write lock serialises check, read, modify and write.
// Writers of different threads each know only their own writes: an edit
// may then be refused as stale (the file changed since this thread saw it),
// but one that reports success must be in the file.
func TestConcurrentEditsNeverLoseUpdates(t *testing.T) {
	for _, sameThread := range []bool{true, false} {
		t.Run(fmt.Sprint("sameThread=", sameThread), func(t *testing.T) { concurrentEdits(t, sameThread) })
	}
}

func concurrentEdits(t *testing.T, sameThread bool) {
	w0, root := newTestWorkspace(t, nil)
	file := filepath.Join(root, "shared.txt")
	must(t, os.WriteFile(file, []byte("END\n"), 0o644))
	const writers, edits = 8, 10
	var wg sync.WaitGroup
	failures := make(chan error, writers*edits)
	var mu sync.Mutex
	landed := map[string]bool{}
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			thread := "shared"
			if !sameThread {
				thread = fmt.Sprint("t", i)
			}
			w, err := New(Options{Root: root, Config: w0.cfg, StateDir: w0.stateDir, Thread: thread})
			if err != nil {
				failures <- err
				return
			}
			defer w.Close()
			for j := range edits {
				marker := fmt.Sprintf("w%d-%d\n", i, j)
				_, err := w.Edit(context.Background(), EditRequest{
					Path: "shared.txt", OldString: "END\n", NewString: marker + "END\n",
				})
				if err == nil {
					mu.Lock()
					landed[marker] = true
					mu.Unlock()
				} else if sameThread || errs.CodeOf(err) != errs.ESTALE {
					failures <- err
				}
			}
		}()
	}
	wg.Wait()
	close(failures)
	for err := range failures {
		t.Errorf("edit failed: %v", err)
	}
	data, err := os.ReadFile(file)
	must(t, err)
	for marker := range landed {
		if !strings.Contains(string(data), marker) {
			t.Errorf("edit %q reported success but was lost", marker)
		}
	}
	if sameThread && len(landed) != writers*edits {
		t.Errorf("%d edits landed, want %d", len(landed), writers*edits)
	}
	if n := strings.Count(string(data), "\n"); n != len(landed)+1 {
		t.Errorf("file has %d lines, want %d", n, len(landed)+1)
	}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if fsroot.IsTempName(e.Name()) {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// TestConcurrentStaleWriters: writers that all read the file first (one
// thread each) race to write it. The first wins; every other one must be
// refused as stale, never silently overwrite.
func TestConcurrentStaleWriters(t *testing.T) {
	w0, root := newTestWorkspace(t, nil, "f.txt")
	const writers = 8
	ws := make([]*Workspace, writers)
	for i := range ws {
		w, err := New(Options{Root: root, Config: w0.cfg, StateDir: w0.stateDir, Thread: fmt.Sprint("t", i)})
		must(t, err)
		defer w.Close()
		if _, err := w.Read(context.Background(), ReadRequest{Path: "f.txt"}); err != nil {
			t.Fatal(err)
		}
		ws[i] = w
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, stale := 0, 0
	for i, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := w.Write(context.Background(), WriteRequest{Path: "f.txt", Content: fmt.Sprintf("writer %d and some more bytes\n", i)})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
			case errs.CodeOf(err) == errs.ESTALE:
				stale++
			default:
				t.Errorf("writer %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	if ok != 1 || stale != writers-1 {
		t.Errorf("%d writes landed and %d were refused as stale; want 1 and %d", ok, stale, writers-1)
	}
}
