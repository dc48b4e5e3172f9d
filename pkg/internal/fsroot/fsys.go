package fsroot

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/procstate"
	"golang.org/x/sys/unix"
)

// ForceNoOpenat2 makes the workspace use the realpath-check fallback even
// where openat2 exists; tests set it to cover both paths.
var ForceNoOpenat2 bool

// Loc is a place below an allowed root (root nil: an uncontained workspace,
// where abs is used as is).
type Loc struct {
	root *allowedRoot
	sub  string
	abs  string
}

func (t *Target) Loc() Loc {
	return Loc{root: t.root, sub: t.sub, abs: string(t.Abs)}
}

// InRoot reports whether l lies below an allowed root (false in an
// uncontained workspace, where places are plain absolute paths).
func (l Loc) InRoot() bool { return l.root != nil }

// Sub is l's slash-separated path below its root ("." for the root itself;
// "" when l is not in a root).
func (l Loc) Sub() string { return l.sub }

// Abs is l's absolute path, symlinks not resolved.
func (l Loc) Abs() string { return l.abs }

// Parent is the directory holding l, and l's name in it.
func (l Loc) Parent() (Loc, string) {
	if l.root == nil {
		return Loc{abs: filepath.Dir(l.abs)}, filepath.Base(l.abs)
	}
	return Loc{root: l.root, sub: path.Dir(l.sub), abs: filepath.Dir(l.abs)}, path.Base(l.sub)
}

// Child is the place of name inside the directory l.
func (l Loc) Child(name string) Loc {
	if name == "" || name == "." || name == ".." || strings.ContainsRune(name, '/') {
		if l.root == nil {
			return Loc{abs: filepath.Join(l.abs, name)}
		}
		return Loc{root: l.root, sub: path.Join(l.sub, name), abs: filepath.Join(l.abs, name)}
	}
	// A plain name (what directory listings give): no cleaning needed.
	abs := l.abs + "/" + name
	if l.abs == "/" {
		abs = "/" + name
	}
	if l.root == nil {
		return Loc{abs: abs}
	}
	sub := name
	if l.sub != "." && l.sub != "" {
		sub = l.sub + "/" + name
	}
	return Loc{root: l.root, sub: sub, abs: abs}
}

// rootFD returns an O_PATH descriptor of an allowed root, opened once.
func (fsys *FS) rootFD(r *allowedRoot) (int, error) {
	fsys.mu.Lock()
	defer fsys.mu.Unlock()
	if fd, ok := fsys.rootFDs[r]; ok {
		return fd, nil
	}
	fd, err := unix.Open(r.real, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	fsys.rootFDs[r] = fd
	return fd, nil
}

// openRaw opens l with flags. Contained: beneath its root with openat2, or
// after a realpath check where openat2 is missing. An escape is EXDEV.
func (fsys *FS) openRaw(l Loc, flags int, mode uint32) (int, error) {
	if l.root == nil {
		return retryEINTR(func() (int, error) { return unix.Open(l.abs, flags|unix.O_CLOEXEC, mode) })
	}
	if HaveOpenat2() {
		rfd, err := fsys.rootFD(l.root)
		if err != nil {
			return -1, err
		}
		return openat2Beneath(rfd, l.sub, flags, mode)
	}
	// No openat2. Opens that read or write go through Go's os.Root, which
	// walks the path one component at a time below the root and refuses a
	// symlink that leads out: race-free too. O_PATH opens (stat, where a
	// path points) cannot be expressed that way; they keep a realpath check,
	// which a concurrent symlink swap can race (it reveals metadata at most).
	if flags&unix.O_PATH == 0 {
		root, err := fsys.osRoot(l.root)
		if err != nil {
			return -1, err
		}
		f, err := root.OpenFile(l.sub, flags&^unix.O_NOFOLLOW, fs.FileMode(mode))
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			if err != nil && strings.Contains(err.Error(), "escapes from parent") {
				err = unix.EXDEV
			}
			return -1, err
		}
		fd, err := unix.Dup(int(f.Fd()))
		f.Close()
		return fd, err
	}
	abs := filepath.Join(l.root.real, filepath.FromSlash(l.sub))
	if !fsys.InsideAnyRoot(RealpathPartial(abs)) {
		return -1, unix.EXDEV
	}
	return retryEINTR(func() (int, error) { return unix.Open(abs, flags|unix.O_CLOEXEC, mode) })
}

// osRoot returns Go's os.Root of an allowed root, opened once.
func (fsys *FS) osRoot(r *allowedRoot) (*os.Root, error) {
	fsys.mu.Lock()
	defer fsys.mu.Unlock()
	if root, ok := fsys.osRoots[r]; ok {
		return root, nil
	}
	root, err := os.OpenRoot(r.real)
	if err != nil {
		return nil, err
	}
	fsys.osRoots[r] = root
	return root, nil
}

