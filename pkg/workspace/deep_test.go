package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/history"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/internal/testfs"
	"golang.org/x/sys/unix"
)

// TestDeleteDeepTree: a chain of 3000 directories (its paths far over
// PATH_MAX) is deleted and put back whole by undo, and deleted again by
// the redo, while the process may hold 256 descriptors. Before, the walks
// and the removal held one a level: under `ulimit -n 1000` the delete
// failed with EMFILE after removing part of the chain, the rest was
// renamed back, what was left could not be read (EMFILE again), and the
// history entry was dropped: 962 levels gone for good.
func TestDeleteDeepTree(t *testing.T) {
	const depth = 3000
	w, root := newTestWorkspace(t, nil)
	testfs.DeepChain(t, root, "deep", depth, 500)
	testfs.LimitFDs(t, 256)
	ctx := context.Background()
	check := func(when string) {
		t.Helper()
		d, files := testfs.ChainAt(t, root, "deep")
		if d != depth {
			t.Fatalf("%s: deep is %d levels deep, want %d", when, d, depth)
		}
		for i := 0; i < depth; i += 500 {
			if want := "f" + strconv.Itoa(i) + ":" + strconv.Itoa(i) + "\n"; files[i] != want {
				t.Errorf("%s: level %d holds %q, want %q", when, i, files[i], want)
			}
		}
		if files[depth] != "leaf:leaf\n" {
			t.Errorf("%s: the bottom holds %q", when, files[depth])
		}
	}
	if _, err := w.Delete(ctx, DeleteRequest{Path: "deep", Recursive: new(true)}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if d, _ := testfs.ChainAt(t, root, "deep"); d != -1 {
		t.Fatalf("after the delete, %d levels are left", d)
	}
	res, err := w.Undo(ctx, UndoRequest{})
	if err != nil {
		t.Fatalf("undo: %v", err)
	}
	if want := strconv.Itoa(depth+depth/500+1) + " entries"; !strings.Contains(res.text, want) {
		t.Errorf("undo says %q, want %s", res.text, want)
	}
	check("after the undo")
	if _, err := w.Undo(ctx, UndoRequest{}); err != nil {
		t.Fatalf("redo: %v", err)
	}
	if d, _ := testfs.ChainAt(t, root, "deep"); d != -1 {
		t.Fatalf("after the redo, %d levels are left", d)
	}
	if _, err := w.Undo(ctx, UndoRequest{}); err != nil {
		t.Fatalf("undo of the redo: %v", err)
	}
	check("after the undo of the redo")
}

// TestDeletePartlyUnreadableKept: a recursive delete that fails partway,
// after which what is left cannot be read, keeps its history entry all
// the same: undo refuses it as changed since, and undo --force puts the
// whole tree back. Before, the entry was dropped, and what the delete
// had removed was gone for good.
func TestDeletePartlyUnreadableKept(t *testing.T) {
	w, root := newTestWorkspace(t, nil, "tree/a.txt", "tree/sub/b.txt", "tree/sub/c.txt")
	oldRemove, oldLeft := removeAt, stateLeft
	t.Cleanup(func() { removeAt, stateLeft = oldRemove, oldLeft })
	removeAt = func(w *Workspace, l fsroot.Loc, recursive bool) error {
		must(t, os.Remove(filepath.Join(root, "tree", "a.txt")))
		return unix.EMFILE
	}
	stateLeft = func(w *Workspace, l fsroot.Loc) (history.State, error) { return history.State{}, unix.EMFILE }
	ctx := context.Background()
	if _, err := w.Delete(ctx, DeleteRequest{Path: "tree", Recursive: new(true)}); err == nil {
		t.Fatal("the delete that failed partway succeeded")
	}
	removeAt, stateLeft = oldRemove, oldLeft
	_, err := w.Undo(ctx, UndoRequest{})
	if err == nil || !strings.Contains(err.Error(), "could not be read") {
		t.Fatalf("undo of the failed delete: %v, want a refusal saying what was left could not be read", err)
	}
	if _, err := w.Undo(ctx, UndoRequest{Force: new(true)}); err != nil {
		t.Fatalf("undo --force: %v", err)
	}
	for _, f := range []string{"tree/a.txt", "tree/sub/b.txt", "tree/sub/c.txt"} {
		if data, err := os.ReadFile(filepath.Join(root, f)); err != nil || string(data) != "content of "+f+"\n" {
			t.Errorf("%s after undo --force: %q, %v", f, data, err)
		}
	}
}
