package fsroot

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestTreeBuilder: a tree is made under a hidden name, nothing of it at
// its path until Commit renames it there whole, with its files' bytes and
// modes, its symlinks, and its directories' modes given last (a read-only
// one filled first). Commit onto a name taken is refused, and Abort then
// leaves nothing behind.
func TestTreeBuilder(t *testing.T) {
	dir := t.TempDir()
	fsys := New(Options{Base: dir, Contained: true})
	defer fsys.Close()
	top, err := fsys.Resolve(".")
	if err != nil {
		t.Fatal(err)
	}
	b, err := fsys.NewTree(top.Loc())
	if err != nil {
		t.Fatal(err)
	}
	steps := []error{
		b.Mkdir("ro"),
		b.File("ro/f.txt", []byte("in a read-only dir\n"), 0o640, nil),
		b.File("a/b/c.txt", []byte("parents made\n"), 0o755, nil),
		b.Symlink("a/link", "b/c.txt", nil),
		b.SetDirAttrs("ro", 0o555, nil),
		b.SetDirAttrs(".", 0o750, nil),
	}
	for i, err := range steps {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "tree")); !os.IsNotExist(err) {
		t.Fatalf("the tree is at its path before Commit: %v", err)
	}
	if left := temps(t, dir); len(left) != 1 {
		t.Fatalf("want the tree under one hidden name while it is made, have %v", left)
	}
	if err := b.File("../out", nil, 0, nil); err != unix.EINVAL {
		t.Errorf("a path climbing out of the tree: %v, want EINVAL", err)
	}
	if err := b.Commit("tree"); err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]string{"ro/f.txt": "in a read-only dir\n", "a/b/c.txt": "parents made\n", "a/link": "parents made\n"} {
		if got, err := os.ReadFile(filepath.Join(dir, "tree", rel)); err != nil || string(got) != want {
			t.Errorf("tree/%s = %q, %v; want %q", rel, got, err, want)
		}
	}
	for rel, want := range map[string]os.FileMode{".": 0o750 | os.ModeDir, "ro": 0o555 | os.ModeDir, "ro/f.txt": 0o640, "a/b/c.txt": 0o755} {
		if st, err := os.Lstat(filepath.Join(dir, "tree", rel)); err != nil || st.Mode() != want {
			t.Errorf("tree/%s: %v, %v; want mode %v", rel, st.Mode(), err, want)
		}
	}
	if left := temps(t, dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}

	b, err = fsys.NewTree(top.Loc())
	if err != nil {
		t.Fatal(err)
	}
	if err := b.File("x", []byte("x"), 0, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit("tree"); err != unix.EEXIST && err != unix.ENOTEMPTY {
		t.Errorf("Commit onto a tree there: %v, want EEXIST", err)
	}
	b.Abort()
	if left := temps(t, dir); len(left) != 0 {
		t.Errorf("Abort left behind: %v", left)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "tree", "ro", "f.txt")); err != nil || string(got) != "in a read-only dir\n" {
		t.Errorf("the tree there was touched: %q, %v", got, err)
	}
	os.Chmod(filepath.Join(dir, "tree", "ro"), 0o755)
}