// Open opens l, following symlinks that stay inside the allowed roots. A
// symlink that is absolute, or crosses from one allowed root into another,
// is re-resolved and opened beneath the root that really holds it.
func (fsys *FS) Open(l Loc, flags int, mode uint32) (int, error) {
	fd, err := fsys.openRaw(l, flags, mode)
	if err == unix.ELOOP && l.root != nil && isLinkLoop(filepath.Join(l.root.real, filepath.FromSlash(l.sub))) {
		return -1, errs.ErrLinkLoop
	}
	if err != unix.EXDEV || l.root == nil {
		return fd, err
	}
	real := RealpathPartial(filepath.Join(l.root.real, filepath.FromSlash(l.sub)))
	for _, r := range fsys.roots {
		if sub, ok := Within(r.real, real); ok {
			return fsys.openRaw(Loc{root: r, sub: sub, abs: real}, flags, mode)
		}
	}
	return -1, unix.EXDEV
}

// isLinkLoop tells an ELOOP of the path's own symlinks (a loop, or a
// chain longer than the kernel follows) from one of the refusals that
// ELOOP also means below a root (a final symlink not followed, a /proc
// magic link): the kernel's own resolution, without those rules, fails
// on a loop alone. It only looks at the path; nothing is opened.
func isLinkLoop(abs string) bool {
	var st unix.Stat_t
	return unix.Stat(abs, &st) == unix.ELOOP
}

