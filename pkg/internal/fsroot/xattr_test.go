package fsroot

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/wstools/ws/pkg/internal/testfs"
	"golang.org/x/sys/unix"
)

// TestWriteKeepsXattrs: a write that replaces a file (WriteAtomic, and a
// Batch's) gives the new inode the old one's extended attributes, as
// editors and cp -a keep them; a new file gets none.
func TestWriteKeepsXattrs(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, filepath.Join(dir, "one.txt"), "old\n")
	testfs.Write(t, filepath.Join(dir, "batch.txt"), "old\n")
	for _, name := range []string{"one.txt", "batch.txt"} {
		err := unix.Setxattr(filepath.Join(dir, name), "user.origin", []byte("https://example.com/a"), 0)
		if err == unix.ENOTSUP || err == unix.EOPNOTSUPP {
			t.Skip("this file system has no user extended attributes")
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	fsys := New(Options{Base: dir, Contained: true})
	defer fsys.Close()
	loc := locIn(t, fsys)
	if _, err := fsys.WriteAtomic(loc("one.txt"), bytes.NewReader([]byte("new\n")), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := fsys.WriteAtomic(loc("fresh.txt"), bytes.NewReader([]byte("new\n")), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	b := fsys.NewBatch()
	i, err := b.Add(loc("batch.txt"), []byte("new\n"), WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Sync(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Commit(i); err != nil {
		t.Fatal(err)
	}
	b.Close()
	for name, want := range map[string]string{"one.txt": "https://example.com/a", "batch.txt": "https://example.com/a", "fresh.txt": ""} {
		p := filepath.Join(dir, name)
		if got, _ := os.ReadFile(p); string(got) != "new\n" {
			t.Errorf("%s = %q, want the new content", name, got)
		}
		val := make([]byte, 64)
		n, err := unix.Getxattr(p, "user.origin", val)
		if want == "" {
			if err != unix.ENODATA {
				t.Errorf("%s: user.origin = %q, %v; want none", name, val[:max(n, 0)], err)
			}
			continue
		}
		if err != nil || string(val[:n]) != want {
			t.Errorf("%s: user.origin = %q, %v; want %q", name, val[:max(n, 0)], err, want)
		}
	}
}
