package fsroot

import (
	"errors"

	"golang.org/x/sys/unix"
)

// Batch replaces many files as WriteAtomic replaces one, sharing the
// syncs, for an undo that puts back many files at once. Add writes each
// file's new content to a temporary file beside it, unsynced; Sync makes
// them all durable together (one syncfs of each file system); Commit then
// renames each over its file, and Close syncs each directory renamed into
// once and removes the temporary files not renamed. A crash before Sync
// has changed no file (its temporary files are removed by a later write
// there, their writer gone); after it, each file holds its old bytes or
// its new ones, whole, never a part: a temporary file is renamed only
// once it is on disk. WriteAtomic made two fsyncs a file.
type Batch struct {
	fsys   *FS
	items  []batchItem
	swept  map[string]bool // directories whose stale temporary files went
	synced bool
}

type batchItem struct {
	dir       Loc
	name, tmp string
	dev       uint64 // of the file system, for Sync
	committed bool
}

// NewBatch starts a batch of writes.
func (fsys *FS) NewBatch() *Batch { return &Batch{fsys: fsys, swept: map[string]bool{}} }

// ErrNotBatched is Add's answer for a file that must be written on its
// own, by WriteAtomic: one of another user, written in place to keep its
// owner, one in a directory where no temporary file can be made, or a
// write that must not replace (NoReplace).
var ErrNotBatched = errors.New("written on its own")

// Add writes data, the new content of the file at l (a symlink's target
// replaced, as WriteAtomic does, with the same checks, modes and owner),
// to a temporary file beside it, unsynced, and returns the index Commit
// takes. Nothing at l changes until Commit.
func (b *Batch) Add(l Loc, data []byte, opts WriteOptions) (int, error) {
	if opts.NoReplace || opts.Commit != nil || opts.Track != nil {
		return -1, ErrNotBatched
	}
	dest, err := b.fsys.FollowFinalLink(l)
	if err != nil {
		return -1, err
	}
	p, name := dest.Parent()
	if err := b.fsys.MkdirAll(p); err != nil {
		if err == unix.EEXIST {
			err = unix.ENOTDIR
		}
		return -1, err
	}
	pfd, err := b.fsys.Open(p, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return -1, err
	}
	defer unix.Close(pfd)
	if !b.swept[p.abs] {
		b.swept[p.abs] = true
		RemoveStaleTemps(pfd, b.fsys.now())
	}
	ex, err := replacing(pfd, name, opts)
	if err != nil {
		return -1, err
	}
	if ex.inPlace {
		return -1, ErrNotBatched
	}
	tmp := NewTempName()
	fd, err := unix.Openat(pfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o600)
	if (err == unix.EACCES || err == unix.EPERM) && ex.old != nil {
		return -1, ErrNotBatched
	}
	if err != nil {
		return -1, err
	}
	err = writeAll(fd, data)
	if err == nil {
		// The owner before the mode: chown(2) clears setuid and setgid.
		chownFD(fd, ex.owner)
		if ex.old != nil {
			copyXattrs(pfd, name, fd)
		}
		err = unix.Fchmod(fd, ex.mode)
	}
	var st unix.Stat_t
	if err == nil {
		err = unix.Fstat(fd, &st)
	}
	unix.Close(fd)
	if err != nil {
		unix.Unlinkat(pfd, tmp, 0)
		return -1, err
	}
	b.items = append(b.items, batchItem{dir: p, name: name, tmp: tmp, dev: uint64(st.Dev)})
	return len(b.items) - 1, nil
}

func writeAll(fd int, data []byte) error {
	for len(data) > 0 {
		n, err := unix.Write(fd, data)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}

// Sync puts every file added on disk: one syncfs of each file system
// they are on.
func (b *Batch) Sync() error {
	done := map[uint64]bool{}
	for _, it := range b.items {
		if done[it.dev] {
			continue
		}
		fd, err := b.fsys.Open(it.dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err == nil {
			err = unix.Syncfs(fd)
			unix.Close(fd)
		}
		if err != nil {
			return err
		}
		done[it.dev] = true
	}
	b.synced = true
	return nil
}

// Commit renames the file added as i over its path, once Sync has put
// it on disk, and returns what is there now.
func (b *Batch) Commit(i int) (FileStat, error) {
	if !b.synced {
		return FileStat{}, errors.New("fsroot: batch committed before its sync")
	}
	it := &b.items[i]
	pfd, err := b.fsys.Open(it.dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return FileStat{}, err
	}
	defer unix.Close(pfd)
	// Opened before the rename, so the stat is of the file renamed even
	// if another writer replaces it right after.
	fd, err := unix.Openat(pfd, it.tmp, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return FileStat{}, err
	}
	defer unix.Close(fd)
	if err := unix.Renameat(pfd, it.tmp, pfd, it.name); err != nil {
		return FileStat{}, err
	}
	it.committed = true
	return Fstat(fd)
}

// Close syncs each directory a file was renamed into, once, and removes
// the temporary files not renamed.
func (b *Batch) Close() {
	synced := map[string]bool{}
	for _, it := range b.items {
		if it.committed && synced[it.dir.abs] {
			continue
		}
		pfd, err := b.fsys.Open(it.dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err != nil {
			continue
		}
		if it.committed {
			synced[it.dir.abs] = true
			_ = unix.Fsync(pfd)
		} else {
			unix.Unlinkat(pfd, it.tmp, 0)
		}
		unix.Close(pfd)
	}
	b.items = nil
}