func retryEINTR(f func() (int, error)) (int, error) {
	for {
		fd, err := f()
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// OpenFile opens l as an *os.File named after the user's spelling.
func (fsys *FS) OpenFile(l Loc, flags int, mode uint32, name string) (*os.File, error) {
	fd, err := fsys.Open(l, flags, mode)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// OpenRegular opens a file the tools read (read, edit): without blocking,
// so a FIFO cannot hold ws waiting for a writer, and refusing anything that
// is not a regular file. A directory is Mastra's "Path is a directory".
// A FIFO, a socket or a device is refused before it is opened (an open
// of a socket fails with ENXIO, and a device's open can act: a tape
// rewinds, a watchdog starts); the type is checked again on what was
// opened.
func (fsys *FS) OpenRegular(t *Target, op string) (*os.File, FileStat, error) {
	if st, err := fsys.Stat(t.Loc()); err == nil && !st.IsDir() && !st.Mode.IsRegular() {
		return nil, FileStat{}, errs.NotRegular(op, t.Input, nil)
	}
	f, err := fsys.OpenFile(t.Loc(), unix.O_RDONLY|unix.O_NONBLOCK, 0, t.Input)
	if errors.Is(err, unix.ENXIO) {
		return nil, FileStat{}, errs.NotRegular(op, t.Input, err)
	}
	if err != nil {
		return nil, FileStat{}, errs.FromOS(op, t.Input, err, false)
	}
	st, err := Fstat(int(f.Fd()))
	switch {
	case err != nil:
		f.Close()
		return nil, FileStat{}, errs.FromOS(op, t.Input, err, false)
	case st.IsDir():
		f.Close()
		return nil, FileStat{}, errs.IsDir(t.Input, nil)
	case !st.Mode.IsRegular():
		f.Close()
		return nil, FileStat{}, errs.NotRegular(op, t.Input, nil)
	}
	return f, st, nil
}

// FileStat is what the tools need to know about a file, nanoseconds kept.
type FileStat struct {
	Mode    fs.FileMode
	Size    int64
	MtimeNS int64
	Uid     uint32
	Gid     uint32
}

// IsDir reports whether the file is a directory.
func (s FileStat) IsDir() bool { return s.Mode.IsDir() }

// Mtime is the modification time.
func (s FileStat) Mtime() time.Time { return time.Unix(0, s.MtimeNS) }

func statOf(st *unix.Stat_t) FileStat {
	m := fs.FileMode(st.Mode & 0o777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	}
	if st.Mode&unix.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if st.Mode&unix.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if st.Mode&unix.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return FileStat{Mode: m, Size: st.Size, MtimeNS: st.Mtim.Nano(), Uid: st.Uid, Gid: st.Gid}
}

func Fstat(fd int) (FileStat, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return FileStat{}, err
	}
	return statOf(&st), nil
}

// Stat follows symlinks (inside the roots); lstat does not follow a final one.
func (fsys *FS) Stat(l Loc) (FileStat, error) { return fsys.statFlags(l, unix.O_PATH) }

func (fsys *FS) Lstat(l Loc) (FileStat, error) {
	return fsys.statFlags(l, unix.O_PATH|unix.O_NOFOLLOW)
}

func (fsys *FS) statFlags(l Loc, flags int) (FileStat, error) {
	fd, err := fsys.Open(l, flags, 0)
	if err != nil {
		return FileStat{}, err
	}
	defer unix.Close(fd)
	return Fstat(fd)
}

// RealPathOf names the file behind fd, for read-tracker keys and locks. A
// file replaced since fd was opened (another writer renamed its new version
// over it) reads as "<path> (deleted)": its path is looked up again then,
// so that every writer of one path takes the one lock of that path.
func RealPathOf(fd int, fallback string) string {
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil || !filepath.IsAbs(p) || strings.HasSuffix(p, " (deleted)") {
		return RealpathPartial(fallback)
	}
	return p
}

// RealPath is the symlink-free absolute path of l; for a path that does not
// exist yet, its existing parent's real path joined with the rest.
func (fsys *FS) RealPath(l Loc) string {
	if fd, err := fsys.Open(l, unix.O_PATH, 0); err == nil {
		defer unix.Close(fd)
		return RealPathOf(fd, l.abs)
	}
	return RealpathPartial(l.abs)
}

// OwnRealPath is the real path of l itself: its directory's real path
// and its name, a final symlink not followed (what a delete removes).
func (fsys *FS) OwnRealPath(l Loc) string {
	p, name := l.Parent()
	if p.abs == l.abs || name == "." || name == "/" {
		return fsys.RealPath(l)
	}
	return filepath.Join(fsys.RealPath(p), name)
}

// MkdirAll creates l and its missing parents, each with mkdirat below an
// already opened parent, so no step can be redirected outside the root.
func (fsys *FS) MkdirAll(l Loc) error {
	st, err := fsys.Stat(l)
	if err == nil {
		if st.IsDir() {
			return nil
		}
		return unix.EEXIST
	}
	if !errors.Is(err, unix.ENOENT) {
		return err
	}
	p, name := l.Parent()
	if p.abs == l.abs || name == "." || name == "/" {
		return err
	}
	if err := fsys.MkdirAll(p); err != nil {
		return err
	}
	return fsys.MkdirIn(p, name)
}

// MkdirIn creates one directory name inside the directory p.
func (fsys *FS) MkdirIn(p Loc, name string) error {
	pfd, err := fsys.Open(p, unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	defer unix.Close(pfd)
	err = unix.Mkdirat(pfd, name, 0o777)
	if err == unix.EEXIST {
		if st, serr := fsys.Stat(p.Child(name)); serr == nil && st.IsDir() {
			return nil
		}
	}
	return err
}

// RemoveAt removes name inside the open directory dirfd: a file, a symlink
// (the link only) or, when recursive, a directory and everything below it,
// with a bounded number of descriptors open however deep (removeAll).
// Symlinks are never followed.
func RemoveAt(dirfd int, name string, recursive bool) error {
	if recursive {
		return removeAll(dirfd, name)
	}
	err := unix.Unlinkat(dirfd, name, 0)
	if err == nil || (err != unix.EISDIR && err != unix.EPERM) {
		return err
	}
	return unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR)
}

// TempPrefix starts the name of every temporary file ws creates beside a
// target; ls and grep never show them.
const TempPrefix = ".ws-tmp-"

// staleTempAge is how old an unstamped temporary file (one named before
// names carried their writer) must be before a later write may remove it,
// and then only if no writer holds its lock.
const staleTempAge = time.Minute

// IsTempName reports whether a directory entry is one of ws's temporary files.
func IsTempName(name string) bool { return strings.HasPrefix(name, TempPrefix) }

// writerStamp names this process for good: its pid and its start time
// (which a reused pid does not share), read once.
var writerStamp = sync.OnceValue(func() string {
	pid := os.Getpid()
	start, err := procstate.StartTime(pid)
	if err != nil {
		return ""
	}
	return strconv.Itoa(pid) + "-" + strconv.FormatUint(start, 10) + "-"
})

// NewTempName is the name of a new temporary file beside a target:
// TempPrefix, the writing process's pid and start time, and a random part.
// The stamp lets a later write tell a leftover of a writer that is gone
// (removed at once) from a file a live writer is about to lock.
func NewTempName() string { return TempPrefix + writerStamp() + RandomHex(8) }

// tempWriterGone reports whether the process named in a temporary file's
// name has ended; ok is false for a name without a stamp.
func tempWriterGone(name string) (gone, ok bool) {
	f := strings.Split(strings.TrimPrefix(name, TempPrefix), "-")
	if len(f) != 3 {
		return false, false
	}
	pid, err1 := strconv.Atoi(f[0])
	start, err2 := strconv.ParseUint(f[1], 10, 64)
	if err1 != nil || err2 != nil || pid <= 0 {
		return false, false
	}
	return !procstate.Same(pid, start, ""), true
}

// WriteOptions say how writeAtomic treats an existing file.
type WriteOptions struct {
	NoReplace bool        // fail with EEXIST when the file exists (write --overwrite=false)
	Mode      fs.FileMode // permissions (setuid, setgid, sticky too) of a new file (0: 0666 less the umask); an existing file keeps its own
	// SetMode gives an existing file Mode too (when Mode is not 0): a patch
	// that changes the executable bit, an undo that puts a mode back.
	SetMode bool
	// Owner, when set, is the owner (uid, gid) of a new file, given where
	// permitted (only root may give files away); an existing file keeps its own.
	Owner *[2]uint32
	// Commit, when set, runs the step that makes the write visible (the
	// rename, or the rewrite of a file written in place). It may refuse
	// to run it by returning an error: the write then fails and the old
	// file is untouched.
	Commit func(step func() error) error
	// Track, when set, is told of the temporary file once it is made,
	// with a function that removes it, for a caller that may give up on
	// the write while it still runs (an operation timeout: its process
	// then exits, and the file would stay); untrack is called when the
	// write is done with the file. An error (the caller gave up already)
	// fails the write.
	Track func(remove func()) (untrack func(), err error)
}

// commit runs step through opts.Commit, when there is one.
func (opts WriteOptions) commit(step func() error) error {
	if opts.Commit == nil {
		return step()
	}
	return opts.Commit(step)
}

// WriteAtomic replaces the file at l with the bytes r writes: a temporary file in
// the same directory is written, fsynced, given the old file's mode (and
// owner, when permitted), and renamed over the target; the directory is then
// fsynced. A symlink at l has its target replaced, not the link itself.
// On failure nothing is left behind and the old file is untouched.
func (fsys *FS) WriteAtomic(l Loc, r io.WriterTo, opts WriteOptions) (FileStat, error) {
	dest, err := fsys.FollowFinalLink(l)
	if err != nil {
		return FileStat{}, err
	}
	// Content from a stream waits for its first bytes before the temporary
	// file is made (age's lazy opener), and before the directories it
	// goes in: a writer stopped while it waits leaves nothing behind.
	primed := false
	prime := func() error {
		if p, ok := r.(interface{ Prime() error }); ok && !primed {
			primed = true
			return p.Prime()
		}
		return nil
	}
	p, name := dest.Parent()
	if _, err := fsys.Stat(p); errors.Is(err, unix.ENOENT) {
		if err := prime(); err != nil {
			return FileStat{}, err
		}
	}
	if err := fsys.MkdirAll(p); err != nil {
		if err == unix.EEXIST {
			err = unix.ENOTDIR
		}
		return FileStat{}, err
	}
	pfd, err := fsys.Open(p, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return FileStat{}, err
	}
	defer unix.Close(pfd)
	// Leftovers of killed writers go first, whatever becomes of this write.
	RemoveStaleTemps(pfd, fsys.now())

	ex, err := replacing(pfd, name, opts)
	if err != nil {
		return FileStat{}, err
	}
	if ex.inPlace {
		return writeInPlace(pfd, name, r, opts)
	}
	mode, owner, old := ex.mode, ex.owner, ex.old

	if err := prime(); err != nil {
		return FileStat{}, err
	}
	tmp := NewTempName()
	fd, err := unix.Openat(pfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o600)
	if (err == unix.EACCES || err == unix.EPERM) && old != nil {
		// A writable file in a directory we may not change: no temporary
		// file can be made beside it, so it is rewritten in place, as an
		// editor (and Mastra) would.
		return writeInPlace(pfd, name, r, opts)
	}
	if err != nil {
		return FileStat{}, err
	}
	_ = unix.Flock(fd, unix.LOCK_EX)
	f := os.NewFile(uintptr(fd), tmp)
	fail := func(err error) (FileStat, error) {
		f.Close()
		unix.Unlinkat(pfd, tmp, 0)
		return FileStat{}, err
	}
	if opts.Track != nil {
		untrack, err := opts.Track(func() { unix.Unlinkat(pfd, tmp, 0) })
		if err != nil {
			return fail(err)
		}
		defer untrack() // before pfd is closed
	}
	if _, err := r.WriteTo(f); err != nil {
		return fail(err)
	}
	// The owner before the mode: chown(2) clears setuid and setgid.
	chownFD(fd, owner)
	if old != nil {
		copyXattrs(pfd, name, fd)
	}
	if err := unix.Fchmod(fd, mode); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	err = opts.commit(func() error {
		if !opts.NoReplace {
			return unix.Renameat(pfd, tmp, pfd, name)
		}
		err := unix.Renameat2(pfd, tmp, pfd, name, unix.RENAME_NOREPLACE)
		if err == unix.EINVAL || err == unix.ENOSYS {
			// Filesystems without RENAME_NOREPLACE: link(2) also refuses to replace.
			if err = unix.Linkat(pfd, tmp, pfd, name, 0); err == nil {
				unix.Unlinkat(pfd, tmp, 0)
			}
		}
		return err
	})
	if err != nil {
		return fail(err)
	}
	result, serr := Fstat(fd)
	f.Close()
	_ = unix.Fsync(pfd)
	if serr != nil {
		return FileStat{}, serr
	}
	return result, nil
}

// replaced is what a write learns of the file it replaces: the mode
// and owner the new file gets, the old file's stat (nil: there was none),
// and whether it is to be written in place instead (another user's file).
type replaced struct {
	mode    uint32
	owner   *[2]uint32
	old     *FileStat
	inPlace bool
}

// replacing looks at what a write of name in the directory pfd replaces:
// a directory is EISDIR, anything else not a regular file ErrNotRegular,
// a file there with NoReplace EEXIST, and one this process may not write
// EACCES. A new file gets opts' mode (0: 0666 less the umask) and owner;
// an existing one keeps its own (its mode unless SetMode).
func replacing(pfd int, name string, opts WriteOptions) (replaced, error) {
	ex := replaced{owner: opts.Owner}
	var st unix.Stat_t
	if err := unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if err != unix.ENOENT {
			return ex, err
		}
		ex.mode = uint32(0o666) &^ Umask()
		if opts.Mode != 0 {
			ex.mode = UnixMode(opts.Mode)
		}
		return ex, nil
	}
	s := statOf(&st)
	switch {
	case s.IsDir():
		return ex, unix.EISDIR
	case opts.NoReplace:
		return ex, unix.EEXIST
	case !s.Mode.IsRegular():
		return ex, ErrNotRegular
	}
	ex.old = &s
	ex.mode = st.Mode & 0o7777
	if opts.SetMode && opts.Mode != 0 {
		ex.mode = UnixMode(opts.Mode)
	}
	ex.owner = &[2]uint32{s.Uid, s.Gid}
	// Renaming needs only the directory's permission; the file's own
	// must allow the write, as an in-place write would require.
	if err := unix.Faccessat(pfd, name, unix.W_OK, unix.AT_EACCESS); err != nil {
		return ex, unix.EACCES
	}
	// A file of another user that we may write: a new file would become
	// ours, so it is written in place, keeping its owner.
	ex.inPlace = os.Geteuid() != 0 && int(s.Uid) != os.Geteuid()
	return ex, nil
}

var ErrNotRegular = errors.New("not a regular file")

// UnixMode is m as mode bits of chmod(2): permissions, setuid, setgid, sticky.
func UnixMode(m fs.FileMode) uint32 {
	mode := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		mode |= unix.S_ISUID
	}
	if m&fs.ModeSetgid != 0 {
		mode |= unix.S_ISGID
	}
	if m&fs.ModeSticky != 0 {
		mode |= unix.S_ISVTX
	}
	return mode
}

