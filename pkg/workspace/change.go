package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/wstools/ws/pkg/history"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"golang.org/x/sys/unix"
)

// history is the workspace's store of the versions its changes replaced
// (ws undo, ws history), or nil without a state directory.
func (w *Workspace) history() *history.Store {
	if w.stateDir == "" {
		return nil
	}
	return history.Open(filepath.Join(w.stateDir, "history"), history.Options{Now: w.now, Thread: w.thread})
}

// stateAt is what is at l now, as the history keeps it: a regular file's
// bytes and mode (its size only when it is over max), a symlink's text, a
// directory's whole tree (its size only when its files total over max),
// or absent.
func (w *Workspace) stateAt(l fsroot.Loc, max int64) (history.State, error) {
	return w.stateOf(l, max, nil)
}

// stateOf is stateAt, but with specials set a FIFO, a socket or a device
// inside a directory, which the history cannot keep, is passed over and
// its path added to *specials, rather than fail the whole state: a
// delete keeps the rest of the tree for undo, and says what undo cannot
// bring back (before, the delete of a tree holding a FIFO kept nothing,
// and said nothing).
func (w *Workspace) stateOf(l fsroot.Loc, max int64, specials *[]string) (history.State, error) {
	st, err := w.fs.Lstat(l)
	switch {
	case errors.Is(err, unix.ENOENT):
		return history.AbsentState(), nil
	case err != nil:
		return history.State{}, err
	case st.Mode&fs.ModeSymlink != 0:
		target, err := w.fs.Readlink(l)
		s := history.SymlinkState(target)
		s.Owner = ownerOf(st)
		return s, err
	case st.IsDir():
		s, err := w.treeState(l, st, max, specials)
		s.Owner = ownerOf(st)
		return s, err
	case !st.Mode.IsRegular():
		return history.State{}, fsroot.ErrNotRegular
	case st.Size > max:
		return history.State{Kind: history.KindFile, Mode: st.Mode, Owner: ownerOf(st), Size: st.Size, MtimeNS: st.MtimeNS}, nil
	}
	data, err := w.readLoc(l)
	return w.keptState(data, st), err
}

// ownerOf is the owner of a file as the history keeps it.
func ownerOf(st fsroot.FileStat) *history.Owner {
	return &history.Owner{UID: st.Uid, GID: st.Gid}
}

// ownerArg is a kept owner as fsroot takes it (nil: leave it).
func ownerArg(o *history.Owner) *[2]uint32 {
	if o == nil {
		return nil
	}
	return &[2]uint32{o.UID, o.GID}
}

// readLoc reads the regular file at l, not following a final symlink.
func (w *Workspace) readLoc(l fsroot.Loc) ([]byte, error) {
	f, err := w.fs.OpenFile(l, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0, l.Abs())
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f)
}

// hugeRead is the size from which readAll asks for huge pages.
const hugeRead = 8 << 20

// readAll reads an open file to its end in one allocation of its size
// (io.ReadAll grows its buffer by copying, which a big file pays for).
func readAll(f *os.File) ([]byte, error) {
	st, err := fsroot.Fstat(int(f.Fd()))
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 0, st.Size+1)
	if st.Size >= hugeRead {
		// A big buffer in 2 MiB pages, where the kernel allows it: a
		// 50 MB file then costs a few dozen page faults, not 12,000.
		_ = unix.Madvise(buf[:cap(buf)], unix.MADV_HUGEPAGE)
	}
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // it grew: make room
		}
	}
}

