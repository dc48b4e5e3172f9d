package workspace

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/fsroot"
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
