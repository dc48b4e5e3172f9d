package fsroot

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wstools/ws/pkg/internal/testfs"
	"golang.org/x/sys/unix"
)

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