// treeState keeps a directory with everything in it (hidden and ignored
// names included), unless its files total over max. It goes by
// descriptors (fsroot.WalkTree), so a tree of any depth is read whole
// with a bounded number of them open, and a directory below that cannot
// be read fails it: a tree kept in part would be put back in part. A
// FIFO, a socket or a device fails it too, unless specials is set: see
// stateOf.
func (w *Workspace) treeState(l fsroot.Loc, st fsroot.FileStat, max int64, specials *[]string) (history.State, error) {
	var nodes []history.Node
	var total int64
	err := w.fs.WalkTree(l, func(e *fsroot.TreeEntry) (bool, error) {
		if total > max {
			return false, nil
		}
		n := history.Node{Path: e.Rel, Owner: ownerOf(e.Stat)}
		var err error
		switch est := e.Stat; {
		case est.Mode&fs.ModeSymlink != 0:
			n.Kind = history.KindSymlink
			n.Target, err = e.Readlink()
		case est.IsDir():
			n.Kind, n.Mode = history.KindDir, est.Mode
		case est.Mode.IsRegular():
			n.Kind, n.Mode = history.KindFile, est.Mode
			if total += est.Size; total <= max {
				n.Data, err = e.ReadFile()
			}
		case specials != nil:
			*specials = append(*specials, e.Rel)
			return false, nil
		default:
			err = fsroot.ErrNotRegular
		}
		nodes = append(nodes, n)
		return n.Kind == history.KindDir, err
	})
	if total > max {
		return history.State{Kind: history.KindDir, Mode: st.Mode, Size: total}, err
	}
	return history.DirState(st.Mode, nodes), err
}

// recording is one change being recorded: begun before the writes,
// committed after them. The history serves undo; when it cannot record
// (a full disk, a damaged store) the change goes ahead without it, with a
// warning, rather than fail.
type recording struct {
	w *Workspace
	p *history.Pending
	// tooBig names the files whose previous version is over what the
	// history keeps of a file: done warns that undo cannot take the
	// change back (a tool that says so in its own text clears it).
	tooBig    []string
	tooBigDir bool // a directory, the one file of a delete
	// unkept is the warning that the history could not record the
	// change, given by done once the change is made: a change that fails
	// is not one undo would miss.
	unkept string
}

// record begins recording a change of the files in changes.
func (w *Workspace) record(op history.Op, changes ...history.Change) *recording {
	h := w.history()
	if h == nil || len(changes) == 0 {
		return &recording{w: w}
	}
	for i, c := range changes {
		if c.Before.Kind == history.KindAbsent && c.MadeDirs == 0 {
			changes[i].MadeDirs = missingDirs(c.Key)
		}
	}
	p, err := h.Begin(op, changes...)
	rec := &recording{w: w, p: p}
	if err != nil {
		rec.unkept = "the change of " + changes[0].Path + " is not kept for undo: " + unrecorded(err)
	}
	if p == nil || op == history.OpUndo {
		return rec
	}
	for _, c := range changes {
		// A file renamed needs no bytes to be renamed back.
		if c.Rename != history.RenameFrom && tooBigToKeep(c.Before) && c.Before.Size > h.Options().MaxEntryBytes {
			rec.tooBig = append(rec.tooBig, c.Path)
			rec.tooBigDir = rec.tooBigDir || c.Before.Kind == history.KindDir
		}
	}
	return rec
}

// tooBigToKeep reports whether st is a regular file known by its size
// only (stateAt reads no bytes over the cap), or a directory whose tree
// was not read for the same reason: the history cannot keep it.
func tooBigToKeep(st history.State) bool {
	switch st.Kind {
	case history.KindFile:
		return st.Data == nil && st.Size > 0
	case history.KindDir:
		return st.Tree == nil && st.Size > 0
	}
	return false
}

// tooBigText says why undo cannot take back a change of name: the version
// it replaced was over limit bytes, the most the history keeps of a file.
func tooBigText(name string, limit int64) string {
	size := fmt.Sprintf("%d bytes", limit)
	if limit%(1<<20) == 0 {
		size = fmt.Sprintf("%d MiB", limit>>20)
	}
	return name + " was over " + size + " (the most undo keeps of a file)"
}

