package fsroot

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/internal/testfs"
	"golang.org/x/sys/unix"
)

// makeTree makes dir/tree with files in nested directories, and returns
// the paths below dir/tree, sorted.
func makeTree(t *testing.T, dir string) []string {
	t.Helper()
	tree := filepath.Join(dir, "tree")
	testfs.Mkdir(t, filepath.Join(tree, "sub", "deeper"), filepath.Join(tree, "other"))
	want := []string{"a.txt", "other/d.txt", "sub/b.txt", "sub/deeper/c.txt"}
	for _, rel := range want {
		testfs.Write(t, filepath.Join(tree, rel), rel)
	}
	return want
}

// filesBelow lists the files below root, relative to it, in lexical order.
func filesBelow(t *testing.T, root string) (got []string) {
	t.Helper()
	err := fs.WalkDir(os.DirFS(root), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			got = append(got, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func removeTreeOf(t *testing.T, dir string) error {
	t.Helper()
	fsys := New(Options{Base: dir, Contained: true})
	target, err := fsys.Resolve("tree")
	if err != nil {
		t.Fatal(err)
	}
	return fsys.Remove(target.Loc(), true)
}

// TestRemoveTreeWhole: a recursive delete takes the tree away from its
// path in one rename before emptying it, so nobody sees half of it there,
// and leaves nothing behind.
func TestRemoveTreeWhole(t *testing.T) {
	dir := t.TempDir()
	want := makeTree(t, dir)
	var during []string
	old := removeAway
	t.Cleanup(func() { removeAway = old })
	removeAway = func(dirfd int, name string, recursive bool) error {
		if _, err := os.Lstat(filepath.Join(dir, "tree")); !os.IsNotExist(err) {
			t.Errorf("the tree is still at its path while it is removed: %v", err)
		}
		during = filesBelow(t, filepath.Join(dir, name))
		return RemoveAt(dirfd, name, recursive)
	}
	if err := removeTreeOf(t, dir); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(during, want) {
		t.Errorf("the tree taken away held %q, want %q", during, want)
	}
	if left := temps(t, dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	if _, err := os.Lstat(filepath.Join(dir, "tree")); !os.IsNotExist(err) {
		t.Errorf("tree: %v", err)
	}
}

// TestRemoveTreeFailsPartway: a removal that stops partway (a mount point
// or an immutable file inside) puts what is left back at its path.
func TestRemoveTreeFailsPartway(t *testing.T) {
	dir := t.TempDir()
	makeTree(t, dir)
	old := removeAway
	t.Cleanup(func() { removeAway = old })
	removeAway = func(dirfd int, name string, _ bool) error {
		if err := os.Remove(filepath.Join(dir, name, "a.txt")); err != nil {
			t.Fatal(err)
		}
		return unix.EBUSY
	}
	if err := removeTreeOf(t, dir); err != unix.EBUSY {
		t.Fatalf("Remove = %v, want EBUSY", err)
	}
	if got, want := filesBelow(t, filepath.Join(dir, "tree")), []string{"other/d.txt", "sub/b.txt", "sub/deeper/c.txt"}; !slices.Equal(got, want) {
		t.Errorf("left at the path: %q, want %q", got, want)
	}
	if left := temps(t, dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestRemoveTreeMountInside: a mount point inside the tree stops the
// removal there (EBUSY), on a real tmpfs: what is left is back at its
// path, the mount with it. Root only (the test is skipped elsewhere).
func TestRemoveTreeMountInside(t *testing.T) {
	dir := t.TempDir()
	makeTree(t, dir)
	mnt := filepath.Join(dir, "tree", "sub", "mnt")
	testfs.Mkdir(t, mnt)
	testfs.SmallFS(t, mnt, "64k")
	testfs.Write(t, filepath.Join(mnt, "on-tmpfs.txt"), "x")
	err := removeTreeOf(t, dir)
	if err != unix.EBUSY {
		t.Fatalf("Remove = %v, want EBUSY (a mount point inside)", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tree", "sub", "mnt")); err != nil {
		t.Errorf("the mount point is not back at its path: %v", err)
	}
	if left := temps(t, dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestHelperRemoveKilled is not a test: run by TestRemoveTreeKilled in a
// child process, it dies (SIGKILL) in the middle of removing a tree.
func TestHelperRemoveKilled(t *testing.T) {
	dir := os.Getenv("WS_TEST_REMOVE_KILLED")
	if dir == "" {
		t.Skip("helper process only")
	}
	removeAway = func(dirfd int, name string, _ bool) error {
		_ = os.Remove(filepath.Join(dir, name, "a.txt"))
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	t.Fatal("Remove returned:", removeTreeOf(t, dir))
}

// TestRemoveTreeKilled: a ws killed while it removes a tree leaves none of
// it at the path (before, the part not yet removed), only its hidden
// temporary directory, which the next write in that directory removes.
func TestRemoveTreeKilled(t *testing.T) {
	dir := t.TempDir()
	makeTree(t, dir)
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperRemoveKilled$")
	cmd.Env = append(os.Environ(), "WS_TEST_REMOVE_KILLED="+dir)
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("the helper was not killed: %s", out)
	}
	if _, err := os.Lstat(filepath.Join(dir, "tree")); !os.IsNotExist(err) {
		t.Fatalf("after the kill, tree is at its path: %v", err)
	}
	if left := temps(t, dir); len(left) != 1 {
		t.Fatalf("temporary directories after the kill: %v, want the killed one", left)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	RemoveStaleTemps(fd, time.Now())
	if left := temps(t, dir); len(left) != 0 {
		t.Errorf("after the sweep: %v", left)
	}
}
