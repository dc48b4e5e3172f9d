package fsroot

import (
	"slices"

	"github.com/wstools/ws/pkg/internal/fdread"
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

// listedChain is newChain of top with top's names (listNames), the start
// of a walk down the tree, from what opened top (err: it failed); on
// failure top is closed.
func listedChain(top int, err error) (*dirChain, []string, error) {
	if err != nil {
		return nil, nil, err
	}
	c, err := newChain(top)
	if err != nil {
		return nil, nil, err
	}
	names, err := listNames(top)
	if err != nil {
		c.close()
		return nil, nil, err
	}
	return c, names, nil
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

// enter goes down into the directory name (push) and lists it.
func (c *dirChain) enter(name string) ([]string, error) {
	if err := c.push(name, false); err != nil {
		return nil, err
	}
	fd, err := c.fd()
	if err != nil {
		return nil, err
	}
	return listNames(fd)
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

// listNames is the names in the directory open at fd (not read from
// yet), sorted bytewise.
func listNames(fd int) ([]string, error) {
	ents, err := ReadDirFD(fd, false)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name
	}
	slices.Sort(names)
	return names, nil
}

// TreeEntry is one entry WalkTree meets, only valid during the call that
// gets it.
type TreeEntry struct {
	Rel   string   // its slash-separated path below the directory walked
	Name  string   // its name in its directory
	Stat  FileStat // lstat: a symlink is not followed
	dirfd int
}

// ReadFile reads the regular file the entry is, not following a symlink
// and without blocking on a FIFO.
func (e *TreeEntry) ReadFile() ([]byte, error) {
	fd, err := unix.Openat(e.dirfd, e.Name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	st, err := Fstat(fd)
	if err != nil {
		return nil, err
	}
	if !st.Mode.IsRegular() {
		return nil, ErrNotRegular
	}
	return fdread.ReadAll(fd, st.Size, make([]byte, 0, st.Size+1))
}

// Readlink is the text of the symlink the entry is.
func (e *TreeEntry) Readlink() (string, error) {
	if t := readlinkAt(e.dirfd, e.Name); t != "" {
		return t, nil
	}
	return "", unix.EINVAL
}

// Access checks whether this process may use the entry as mode says
// (unix.W_OK, unix.X_OK …), as access(2) does with the effective ids.
func (e *TreeEntry) Access(mode uint32) error {
	return unix.Faccessat(e.dirfd, e.Name, mode, unix.AT_EACCESS)
}

// WalkTree visits everything below the directory at l (not followed if
// it is a symlink), depth-first, each directory's entries in bytewise
// name order, ws's temporary files passed over; fn says for a directory
// whether to go into it. Unlike Walk it goes by descriptors alone, on one
// goroutine, with a bounded number of them open however deep the tree
// (see dirChain), and it fails, with the first error, on any directory
// it cannot open or list: the walks a delete and an undo make must see
// the whole tree, or say they did not. An entry gone meanwhile is passed
// over.
func (fsys *FS) WalkTree(l Loc, fn func(e *TreeEntry) (enter bool, err error)) error {
	c, names, err := listedChain(fsys.Open(l, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0))
	if err != nil {
		return err
	}
	defer c.close()
	type frame struct {
		rel   string
		names []string
	}
	frames := []frame{{names: names}}
	for len(frames) > 0 {
		f := &frames[len(frames)-1]
		if len(f.names) == 0 {
			if frames = frames[:len(frames)-1]; len(frames) > 0 {
				c.pop()
			}
			continue
		}
		name := f.names[0]
		f.names = f.names[1:]
		if IsTempName(name) {
			continue
		}
		dfd, err := c.fd()
		if err != nil {
			return err
		}
		var st unix.Stat_t
		if err := unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err == unix.ENOENT {
			continue
		} else if err != nil {
			return err
		}
		e := TreeEntry{Rel: JoinRel(f.rel, name), Name: name, Stat: statOf(&st), dirfd: dfd}
		enter, err := fn(&e)
		if err != nil {
			return err
		}
		if !enter || !e.Stat.IsDir() {
			continue
		}
		names, err := c.enter(name)
		if err != nil {
			return err
		}
		frames = append(frames, frame{rel: e.Rel, names: names})
	}
	return nil
}

// removeAll removes name inside the open directory dirfd and, when it is
// a directory, everything below it, depth-first, with a bounded number of
// descriptors open however deep it goes (see dirChain). Nothing is
// followed. Where it stops (an entry it may not remove), what it had not
// reached is left.
func removeAll(dirfd int, name string) error {
	err := unix.Unlinkat(dirfd, name, 0)
	if err == nil || (err != unix.EISDIR && err != unix.EPERM) {
		return err
	}
	err = unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR)
	if err != unix.ENOTEMPTY && err != unix.EEXIST {
		return err
	}
	c, names, err := listedChain(OpenDirAt(dirfd, name))
	if err != nil {
		return err
	}
	defer c.close()
	frames := [][]string{names}
	for len(frames) > 0 {
		last := len(frames) - 1
		if len(frames[last]) == 0 {
			if frames = frames[:last]; len(frames) == 0 {
				break
			}
			child := c.names[c.depth()]
			c.pop()
			pfd, err := c.fd()
			if err != nil {
				return err
			}
			if err := unix.Unlinkat(pfd, child, unix.AT_REMOVEDIR); err != nil && err != unix.ENOENT {
				return err
			}
			continue
		}
		n := frames[last][0]
		frames[last] = frames[last][1:]
		fd, err := c.fd()
		if err != nil {
			return err
		}
		err = unix.Unlinkat(fd, n, 0)
		if err == nil || err == unix.ENOENT {
			continue
		}
		if err != unix.EISDIR && err != unix.EPERM {
			return err
		}
		err = unix.Unlinkat(fd, n, unix.AT_REMOVEDIR)
		if err == nil || err == unix.ENOENT {
			continue
		}
		if err != unix.ENOTEMPTY && err != unix.EEXIST {
			return err
		}
		names, err := c.enter(n)
		if err != nil {
			return err
		}
		frames = append(frames, names)
	}
	c.close()
	return unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR)
}
