package fsroot

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wstools/ws/pkg/internal/testfs"
)

// TestBatch: files added to a batch are written beside their paths, which
// keep their old bytes until Commit (refused before Sync); committed, each
// has its new bytes and the mode asked for (an existing file its own, a
// symlink's target replaced); Close removes the temporary files of those
// not committed, which keep their old bytes.
func TestBatch(t *testing.T) {
	dir := t.TempDir()
	testfs.Mkdir(t, filepath.Join(dir, "sub"))
	testfs.Write(t, filepath.Join(dir, "a.txt"), "old a\n")
	testfs.Write(t, filepath.Join(dir, "sub", "b.txt"), "old b\n")
	testfs.Write(t, filepath.Join(dir, "left.txt"), "old left\n")
	if err := os.Chmod(filepath.Join(dir, "a.txt"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub/b.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	fsys := New(Options{Base: dir, Contained: true})
	defer fsys.Close()
	loc := locIn(t, fsys)
	b := fsys.NewBatch()
	var idx []int
	for _, w := range []struct {
		path, data string
		opts       WriteOptions
	}{
		{"a.txt", "new a\n", WriteOptions{}},
		{"link", "new b\n", WriteOptions{}},
		{"made/c.txt", "new c\n", WriteOptions{Mode: 0o751}},
		{"left.txt", "new left\n", WriteOptions{}},
	} {
		i, err := b.Add(loc(w.path), []byte(w.data), w.opts)
		if err != nil {
			t.Fatalf("Add %s: %v", w.path, err)
		}
		idx = append(idx, i)
	}
	if _, err := b.Add(loc("x"), nil, WriteOptions{NoReplace: true}); err != ErrNotBatched {
		t.Errorf("Add with NoReplace: %v, want ErrNotBatched", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "old a\n" {
		t.Errorf("a.txt changed before Commit: %q", got)
	}
	if _, err := b.Commit(idx[0]); err == nil {
		t.Error("Commit before Sync was taken")
	}
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
	for _, i := range idx[:3] {
		if _, err := b.Commit(i); err != nil {
			t.Fatalf("Commit %d: %v", i, err)
		}
	}
	b.Close()
	for rel, want := range map[string]string{"a.txt": "new a\n", "sub/b.txt": "new b\n", "made/c.txt": "new c\n", "left.txt": "old left\n"} {
		if got, err := os.ReadFile(filepath.Join(dir, rel)); err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", rel, got, err, want)
		}
	}
	for rel, want := range map[string]os.FileMode{"a.txt": 0o600, "made/c.txt": 0o751} {
		if st, err := os.Stat(filepath.Join(dir, rel)); err != nil || st.Mode() != want {
			t.Errorf("%s: mode %v, %v; want %v", rel, st.Mode(), err, want)
		}
	}
	if st, err := os.Lstat(filepath.Join(dir, "link")); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link is no longer a symlink: %v, %v", st, err)
	}
	for _, d := range []string{dir, filepath.Join(dir, "sub"), filepath.Join(dir, "made")} {
		if left := temps(t, d); len(left) != 0 {
			t.Errorf("left in %s: %v", d, left)
		}
	}
}
