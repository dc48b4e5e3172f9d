package fsroot

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"strings"

	"golang.org/x/sys/unix"
)

// TreeBuilder makes a new tree, for an undo that puts a directory back,
// under a hidden temporary name in the directory it goes in, and Commit
// renames it into place whole: until then no part of it is at its path.
// Its files are written without a sync each: Commit syncs the file system
// once (syncfs) before the rename, so that the tree is at its path only
// once all of it is on disk. A crash before leaves the temporary tree,
// which the next write in that directory removes (its maker is gone);
// nothing at the path changed. It goes by descriptors alone (dirChain):
// a tree deeper than PATH_MAX is made whole.
type TreeBuilder struct {
	pfd   int // the directory the tree goes in
	tmp   string
	c     *dirChain
	umask uint32
	done  bool
}

// NewTree starts a tree to go in the existing directory p; the
// temporary files writers now gone left there are removed first.
func (fsys *FS) NewTree(p Loc) (*TreeBuilder, error) {
	pfd, err := fsys.Open(p, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	RemoveStaleTemps(pfd, fsys.now())
	tmp := NewTempName()
	if err := unix.Mkdirat(pfd, tmp, 0o700); err != nil {
		unix.Close(pfd)
		return nil, err
	}
	b := &TreeBuilder{pfd: pfd, tmp: tmp, umask: Umask()}
	top, err := OpenDirAt(pfd, tmp)
	if err == nil {
		b.c, err = newChain(top)
	}
	if err != nil {
		b.done = true
		_ = removeAll(pfd, tmp)
		unix.Close(pfd)
		return nil, err
	}
	return b, nil
}

// at moves the chain to the directory dir of the tree (slash-separated,
// "" or "." for its top), making those missing, and gives its descriptor.
func (b *TreeBuilder) at(dir string) (int, error) {
	var parts []string
	if dir != "" && dir != "." {
		parts = strings.Split(dir, "/")
	}
	common := 0
	for common < len(parts) && common < b.c.depth() && b.c.names[common+1] == parts[common] {
		common++
	}
	for b.c.depth() > common {
		b.c.pop()
	}
	for _, p := range parts[common:] {
		if err := b.c.push(p, true); err != nil {
			return -1, err
		}
	}
	return b.c.fd()
}

// parentOf is the directory of the tree holding rel, and rel's name there.
func (b *TreeBuilder) parentOf(rel string) (int, string, error) {
	if !validRel(rel) {
		return -1, "", unix.EINVAL
	}
	fd, err := b.at(path.Dir(rel))
	return fd, path.Base(rel), err
}

// validRel reports whether rel is a clean relative path that stays in
// the tree.
func validRel(rel string) bool {
	if rel == "" {
		return false
	}
	for _, e := range strings.Split(rel, "/") {
		if e == "" || e == "." || e == ".." {
			return false
		}
	}
	return true
}

// Mkdir makes the directory rel (and those missing above it), owner-only
// until SetDirAttrs gives it its mode.
func (b *TreeBuilder) Mkdir(rel string) error {
	fd, name, err := b.parentOf(rel)
	if err != nil {
		return err
	}
	if err := unix.Mkdirat(fd, name, 0o700); err != nil && err != unix.EEXIST {
		return err
	}
	return nil
}

// File writes the file rel with data, mode (0: 0666 less the umask) and
// owner (where permitted), unsynced: Commit syncs.
func (b *TreeBuilder) File(rel string, data []byte, mode fs.FileMode, owner *[2]uint32) error {
	dfd, name, err := b.parentOf(rel)
	if err != nil {
		return err
	}
	fd, err := unix.Openat(dfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		return err
	}
	m := uint32(0o666) &^ b.umask
	if mode != 0 {
		m = UnixMode(mode)
	}
	// The owner before the mode: chown(2) clears setuid and setgid.
	chownFD(fd, owner)
	return unix.Fchmod(fd, m)
}

// Symlink makes the symlink rel holding target, with owner where permitted.
func (b *TreeBuilder) Symlink(rel, target string, owner *[2]uint32) error {
	fd, name, err := b.parentOf(rel)
	if err != nil {
		return err
	}
	if err := unix.Symlinkat(target, fd, name); err != nil {
		return err
	}
	if owner != nil {
		_ = unix.Fchownat(fd, name, int(owner[0]), int(owner[1]), unix.AT_SYMLINK_NOFOLLOW)
	}
	return nil
}

// SetDirAttrs gives the directory rel ("." for the tree's top) its owner,
// where permitted, then its mode. A directory is given them after all it
// holds, so that one made read-only is filled first.
func (b *TreeBuilder) SetDirAttrs(rel string, mode fs.FileMode, owner *[2]uint32) error {
	var fd int
	if rel == "." || rel == "" {
		var err error
		if fd, err = b.at(""); err != nil {
			return err
		}
	} else {
		pfd, name, err := b.parentOf(rel)
		if err != nil {
			return err
		}
		if fd, err = OpenDirAt(pfd, name); err != nil {
			return err
		}
		defer unix.Close(fd)
	}
	chownFD(fd, owner)
	return unix.Fchmod(fd, UnixMode(mode))
}

// Commit puts the tree at name in its directory, which must be free
// there (else EEXIST, and the tree is not put anywhere: Abort removes
// it). Everything written is synced first, with one syncfs of the file
// system; then the rename, and the directory's fsync.
func (b *TreeBuilder) Commit(name string) error {
	if b.done {
		return ErrFinishedTree
	}
	b.c.close()
	if err := unix.Syncfs(b.pfd); err != nil {
		return err
	}
	err := renameNoReplace(b.pfd, b.tmp, b.pfd, name)
	if err == unix.EINVAL || err == unix.ENOSYS {
		err = renameNoReplaceFallback(b.pfd, b.tmp, b.pfd, name)
	}
	if err != nil {
		return err
	}
	b.done = true
	_ = unix.Fsync(b.pfd)
	unix.Close(b.pfd)
	return nil
}

// Abort removes the tree not committed; after Commit it does nothing.
func (b *TreeBuilder) Abort() {
	if b.done {
		return
	}
	b.done = true
	b.c.close()
	_ = removeAll(b.pfd, b.tmp)
	unix.Close(b.pfd)
}

// ErrFinishedTree is Commit's error on a tree already committed or aborted.
var ErrFinishedTree = errors.New("tree already committed or aborted")
