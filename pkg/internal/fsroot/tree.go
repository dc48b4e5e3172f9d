package fsroot

import (
	"golang.org/x/sys/unix"
)

// chainWindow is how many of a dirChain's deepest directories stay open;
// those above them (but the top) are closed, and opened again when the
// chain climbs back to them.
const chainWindow = 16

// dirChain is where a walk of a tree is: the directories from its top
// down to the one it is in, each known by its name in the one above and
// by its identity (device and inode). However deep the tree, at most
// chainWindow+1 of their descriptors are open at once, as fts(3) and
// rm -r keep theirs: a directory that fell out of the window is opened
// again from its child's "..", or else by name from the nearest open
// directory above it, never following a symlink, and only taken when it
// is the same directory as before (else ESTALE: the tree was moved while
// the walk was in it). Paths are never used: a tree deeper than PATH_MAX
// allows is walked whole.
type dirChain struct {
	fds   []int     // fds[0] is the top's; -1 for a directory closed
	names []string  // names[i] is directory i's name in directory i-1 (names[0] is "")
	ids   []FileKey // what each directory is
}

// newChain starts a chain at the directory open at top, which it takes
// over (close closes it).
func newChain(top int) (*dirChain, error) {
	id, err := fdKey(top)
	if err != nil {
		unix.Close(top)
		return nil, err
	}
	return &dirChain{fds: []int{top}, names: []string{""}, ids: []FileKey{id}}, nil
}

func fdKey(fd int) (FileKey, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return FileKey{}, err
	}
	return FileKey{Dev: uint64(st.Dev), Ino: st.Ino}, nil
}

// depth is how far below the top the chain is.
func (c *dirChain) depth() int { return len(c.fds) - 1 }

// fd is the descriptor of the directory the chain is in, opened again
// (by name, from the nearest open directory above) if it was closed.
func (c *dirChain) fd() (int, error) {
	last := len(c.fds) - 1
	if c.fds[last] >= 0 {
		return c.fds[last], nil
	}
	i := last - 1
	for c.fds[i] < 0 {
		i--
	}
	fd := c.fds[i]
	for j := i + 1; j <= last; j++ {
		next, err := c.reopen(fd, c.names[j], j)
		if fd != c.fds[i] {
			unix.Close(fd)
		}
		if err != nil {
			return -1, err
		}
		fd = next
	}
	c.fds[last] = fd
	return fd, nil
}

// reopen opens name in dirfd as the chain's directory i, which it must
// be: ESTALE when another directory is there now.
func (c *dirChain) reopen(dirfd int, name string, i int) (int, error) {
	fd, err := OpenDirAt(dirfd, name)
	if err != nil {
		return -1, err
	}
	if id, err := fdKey(fd); err != nil || id != c.ids[i] {
		unix.Close(fd)
		if err == nil {
			err = unix.ESTALE
		}
		return -1, err
	}
	return fd, nil
}

// push goes down into the directory name of the one the chain is in;
// with create, making it (owner-only) when it is missing.
func (c *dirChain) push(name string, create bool) error {
	pfd, err := c.fd()
	if err != nil {
		return err
	}
	fd, err := OpenDirAt(pfd, name)
	if err == unix.ENOENT && create {
		if err = unix.Mkdirat(pfd, name, 0o700); err == nil || err == unix.EEXIST {
			fd, err = OpenDirAt(pfd, name)
		}
	}
	if err != nil {
		return err
	}
	id, err := fdKey(fd)
	if err != nil {
		unix.Close(fd)
		return err
	}
	c.fds, c.names, c.ids = append(c.fds, fd), append(c.names, name), append(c.ids, id)
	if out := len(c.fds) - 1 - chainWindow; out >= 1 && c.fds[out] >= 0 {
		unix.Close(c.fds[out])
		c.fds[out] = -1
	}
	return nil
}

// pop goes back up to the directory above (never above the top). The
// one above, if closed, is opened again from this one's "..", when that
// is still it; fd opens it by name otherwise.
func (c *dirChain) pop() {
	last := len(c.fds) - 1
	if last == 0 {
		return
	}
	if fd := c.fds[last]; fd >= 0 {
		if c.fds[last-1] < 0 {
			if up, err := c.reopen(fd, "..", last-1); err == nil {
				c.fds[last-1] = up
			}
		}
		unix.Close(fd)
	}
	c.fds, c.names, c.ids = c.fds[:last], c.names[:last], c.ids[:last]
}

// close closes every descriptor the chain holds, its top's too.
func (c *dirChain) close() {
	for _, fd := range c.fds {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
	c.fds, c.names, c.ids = c.fds[:0], c.names[:0], c.ids[:0]
}