// copyXattrs gives the new file open at fd the extended attributes of the
// file name in the directory pfd that it replaces: user attributes, a
// POSIX ACL (system.posix_acl_access), a security label, so that a write
// does not drop them with the old inode. Best effort, as cp -a is: one
// this process may not set (trusted.*, security.* without the privilege)
// is left out. Before the mode is set, which keeps the ACL's mask.
func copyXattrs(pfd int, name string, fd int) {
	src := "/proc/self/fd/" + strconv.Itoa(pfd) + "/" + name
	list := make([]byte, 1024)
	n, err := unix.Llistxattr(src, list)
	if err == unix.ERANGE {
		if n, err = unix.Llistxattr(src, nil); err == nil {
			list = make([]byte, n)
			n, err = unix.Llistxattr(src, list)
		}
	}
	if err != nil || n <= 0 {
		return
	}
	var val []byte
	for _, attr := range strings.Split(strings.TrimSuffix(string(list[:n]), "\x00"), "\x00") {
		size, err := unix.Lgetxattr(src, attr, nil)
		if err != nil || size < 0 {
			continue
		}
		if cap(val) < size {
			val = make([]byte, size)
		}
		size, err = unix.Lgetxattr(src, attr, val[:size])
		if err != nil {
			continue
		}
		_ = unix.Fsetxattr(fd, attr, val[:size], 0)
	}
}

