package fsroot

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/wstools/ws/pkg/internal/testfs"
	"golang.org/x/sys/unix"
)

// openFDs is how many descriptors this process has open.
func openFDs(t *testing.T) int {
	t.Helper()
	names, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(names)
}

// TestDeepTreeBoundedFDs: a chain of 3000 directories (its paths far
// over PATH_MAX) is walked, built again and removed whole by WalkTree,
// TreeBuilder and RemoveAt while the process may hold 64 descriptors.
// Before, the walks held one a level: EMFILE past the limit, which left
// a delete half done and its undo entry dropped.
func TestDeepTreeBoundedFDs(t *testing.T) {
	const depth = 3000
	dir := t.TempDir()
	testfs.DeepChain(t, dir, "deep", depth, 500)
	fsys := New(Options{Base: dir, Contained: true})
	defer fsys.Close()
	loc := locIn(t, fsys)
	if _, err := fsys.Lstat(loc("deep")); err != nil { // the root's descriptor, held from now on
		t.Fatal(err)
	}
	before := openFDs(t)
	testfs.LimitFDs(t, 64)

	type node struct {
		rel  string
		dir  bool
		data []byte
		mode os.FileMode
	}
	var nodes []node
	err := fsys.WalkTree(loc("deep"), func(e *TreeEntry) (bool, error) {
		n := node{rel: e.Rel, dir: e.Stat.IsDir(), mode: e.Stat.Mode}
		if !n.dir {
			var err error
			if n.data, err = e.ReadFile(); err != nil {
				return false, err
			}
		}
		nodes = append(nodes, n)
		return true, nil
	})
	if err != nil {
		t.Fatalf("WalkTree: %v", err)
	}
	if want := depth + depth/500 + 1; len(nodes) != want {
		t.Fatalf("WalkTree met %d entries, want %d", len(nodes), want)
	}

	b, err := fsys.NewTree(loc("."))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if n.dir {
			err = b.Mkdir(n.rel)
		} else {
			err = b.File(n.rel, n.data, n.mode, nil)
		}
		if err != nil {
			t.Fatalf("building %.40s…: %v", n.rel, err)
		}
	}
	for i := len(nodes) - 1; i >= 0; i-- {
		if nodes[i].dir {
			if err := b.SetDirAttrs(nodes[i].rel, 0o755, nil); err != nil {
				t.Fatalf("SetDirAttrs: %v", err)
			}
		}
	}
	if err := b.Commit("copy"); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	if err := fsys.Remove(loc("deep"), true); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if n := openFDs(t); n > before {
		t.Errorf("%d descriptors open after, %d before", n, before)
	}
	if d, _ := testfs.ChainAt(t, dir, "deep"); d != -1 {
		t.Errorf("deep is still there, %d levels of it", d)
	}
	d, files := testfs.ChainAt(t, dir, "copy")
	if d != depth {
		t.Errorf("the copy is %d deep, want %d", d, depth)
	}
	for i := 0; i < depth; i += 500 {
		if want := "f" + strconv.Itoa(i) + ":" + strconv.Itoa(i) + "\n"; files[i] != want {
			t.Errorf("level %d of the copy holds %q, want %q", i, files[i], want)
		}
	}
	if files[depth] != "leaf:leaf\n" {
		t.Errorf("the copy's bottom holds %q", files[depth])
	}
	if err := fsys.Remove(loc("copy"), true); err != nil {
		t.Fatalf("Remove of the copy: %v", err)
	}
	if left := temps(t, dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestChainReopenSameDir: a directory the chain closed is opened again by
// name only when it is still the one the chain went through: another put
// at its name since is refused (ESTALE), never walked or written into.
func TestChainReopenSameDir(t *testing.T) {
	dir := t.TempDir()
	deep := filepath.Join(dir, "a")
	for i := 0; i < chainWindow+4; i++ {
		deep = filepath.Join(deep, "d")
	}
	testfs.Mkdir(t, deep)
	top, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	c, err := newChain(top)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	if err := c.push("a", false); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < chainWindow+4; i++ {
		if err := c.push("d", false); err != nil {
			t.Fatal(err)
		}
	}
	open := 0
	for _, fd := range c.fds {
		if fd >= 0 {
			open++
		}
	}
	if open != chainWindow+1 {
		t.Errorf("%d descriptors open, want %d", open, chainWindow+1)
	}
	// Climbing back through "..", each directory is the one it was.
	for c.depth() > 2 {
		c.pop()
		if _, err := c.fd(); err != nil {
			t.Fatalf("back at depth %d: %v", c.depth(), err)
		}
	}
	// a/d (closed, depth 2 now reached by name) is swapped for another.
	c.pop()
	if c.fds[1] >= 0 {
		unix.Close(c.fds[1])
		c.fds[1] = -1
	}
	if err := os.Rename(filepath.Join(dir, "a"), filepath.Join(dir, "moved")); err != nil {
		t.Fatal(err)
	}
	testfs.Mkdir(t, filepath.Join(dir, "a", "d"))
	if _, err := c.fd(); err != unix.ESTALE {
		t.Errorf("a directory swapped in at the name was opened: %v, want ESTALE", err)
	}
}
