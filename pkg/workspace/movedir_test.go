package workspace

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/wstools/ws/pkg/statefile"
)

// TestUndoSupersededRename: an undo that picked a directory move, then
// waited for its locks while another change became the newest, takes back
// that newer change, not the move it had picked (before, a retry that
// found a change of another kind still renamed the directory back).
func TestUndoSupersededRename(t *testing.T) {
	w, root := newTestWorkspace(t, nil, "src/a.txt")
	ctx := context.Background()
	if _, err := w.Move(ctx, MoveRequest{Source: "src", Destination: "lib"}); err != nil {
		t.Fatal(err)
	}
	// Hold the move's two locks, as another ws process would.
	var held []*statefile.Lock
	for _, p := range []string{"src", "lib"} {
		tg, err := w.fs.Resolve(p)
		must(t, err)
		l, err := w.lockPath(w.fs.OwnRealPath(tg.Loc()), p)
		must(t, err)
		held = append(held, l)
	}
	type result struct {
		res *UndoResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := w.Undo(ctx, UndoRequest{})
		done <- result{res, err}
	}()
	// Wait until the undo waits for a lock (a taker holds locks/.gc
	// shared meanwhile), then make a newer change and let it go on.
	gc := filepath.Join(w.stateDir, "locks", ".gc")
	for waiting := false; !waiting; {
		select {
		case r := <-done:
			t.Fatalf("the undo did not wait for the locks: %+v, %v", r.res, r.err)
		default:
		}
		l, ok := statefile.TryAcquire(gc)
		if ok {
			l.Release()
		}
		waiting = !ok
	}
	if _, err := w.Write(ctx, WriteRequest{Path: "other.txt", Content: "newer"}); err != nil {
		t.Fatal(err)
	}
	for _, l := range held {
		l.Release()
	}
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if r.res.Op != "write" {
		t.Errorf("the undo took back the %s, want the newer write", r.res.Op)
	}
	if _, err := os.Stat(filepath.Join(root, "lib", "a.txt")); err != nil {
		t.Errorf("the move was taken back too: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "other.txt")); !os.IsNotExist(err) {
		t.Errorf("the write was not taken back: %v", err)
	}
}