// chownFD gives the open file fd the owner (uid, gid) when it has another
// one; best effort, as only root may give files away.
func chownFD(fd int, owner *[2]uint32) {
	if owner == nil {
		return
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil && st.Uid == owner[0] && st.Gid == owner[1] {
		return
	}
	_ = unix.Fchown(fd, int(owner[0]), int(owner[1]))
}

// SetDirAttrs gives the directory at l (not followed if a symlink) the
// owner, where permitted, and then the mode (permissions, setuid, setgid,
// sticky), as an undo puts a directory back.
func (fsys *FS) SetDirAttrs(l Loc, mode fs.FileMode, owner *[2]uint32) error {
	fd, err := fsys.Open(l, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	chownFD(fd, owner)
	return unix.Fchmod(fd, UnixMode(mode))
}

// Access checks whether this process may use what is at l as mode says
// (unix.W_OK, unix.X_OK …), with its effective ids, as access(2) does.
func (fsys *FS) Access(l Loc, mode uint32) error {
	return fsys.inParent(l, func(dirfd int, name string) error {
		return unix.Faccessat(dirfd, name, mode, unix.AT_EACCESS)
	})
}

// Lchown gives the symlink at l the owner (uid, gid), where permitted;
// best effort.
func (fsys *FS) Lchown(l Loc, owner *[2]uint32) {
	if owner == nil {
		return
	}
	_ = fsys.inParent(l, func(dirfd int, name string) error {
		return unix.Fchownat(dirfd, name, int(owner[0]), int(owner[1]), unix.AT_SYMLINK_NOFOLLOW)
	})
}

// writeInPlace rewrites an existing file in place (for a file of another
// user, whose owner an atomic replacement could not keep, and for a file
// in a directory where no temporary file can be made). The new content is
// taken in full first: r may read from the very file (an edit of a mapped
// file), and a reader that fails must leave the file as it was. Then the
// room for it is taken (fallocate), so that a full disk fails the write
// before a byte of the file has changed; only then is the old content
// overwritten and the file cut to the new length.
func writeInPlace(pfd int, name string, r io.WriterTo, opts WriteOptions) (FileStat, error) {
	var buf bytes.Buffer
	if _, err := r.WriteTo(&buf); err != nil {
		return FileStat{}, err
	}
	var st FileStat
	err := opts.commit(func() error {
		fd, err := unix.Openat(pfd, name, unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		f := os.NewFile(uintptr(fd), name)
		defer f.Close()
		if err := reserve(fd, int64(buf.Len())); err != nil {
			return err
		}
		if _, err := f.WriteAt(buf.Bytes(), 0); err != nil {
			return err
		}
		if err := unix.Ftruncate(fd, int64(buf.Len())); err != nil {
			return err
		}
		if err := f.Sync(); err != nil {
			return err
		}
		st, err = Fstat(fd)
		return err
	})
	return st, err
}

// reserve allocates the first n bytes of the file fd, keeping what it
// holds, where the filesystem can (fallocate): a full disk fails here.
// A filesystem that cannot is written without it.
func reserve(fd int, n int64) error {
	if n == 0 {
		return nil
	}
	for {
		err := unix.Fallocate(fd, 0, 0, n)
		switch err {
		case unix.EINTR:
			continue
		case unix.EOPNOTSUPP, unix.ENOSYS:
			return nil
		}
		return err
	}
}

// FollowFinalLink resolves a symlink at l to the place it points to, which
// must itself be inside the allowed roots. Anything else comes back as is.
func (fsys *FS) FollowFinalLink(l Loc) (Loc, error) {
	st, err := fsys.Lstat(l)
	if err != nil || st.Mode&fs.ModeSymlink == 0 {
		return l, nil
	}
	real := fsys.RealPath(l)
	if l.root == nil {
		return Loc{abs: real}, nil
	}
	for _, r := range fsys.roots {
		if sub, ok := Within(r.real, real); ok {
			return Loc{root: r, sub: sub, abs: real}, nil
		}
	}
	return l, unix.EXDEV
}

// RemoveStaleTemps deletes the temporary files that writers which are gone
// left in the directory. A file stamped with its writer (NewTempName) goes
// as soon as that process has ended; an unstamped one once it is older
// than staleTempAge. Either way, never while a writer holds its lock: a
// writer locks its file right after creating it and keeps the lock until
// the file is renamed or removed.
func RemoveStaleTemps(dirfd int, now time.Time) {
	fd, err := unix.Openat(dirfd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	d := os.NewFile(uintptr(fd), ".")
	defer d.Close()
	for {
		names, err := d.Readdirnames(1024)
		for _, n := range names {
			if IsTempName(n) && staleTemp(dirfd, n, now) {
				removeUnlocked(dirfd, n)
			}
		}
		if err != nil || len(names) == 0 {
			return
		}
	}
}

// SweepTemps removes the temporary files and directories that writers
// now gone left in the directory l, as every write does in its own.
func (fsys *FS) SweepTemps(l Loc) {
	fd, err := fsys.Open(l, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	RemoveStaleTemps(fd, fsys.now())
}

// staleTemp reports whether the temporary file n of the directory was left
// by a writer that is gone; a temporary directory (a tree an undo was
// putting back) too, when its name says whose it was.
func staleTemp(dirfd int, n string, now time.Time) bool {
	var st unix.Stat_t
	if unix.Fstatat(dirfd, n, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return false
	}
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		gone, ok := tempWriterGone(n)
		return ok && gone
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return false
	}
	if gone, ok := tempWriterGone(n); ok {
		return gone
	}
	return now.Sub(time.Unix(0, st.Mtim.Nano())) >= staleTempAge
}

// removeUnlocked removes the file n of the directory unless a writer holds
// its lock; a directory, with all it holds (staleTemp found its maker
// gone).
func removeUnlocked(dirfd int, n string) {
	tfd, err := unix.Openat(dirfd, n, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	var st unix.Stat_t
	if unix.Fstat(tfd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
		unix.Close(tfd)
		_ = RemoveAt(dirfd, n, true)
		return
	}
	if unix.Flock(tfd, unix.LOCK_EX|unix.LOCK_NB) == nil {
		unix.Unlinkat(dirfd, n, 0)
	}
	unix.Close(tfd)
}

func RandomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Umask reads the process umask without changing it (Linux reports it in
// /proc/self/status); elsewhere the common 022 is assumed.
func Umask() uint32 {
	data, err := os.ReadFile("/proc/self/status")
	if err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "Umask:"); ok {
				if n, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
					return uint32(n)
				}
			}
		}
	}
	return 0o022
}

// Remove removes what is at l: a file, a symlink (the link only) or, when
// recursive, a directory and everything below it; nothing is followed.
// The directory that held it is fsynced. A directory that holds anything
// goes as removeTree takes it away: never half of it.
func (fsys *FS) Remove(l Loc, recursive bool) error {
	p, name := l.Parent()
	pfd, err := fsys.Open(p, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	defer unix.Close(pfd)
	if recursive {
		err = removeTree(pfd, name)
	} else {
		err = RemoveAt(pfd, name, false)
	}
	if err != nil {
		return err
	}
	_ = unix.Fsync(pfd)
	return nil
}

// removeTree removes name inside dirfd, and everything below it when it
// is a directory. A directory that holds anything is first renamed to a
// temporary name beside it, in one rename(2), and emptied there: its path
// is gone at once and whole, so a ws killed in the middle of a big tree
// leaves no half of it at the path, only the hidden temporary directory,
// which ls and grep never show and the next write in that directory
// removes (its maker is gone). Where the rename is refused (the directory
// is a mount point) the tree is removed in place, as before; where the
// removal stops partway (a mount point or an immutable file inside), what
// is left is renamed back to its path.
func removeTree(dirfd int, name string) error {
	err := RemoveAt(dirfd, name, false) // a file, a link, an empty directory
	if err != unix.ENOTEMPTY && err != unix.EEXIST {
		return err
	}
	if IsTempName(name) {
		return RemoveAt(dirfd, name, true) // hidden already, and swept if left
	}
	tmp := NewTempName()
	if unix.Renameat(dirfd, name, dirfd, tmp) != nil {
		return RemoveAt(dirfd, name, true)
	}
	if err := removeAway(dirfd, tmp, true); err != nil {
		_ = unix.Renameat(dirfd, tmp, dirfd, name)
		return err
	}
	return nil
}

// removeAway is RemoveAt, for removeTree: tests make it fail, or the
// process die, partway.
var removeAway = RemoveAt

// Rename moves what is at from (a final symlink itself, not followed) to
// to, whose parent must exist, each name taken below its opened parent so
// that neither can be redirected out of the root. With noReplace a
// destination that exists is refused (EEXIST), atomically; without, a
// file there is replaced, and a directory moved replaces only an empty
// directory (rename(2) refuses any other: ENOTEMPTY, ENOTDIR). Both
// directories are fsynced.
func (fsys *FS) Rename(from, to Loc, noReplace bool) error {
	fp, fname := from.Parent()
	tp, tname := to.Parent()
	ffd, err := fsys.Open(fp, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	defer unix.Close(ffd)
	tfd, err := fsys.Open(tp, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	defer unix.Close(tfd)
	if !noReplace {
		err = unix.Renameat(ffd, fname, tfd, tname)
	} else if err = renameNoReplace(ffd, fname, tfd, tname); err == unix.EINVAL || err == unix.ENOSYS {
		err = renameNoReplaceFallback(ffd, fname, tfd, tname)
	}
	if err != nil {
		return err
	}
	_ = unix.Fsync(tfd)
	_ = unix.Fsync(ffd)
	return nil
}

// renameNoReplace is renameat2(2) with RENAME_NOREPLACE; a test makes it
// fail as on a file system that lacks the flag.
var renameNoReplace = func(ffd int, fname string, tfd int, tname string) error {
	return unix.Renameat2(ffd, fname, tfd, tname, unix.RENAME_NOREPLACE)
}

// renameNoReplaceFallback refuses to replace, as RENAME_NOREPLACE does, on a
// file system without the flag. A file (or link) is linked at its new name,
// which link(2) refuses when the name is taken, and then unlinked at the old
// one. A directory cannot be linked: its new name is claimed with mkdir(2),
// which also refuses a taken name, and the directory renamed over that empty
// one it made (rename(2) replaces an empty directory, and refuses to if
// anything was put in it meanwhile). Either way the entry is never at both
// names, and nothing another process made is replaced.
func renameNoReplaceFallback(ffd int, fname string, tfd int, tname string) error {
	var st unix.Stat_t
	if err := unix.Fstatat(ffd, fname, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		err := unix.Linkat(ffd, fname, tfd, tname, 0)
		if err == nil {
			if err = unix.Unlinkat(ffd, fname, 0); err != nil {
				_ = unix.Unlinkat(tfd, tname, 0) // never the file at both paths
			}
		}
		return err
	}
	if err := unix.Mkdirat(tfd, tname, 0o700); err != nil {
		return err
	}
	err := unix.Renameat(ffd, fname, tfd, tname)
	if err != nil {
		_ = unix.Unlinkat(tfd, tname, unix.AT_REMOVEDIR) // the claim; kept if someone filled it
	}
	return err
}

// ID tells one file from another over time: its inode number, which a
// rename keeps, and its birth time (0 where the file system does not
// record one), which tells it from a file made later that got the same
// inode number.
type ID struct {
	Ino     uint64
	BirthNS int64
}

// Identity is the ID of what is at l (a final symlink not followed).
func (fsys *FS) Identity(l Loc) (ID, error) {
	fd, err := fsys.Open(l, unix.O_PATH|unix.O_NOFOLLOW, 0)
	if err != nil {
		return ID{}, err
	}
	defer unix.Close(fd)
	var st unix.Statx_t
	err = unix.Statx(fd, "", unix.AT_EMPTY_PATH|unix.AT_SYMLINK_NOFOLLOW, unix.STATX_INO|unix.STATX_BTIME, &st)
	if err == unix.ENOSYS {
		var fst unix.Stat_t
		if err := unix.Fstat(fd, &fst); err != nil {
			return ID{}, err
		}
		return ID{Ino: fst.Ino}, nil
	}
	if err != nil {
		return ID{}, err
	}
	id := ID{Ino: st.Ino}
	if st.Mask&unix.STATX_BTIME != 0 {
		id.BirthNS = st.Btime.Sec*1e9 + int64(st.Btime.Nsec)
	}
	return id, nil
}

// FileKey is a file's device and inode: two paths with one key are one
// file (hard links, or a symlink and what it leads to).
type FileKey struct{ Dev, Ino uint64 }

// Key is the FileKey of what is at l, its final symlink followed (inside
// the roots) when follow is set.
func (fsys *FS) Key(l Loc, follow bool) (FileKey, error) {
	flags := unix.O_PATH | unix.O_NOFOLLOW
	if follow {
		flags = unix.O_PATH
	}
	fd, err := fsys.Open(l, flags, 0)
	if err != nil {
		return FileKey{}, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return FileKey{}, err
	}
	return FileKey{Dev: uint64(st.Dev), Ino: st.Ino}, nil
}

// EmptyDir reports whether the directory at l (not followed if a symlink)
// holds nothing, reading at most a few entries of it.
func (fsys *FS) EmptyDir(l Loc) (bool, error) {
	fd, err := fsys.Open(l, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return false, err
	}
	f := os.NewFile(uintptr(fd), l.abs)
	defer f.Close()
	names, err := f.Readdirnames(1)
	if errors.Is(err, io.EOF) {
		return true, nil
	}
	return len(names) == 0, err
}

// HoldsRoot reports whether the real path real is an allowed root (the
// base path included) or a directory above one: moving it would move
// the workspace itself.
func (fsys *FS) HoldsRoot(real string) bool {
	for _, r := range fsys.roots {
		if _, ok := Within(real, r.real); ok {
			return true
		}
	}
	return false
}

// RemoveEmptyDir removes the directory at l if it is empty (rmdir): a
// directory that holds anything, a file or a symlink there, is left as it
// is, with the error that says why (ENOTEMPTY, ENOTDIR).
func (fsys *FS) RemoveEmptyDir(l Loc) error {
	p, name := l.Parent()
	pfd, err := fsys.Open(p, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	defer unix.Close(pfd)
	if err := unix.Unlinkat(pfd, name, unix.AT_REMOVEDIR); err != nil {
		return err
	}
	_ = unix.Fsync(pfd)
	return nil
}

// inParent opens the directory holding l and calls fn with it and l's
// name there: an operation on a final component that follows no link.
func (fsys *FS) inParent(l Loc, fn func(dirfd int, name string) error) error {
	p, name := l.Parent()
	pfd, err := fsys.Open(p, unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	defer unix.Close(pfd)
	return fn(pfd, name)
}

// Symlink creates a symlink at l (whose parent must exist) holding target.
func (fsys *FS) Symlink(l Loc, target string) error {
	return fsys.inParent(l, func(dirfd int, name string) error { return unix.Symlinkat(target, dirfd, name) })
}

// Readlink is the text of the symlink at l.
func (fsys *FS) Readlink(l Loc) (target string, err error) {
	err = fsys.inParent(l, func(dirfd int, name string) error {
		target = readlinkAt(dirfd, name)
		if target == "" {
			return unix.EINVAL
		}
		return nil
	})
	return target, err
}
