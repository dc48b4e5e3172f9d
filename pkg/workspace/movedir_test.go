package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wstools/ws/pkg/history"
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

// inodeOf is the inode number of the file at p.
func inodeOf(t *testing.T, p string) uint64 {
	t.Helper()
	var st syscall.Stat_t
	must(t, syscall.Lstat(p, &st))
	return st.Ino
}

// TestUndoMoveBigFile: a move of a file too big for the history to keep
// its bytes makes no warning, and undo renames the file back, the same
// inode (before, the move warned that undo could not take it back, and
// undo refused); the directories the move made go with the undo, and the
// undo of the undo moves it again. A directory holding such a file moves
// and moves back alike.
func TestUndoMoveBigFile(t *testing.T) {
	w, root := newTestWorkspace(t, nil, "d/")
	var warnings []string
	w.warnf = func(msg string) { warnings = append(warnings, msg) }
	ctx := context.Background()
	big := filepath.Join(root, "big.bin")
	must(t, os.WriteFile(big, []byte("head"), 0o640))
	must(t, os.Truncate(big, history.DefaultMaxEntryBytes+1)) // sparse: cheap
	ino := inodeOf(t, big)

	if _, err := w.Move(ctx, MoveRequest{Source: "big.bin", Destination: "sub/dir/moved.bin"}); err != nil {
		t.Fatal(err)
	}
	res, err := w.Undo(ctx, UndoRequest{Path: new("sub/dir/moved.bin")})
	if err != nil {
		t.Fatal(err)
	}
	if got := inodeOf(t, big); got != ino {
		t.Errorf("undo wrote another file (inode %d, was %d), not renamed it back", got, ino)
	}
	if _, err := os.Stat(filepath.Join(root, "sub")); !os.IsNotExist(err) {
		t.Errorf("the directories the move made are left: %v", err)
	}
	want := "big.bin: restored (16777217 bytes; the file moved back from sub/dir/moved.bin)\n" +
		"sub/dir/moved.bin: removed (the file moved back to big.bin), with the directories made for it: sub/dir, sub"
	if got := res.text[strings.IndexByte(res.text, '\n')+1:]; got != want {
		t.Errorf("undo text\n got %q\nwant %q", got, want)
	}
	if _, err := w.Undo(ctx, UndoRequest{}); err != nil { // redo
		t.Fatal(err)
	}
	if got := inodeOf(t, filepath.Join(root, "sub/dir/moved.bin")); got != ino {
		t.Errorf("the redo moved another file (inode %d, was %d)", got, ino)
	}

	must(t, os.Rename(filepath.Join(root, "sub/dir/moved.bin"), filepath.Join(root, "d/big.bin")))
	if _, err := w.Move(ctx, MoveRequest{Source: "d", Destination: "e"}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Undo(ctx, UndoRequest{Path: new("e")}); err != nil {
		t.Fatal(err)
	}
	if got := inodeOf(t, filepath.Join(root, "d/big.bin")); got != ino {
		t.Errorf("the directory's undo left another file (inode %d, was %d)", got, ino)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings: %q", warnings)
	}
}

// A tree an undo puts back appears whole or not at all: it is built under
// a hidden temporary name and renamed into place. Here its second file
// cannot be made (below a file), as when ws is killed part way: nothing
// is left at the path nor beside it. Before, the tree was made in place,
// and a killed undo left part of it, which the next undo then took away
// as the change it took back. A temporary tree that a killed undo left is
// removed by the next one made in the directory.
func TestRestoreTreeWholeOrNothing(t *testing.T) {
	w, root := newTestWorkspace(t, nil, "keep.txt")
	left := filepath.Join(root, ".ws-tmp-4194305-1-0123456789abcdef") // its maker gone
	must(t, os.MkdirAll(filepath.Join(left, "d"), 0o755))
	must(t, os.WriteFile(filepath.Join(left, "d", "f"), []byte("part"), 0o644))
	tg, err := w.fs.Resolve("tree")
	must(t, err)
	bad := history.DirState(0o755, []history.Node{
		{Path: "x", Kind: history.KindFile, Mode: 0o644, Data: []byte("one\n")},
		{Path: "x/y", Kind: history.KindFile, Mode: 0o644, Data: []byte("two\n")},
	})
	if err := w.restoreTree(tg.Loc(), bad); err == nil {
		t.Fatal("a tree with a file below a file was put back")
	}
	if _, err := os.Lstat(filepath.Join(root, "tree")); !os.IsNotExist(err) {
		t.Errorf("a tree that could not be put back whole is at its path: %v", err)
	}
	names, _ := os.ReadDir(root)
	for _, n := range names {
		if strings.HasPrefix(n.Name(), ".ws-tmp-") {
			t.Errorf("left beside it: %s", n.Name())
		}
	}
	good := history.DirState(0o755, []history.Node{
		{Path: "d", Kind: history.KindDir, Mode: 0o700},
		{Path: "d/f", Kind: history.KindFile, Mode: 0o600, Data: []byte("whole\n")},
	})
	must(t, w.restoreTree(tg.Loc(), good))
	if data, err := os.ReadFile(filepath.Join(root, "tree", "d", "f")); err != nil || string(data) != "whole\n" {
		t.Errorf("tree/d/f = %q, %v", data, err)
	}
	if st, err := os.Stat(filepath.Join(root, "tree", "d")); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("tree/d: %v, %v; want mode 0700", st, err)
	}
}
