package upload

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"golang.org/x/sys/unix"
)

// Tx is one upload call's writes in its upload directory of a workspace
// filesystem: every file is first staged under a temporary name, then
// placed as <sha256>.<ext>. Tx remembers the temporary files it staged and
// the files it placed, so that Rollback takes back exactly what this call
// wrote and Commit keeps it.
//
// A Tx is used by one goroutine. Its failures are *Failure values with the
// code UPLOAD_FAILED (whose cause names the step and the path relative to
// the workspace root, never an absolute path), except where a method says
// otherwise.
type Tx struct {
	// Fault, when not nil (tests set it), may fail a step: "place" before a
	// file is renamed into place, "cleanup" before a placed file is removed
	// again. name is the file's name in the upload directory.
	Fault func(step, name string) error

	fs      *fsroot.FS
	rel     string // the directory, relative to the root
	abs     string // the directory beneath the real root
	dirfd   int
	temps   map[string]*os.File // staged, not yet placed or removed; locked while open
	written []string            // names placed by this call
	placed  map[string]Placed
	mode    uint32
	created []fsroot.Loc // directories this call created, deepest first
	locked  bool         // holds the directory (see Place)
}

// Staged is a file's content in a temporary file of the upload directory.
type Staged struct {
	tmp  string
	Size int64  // bytes
	Hash string // SHA-256, lower-case hex
}

// Placed is where a file's content is.
type Placed struct {
	Rel string // relative to the workspace root, slash-separated
	Abs string // beneath the real (symlink-free) workspace root
	// Written is false when the same content was already in place.
	Written bool
}

// OverLimit is Stage's error for content larger than its limit; Size is
// the content's whole size.
type OverLimit struct{ Size int64 }

func (e *OverLimit) Error() string { return fmt.Sprintf("over the limit (%d bytes)", e.Size) }

// Begin creates the upload directory dir (relative to the workspace root,
// slash-separated) beneath the root, through fsys.Resolve like any path ws
// writes, and opens it. The directories it creates are removed again by a
// Rollback that leaves nothing else behind.
func Begin(fsys *fsroot.FS, dir string) (*Tx, error) {
	t, err := fsys.Resolve(dir)
	if err != nil {
		return nil, UploadFailed(err.Error(), nil)
	}
	var created []fsroot.Loc
	for l := t.Loc(); l.Sub() != "." && l.Sub() != ""; l, _ = l.Parent() {
		if _, err := fsys.Lstat(l); err == nil {
			break
		}
		created = append(created, l)
	}
	if err := fsys.MkdirAll(t.Loc()); err != nil {
		if err == unix.EEXIST {
			err = unix.ENOTDIR
		}
		return nil, UploadFailed(errs.FromOS("mkdir", dir, err, true).Error(), nil)
	}
	fd, err := fsys.Open(t.Loc(), unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, UploadFailed(errs.FromOS("open", dir, err, true).Error(), nil)
	}
	return &Tx{fs: fsys, rel: dir, abs: filepath.Join(fsys.RealBase(), filepath.FromSlash(dir)), dirfd: fd, created: created,
		temps: map[string]*os.File{}, placed: map[string]Placed{}, mode: 0o666 &^ fsroot.Umask()}, nil
}

// Stage copies r into a new temporary file of the directory, hashing it on
// the way. More than limit bytes stops the copy with *OverLimit (r is still
// read to its end, to report its size); a cancelled ctx stops it too. The
// copy is made durable only when it is placed: one that turns out to be
// there already is dropped unsynced.
func (tx *Tx) Stage(ctx context.Context, r io.Reader, limit int64) (*Staged, error) {
	tmp := fsroot.NewTempName()
	fd, err := unix.Openat(tx.dirfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o600)
	if err == unix.ENOENT && tx.untouched() {
		// Another call's rollback removed the directory (still empty, as
		// it had created it) after this Tx opened it: make it again.
		if err := tx.reopen(); err != nil {
			return nil, err
		}
		fd, err = unix.Openat(tx.dirfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o600)
	}
	if err != nil {
		return nil, UploadFailed(tx.errText("create", tmp, err), nil)
	}
	_ = unix.Flock(fd, unix.LOCK_EX) // a concurrent ws never takes it for a stale leftover
	f := os.NewFile(uintptr(fd), tmp)
	tx.temps[tmp] = f
	h := sha256.New()
	size, err := copyHashed(ctx, f, h, r, limit)
	if err != nil {
		var over *OverLimit
		if errors.As(err, &over) {
			return nil, err
		}
		return nil, UploadFailed(tx.errText("write", tmp, err), nil)
	}
	if err := unix.Fchmod(fd, tx.mode); err != nil {
		return nil, UploadFailed(tx.errText("chmod", tmp, err), nil)
	}
	return &Staged{tmp: tmp, Size: size, Hash: hex.EncodeToString(h.Sum(nil))}, nil
}