// tooBigDirText is tooBigText for a directory, whose files together
// were over limit bytes.
func tooBigDirText(name string, limit int64) string {
	text := strings.Replace(tooBigText(name, limit), " was over ", "'s files were over ", 1)
	return strings.Replace(text, "(the most undo keeps of a file)", "(the most undo keeps of a file or a directory)", 1)
}

// missingDirs is how many of the nearest ancestors of key (a real
// absolute path) do not exist: the directories a write of key makes.
func missingDirs(key string) int {
	n := 0
	for d := filepath.Dir(key); d != filepath.Dir(d); d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		n++
	}
	return n
}

// removeMadeDirs removes the n nearest ancestors of key (a real absolute
// path), the directories a change made for it, nearest first, as long as
// each is an empty directory: one that holds anything now is kept, and so
// are those above it. It returns the display paths of those removed:
// the ancestors of rel, a workspace-relative display path of key.
func (w *Workspace) removeMadeDirs(key, rel string, n int) []string {
	var removed []string
	for i := 0; i < n; i++ {
		key, rel = filepath.Dir(key), path.Dir(rel)
		t, err := w.fs.Resolve(key)
		if err != nil || rel == "." || w.fs.RemoveEmptyDir(t.Loc()) != nil {
			break
		}
		removed = append(removed, rel)
	}
	return removed
}

// unrecorded says why the history could not record a change: the system's
// reason (a full disk, a read-only file system, a damaged store) or the
// history's own, never a path of the state directory.
func unrecorded(err error) string {
	const text = "the history could not record it"
	var errno unix.Errno
	switch {
	case errors.As(err, &errno):
		return text + " (" + errno.Error() + ")"
	case errors.Is(err, history.ErrLockTimeout):
		return text + " (" + history.ErrLockTimeout.Error() + ")"
	case errors.Is(err, history.ErrCorrupt):
		return text + " (" + history.ErrCorrupt.Error() + ")"
	}
	return text
}

// done commits the change with each file's fingerprint after it (zero for
// a file left alone), or drops it when the writes failed.
func (r *recording) done(err error, after ...history.Fingerprint) {
	switch {
	case r.p == nil:
		if err == nil && r.unkept != "" {
			r.w.warn(r.unkept)
		}
	case err != nil:
		_ = r.p.Abort()
	default:
		if _, cerr := r.p.Commit(after...); cerr != nil {
			r.w.warn("the change is not kept for undo: " + unrecorded(cerr))
			return
		}
		for _, name := range r.tooBig {
			text := tooBigText(name, r.w.keepLimit())
			if r.tooBigDir {
				text = tooBigDirText(name, r.w.keepLimit())
			}
			r.w.warn("undo cannot take this change back: " + text)
		}
	}
}

// keptState is a regular file's state for the history: its bytes when
// they are within the cap, else its size only (and nothing is hashed: a
// big file costs no more than its write).
func (w *Workspace) keptState(data []byte, st fsroot.FileStat) history.State {
	if int64(len(data)) > w.keepLimit() {
		return history.State{Kind: history.KindFile, Mode: st.Mode, Owner: ownerOf(st), Size: int64(len(data)), MtimeNS: st.MtimeNS}
	}
	s := history.FileState(data, st.Mode, st.MtimeNS)
	s.Owner = ownerOf(st)
	return s
}

// writtenPrint is the fingerprint of bytes just written: their hash
// within the cap, else size and mtime (which the history compares when
// there is no hash).
func (w *Workspace) writtenPrint(data []byte, st fsroot.FileStat) history.Fingerprint {
	if int64(len(data)) > w.keepLimit() {
		return history.Fingerprint{Kind: history.KindFile, Size: int64(len(data)), MtimeNS: st.MtimeNS}
	}
	return history.FileFingerprint(data, st.MtimeNS)
}

// keepLimit is the most bytes of one file's previous state the history
// keeps.
func (w *Workspace) keepLimit() int64 {
	if h := w.history(); h != nil {
		return h.Options().MaxEntryBytes
	}
	return 0
}