// untouched reports whether the Tx has nothing in its directory yet.
func (tx *Tx) untouched() bool {
	return len(tx.temps) == 0 && len(tx.placed) == 0 && len(tx.written) == 0 && !tx.locked
}

// reopen makes the upload directory again and opens it in place of the
// one that was removed; the directories it makes are this Tx's own.
func (tx *Tx) reopen() error {
	nt, err := Begin(tx.fs, tx.rel)
	if err != nil {
		return err
	}
	unix.Close(tx.dirfd)
	tx.dirfd, tx.created = nt.dirfd, nt.created
	return nil
}

// copyBufSize is the chunk size of uploads.
const copyBufSize = 1 << 20

// copyHashed copies r to f and into h, in constant memory: the hash of one
// chunk runs while the previous chunk is written. It stops at limit bytes.
func copyHashed(ctx context.Context, f *os.File, h hash.Hash, r io.Reader, limit int64) (int64, error) {
	bufs := make(chan []byte, 2)
	bufs <- make([]byte, copyBufSize)
	bufs <- make([]byte, copyBufSize)
	writes := make(chan []byte, 1)
	werr := make(chan error, 1)
	var failed atomic.Bool
	go func() {
		var err error
		for b := range writes {
			if err == nil {
				if _, err = f.Write(b); err != nil {
					failed.Store(true)
				}
			}
			bufs <- b[:cap(b)]
		}
		werr <- err
	}()
	var size int64
	var rerr error
	for !failed.Load() {
		if err := ctx.Err(); err != nil {
			rerr = err
			break
		}
		b := <-bufs
		n, err := io.ReadFull(r, b)
		if n > 0 {
			size += int64(n)
			if size > limit {
				rest, derr := countRest(ctx, r, b)
				bufs <- b
				if derr == nil {
					derr = &OverLimit{Size: size + rest}
				}
				rerr = derr
				break
			}
			h.Write(b[:n])
			writes <- b[:n]
		} else {
			bufs <- b
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			rerr = err
			break
		}
	}
	close(writes)
	if err := <-werr; rerr == nil {
		rerr = err
	}
	return size, rerr
}

// countRest reads r to its end through buf and counts the bytes. A
// cancelled ctx stops it: the stream may never end (a pipe from yes,
// /dev/zero), and ws must still obey SIGINT and SIGTERM.
func countRest(ctx context.Context, r io.Reader, buf []byte) (int64, error) {
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		m, err := r.Read(buf)
		n += int64(m)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// Place renames a staged file into place as <hash>.<ext> (see FileName). A
// file already there is trusted only when its size and hash match (then
// the staged copy is dropped); anything else there is replaced. A file
// another process places meanwhile is never clobbered (RENAME_NOREPLACE)
// unless it turns out not to hold the content. Placing the same content
// twice in one Tx gives the first placement again.
func (tx *Tx) Place(st *Staged, ext string) (Placed, error) {
	name := FileName(st.Hash, ext)
	if p, ok := tx.placed[name]; ok {
		tx.drop(st.tmp)
		return p, nil
	}
	p := Placed{Rel: tx.rel + "/" + name, Abs: filepath.Join(tx.abs, name)}
	if err := tx.lock(); err != nil {
		return p, err
	}
	if tx.Fault != nil {
		if err := tx.Fault("place", name); err != nil {
			return p, UploadFailed(tx.errText("rename", name, err), nil)
		}
	}
	for attempt := 0; ; attempt++ {
		if tx.holds(name, st) {
			tx.drop(st.tmp)
			break
		}
		if attempt == 0 {
			f := tx.temps[st.tmp]
			if f == nil {
				return p, errs.Internalf("upload: %s placed twice", st.tmp)
			}
			if err := f.Sync(); err != nil {
				return p, UploadFailed(tx.errText("fsync", st.tmp, err), nil)
			}
		}
		var err error
		if attempt == 0 {
			err = renameNoReplace(tx.dirfd, st.tmp, name)
		} else {
			err = unix.Renameat(tx.dirfd, st.tmp, tx.dirfd, name)
		}
		if err == unix.EEXIST && attempt == 0 {
			continue // placed meanwhile: check what is there
		}
		if err != nil {
			return p, UploadFailed(tx.errText("rename", name, err), nil)
		}
		tx.closeTemp(st.tmp)
		p.Written = true
		tx.written = append(tx.written, name)
		break
	}
	tx.placed[name] = p
	return p, nil
}

// lock takes the directory for this Tx, from its first placement until it
// is committed or rolled back (closing the directory lets it go). Another
// call that finds a file of this one in place relies on it, and a Rollback
// removes what this Tx placed: so the other call waits until this one has
// kept or taken back its files, then checks what is there.
func (tx *Tx) lock() error {
	if tx.locked {
		return nil
	}
	for {
		err := unix.Flock(tx.dirfd, unix.LOCK_EX)
		if err == nil {
			tx.locked = true
			return nil
		}
		if err != unix.EINTR {
			return UploadFailed(errs.FromOS("lock", tx.rel, err, true).Error(), nil)
		}
	}
}

// renameNoReplace renames without replacing an existing name.
func renameNoReplace(dirfd int, from, to string) error {
	err := unix.Renameat2(dirfd, from, dirfd, to, unix.RENAME_NOREPLACE)
	if err == unix.EINVAL || err == unix.ENOSYS {
		// Filesystems without RENAME_NOREPLACE: link(2) also refuses to replace.
		if err = unix.Linkat(dirfd, from, dirfd, to, 0); err == nil {
			unix.Unlinkat(dirfd, from, 0)
		}
	}
	return err
}

// holds reports whether name is a regular file with the staged content:
// same size, same SHA-256.
func (tx *Tx) holds(name string, st *Staged) bool {
	fd, err := unix.Openat(tx.dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != st.Size {
		return false
	}
	h := sha256.New()
	if _, err := io.CopyBuffer(h, f, make([]byte, copyBufSize)); err != nil {
		return false
	}
	return hex.EncodeToString(h.Sum(nil)) == st.Hash
}

// drop removes a staged temporary file that is not needed.
func (tx *Tx) drop(tmp string) {
	unix.Unlinkat(tx.dirfd, tmp, 0)
	tx.closeTemp(tmp)
}

func (tx *Tx) closeTemp(tmp string) {
	if f := tx.temps[tmp]; f != nil {
		f.Close()
	}
	delete(tx.temps, tmp)
}

// Commit keeps what was placed: it makes the renames durable, removes the
// temporary files not placed and the stale ones other writers left (older
// than now allows), and closes the directory. The Tx is done.
func (tx *Tx) Commit(now time.Time) {
	_ = unix.Fsync(tx.dirfd)
	for tmp := range tx.temps {
		tx.drop(tmp)
	}
	fsroot.RemoveStaleTemps(tx.dirfd, now)
	unix.Close(tx.dirfd)
}

// Rollback takes back what this call wrote: its temporary files, the files
// it placed and, when those are all gone, the directories Begin created
// (as long as they are empty). It returns the placed files' absolute paths
// it could not remove. The Tx is done.
func (tx *Tx) Rollback() []string {
	for tmp := range tx.temps {
		tx.drop(tmp)
	}
	var orphans []string
	for _, name := range tx.written {
		var err error
		if tx.Fault != nil {
			err = tx.Fault("cleanup", name)
		}
		if err == nil {
			err = unix.Unlinkat(tx.dirfd, name, 0)
		}
		if err != nil && err != unix.ENOENT {
			orphans = append(orphans, filepath.Join(tx.abs, name))
		}
	}
	tx.written = nil
	_ = unix.Fsync(tx.dirfd)
	unix.Close(tx.dirfd)
	if len(orphans) == 0 {
		for _, d := range tx.created {
			if tx.rmdir(d) != nil {
				break // not empty: someone else uses it now
			}
		}
	}
	return orphans
}

// rmdir removes the empty directory l.
func (tx *Tx) rmdir(l fsroot.Loc) error {
	p, name := l.Parent()
	pfd, err := tx.fs.Open(p, unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	defer unix.Close(pfd)
	return unix.Unlinkat(pfd, name, unix.AT_REMOVEDIR)
}

// errText describes a failed step without absolute paths.
func (tx *Tx) errText(op, name string, err error) string {
	return op + " " + tx.rel + "/" + name + ": " + errs.Errno(err)
}
