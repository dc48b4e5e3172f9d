package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/history"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/internal/wording"
	"github.com/wstools/ws/pkg/statefile"
)

// UndoResult says what an undo restored.
type UndoResult struct {
	Undid    string       `json:"undid"` // the id of the change taken back
	Op       string       `json:"op"`    // what that change was: write, edit, delete, move, patch, undo
	Files    []UndoneFile `json:"files"`
	Forced   bool         `json:"forced,omitempty"`
	Warnings []string     `json:"warnings,omitempty"`
	when     time.Time
	textOut
}

// UndoneFile is one file an undo restored.
type UndoneFile struct {
	Path     Bytes  `json:"path"`
	Restored string `json:"restored"` // file, absent (removed), symlink or directory
	Bytes    int64  `json:"bytes,omitempty"`
	// RemovedDirs are the directories the change made for a file it
	// created, removed with it (those still empty), nearest first.
	RemovedDirs []Bytes `json:"removed_dirs,omitempty"`
	// RenamedFrom is, for the path a directory rename left, the path the
	// undo renamed the directory back from.
	RenamedFrom Bytes `json:"renamed_from,omitempty"`
}

// heldFile is a file an undo works on, its write lock held.
type heldFile struct {
	e   *history.Entry
	t   *fsroot.Target
	g   *writeGuard
	cur history.State // what is there now
	old history.State // what the change replaced, to put back

	removedDirs []string // the directories made for the file, removed with it
}

// Undo takes back the last change ws made to a file, or, without a path,
// the last change it made in the workspace; either way a change is taken
// back whole (all the files of a patch together, both paths of a move). It is refused when a file changed since that change, unless
// forced. The undo is itself a change: undoing again redoes.
func (w *Workspace) Undo(ctx context.Context, req UndoRequest) (*UndoResult, error) {
	h, err := w.settledHistory()
	if err != nil {
		return nil, err
	}
	path := ""
	if req.Path != nil {
		if path = *req.Path; path == "" {
			return nil, errs.EmptyPathToUndo()
		}
	}
	force := req.Force != nil && *req.Force
	words := undoWordsFor(ctx)
	var group []*history.Entry
	var files []*heldFile
	var renamed *heldRename
	release := func() {}
	damaged := h.Damaged()
	for tries := 0; ; tries++ {
		if group, err = w.undoGroup(h, path); err != nil {
			return nil, w.movedHereHint(h, path, words, err)
		}
		// A retry may find the other kind of change: neither is kept.
		files, renamed = nil, nil
		if from, _ := history.Renamed(group); from != nil {
			renamed, err = w.holdRename(h, group, force, words)
			release = renamed.release
		} else {
			files, release, err = w.holdGroup(h, group, force, words, w.named(path, group))
		}
		// Another undo (or a write) may have committed a newer change
		// while this one waited for the locks: the newest is the one to
		// take back, not the one picked before.
		if tries < 8 && w.superseded(h, path, group) {
			release()
			continue
		}
		break
	}
	defer release()
	if h.Damaged() > damaged {
		// It may have been a later change of the same file: the one
		// found is then not the last, and is refused as changed since.
		w.warn("a damaged history entry newer than the change found was passed over; it may have been a later change, which undo cannot take back")
	}
	if err != nil {
		return nil, err
	}
	if renamed != nil {
		return w.undoRename(ctx, renamed, force)
	}
	changes := make([]history.Change, len(files))
	for i, f := range files {
		changes[i] = history.Change{Key: f.e.Key, Path: f.e.Path, Before: f.cur, Undoes: f.e.ID}
	}
	rec := w.record(history.OpUndo, changes...)
	var after []history.Fingerprint
	err = commit(ctx, func() (err error) { // all the files or none, never after the deadline
		after, err = w.restoreAll(files)
		return err
	})
	rec.done(err, after...)
	if err != nil {
		return nil, err
	}
	w.readBackAfterMove(group[0].Op, files)
	return undoResult(group, files, force, w.thread), nil
}

// readBackAfterMove keeps this thread's read of a file across the undo
// of its move (or the redo): the move carried the read to the new path,
// and the undo writes the same bytes back at the old one (with a new
// mtime), so the read goes back with them, fresh if it was of those
// bytes, as it was (stale) if the file had changed since it was read.
// Without it, the read was lost, and an edit needed a second one.
func (w *Workspace) readBackAfterMove(op history.Op, files []*heldFile) {
	if len(files) != 2 || op != history.OpMove && op != history.OpUndo {
		return
	}
	for i, back := range files {
		away := files[1-i]
		moved := back.old.Kind == history.KindFile && away.cur.Kind == history.KindFile &&
			away.cur.MtimeNS == back.old.MtimeNS && away.cur.Size == back.old.Size && bytes.Equal(away.cur.Data, back.old.Data)
		if !moved {
			continue
		}
		rec, err := w.lookupRead(away.e.Key, "")
		if err != nil || rec == nil {
			return
		}
		if rec.MtimeNS == back.old.MtimeNS && rec.Size == back.old.Size {
			if st, err := w.fs.Lstat(back.g.loc); err == nil && w.recordRead(back.e.Key, st) == nil {
				_ = os.Remove(w.recordFile(away.e.Key))
			}
			return
		}
		w.rekeyRead(rec, away.e.Key, back.e.Key)
		return
	}
}

// undoWords say in a refusal how to go on, in the words of the interface
// the call came through: the subcommand's flags or the tool's parameters.
type undoWords struct {
	force string // how to force an undo
	cli   bool
}

func undoWordsFor(ctx context.Context) undoWords {
	if dialectOf(ctx) == CLIFlags {
		return undoWords{force: "undo --force", cli: true}
	}
	return undoWords{force: "force=true"}
}

// undo is how to undo the last change of path.
func (u undoWords) undo(path string) string {
	if u.cli {
		return "ws undo " + path
	}
	return "undo with path=" + path
}

// movedHereHint adds to undo's "nothing to undo" of path, when a directory
// holding it was moved there since, which move that was, how to take it
// back, and where the file's earlier changes are kept.
func (w *Workspace) movedHereHint(h *history.Store, path string, words undoWords, err error) error {
	if errs.CodeOf(err) != errs.NoChange || path == "" {
		return err
	}
	moved := w.movedHere(h, path)
	if moved == nil {
		return err
	}
	var hints []string
	if p := undoPathOf(h, moved.from, moved.to); p != "" {
		hints = append(hints, words.undo(p)+" takes that move back")
	} else {
		hints = append(hints, "it was moved there from "+moved.from.Path)
	}
	if moved.kept > 0 {
		hints = append(hints, fmt.Sprintf("%d %s kept as %s", moved.kept, wording.Plural(moved.kept, "change is", "changes are"), moved.oldPath))
	}
	return errs.NothingToUndoMoved(path, strings.Join(hints, "; "))
}

// undoPathOf is a path whose undo takes back the directory rename of from
// and to: the path it took, or the one it left, whichever has that rename
// as its last change; "" when neither has (an undo of either would take
// back a later change, such as the undo of a later rename, and so redo it).
func undoPathOf(h *history.Store, from, to *history.Entry) string {
	for _, e := range []*history.Entry{to, from} {
		if last, err := h.Last(e.Key); err == nil && last != nil && last.ID == e.ID {
			return e.Path
		}
	}
	return ""
}

// movedHereOf is a directory rename that brought a path where it is.
type movedHereOf struct {
	from, to *history.Entry // the rename's files
	oldPath  string         // the path's workspace path before it
	kept     int            // the changes kept at that path
}

// movedHere is the directory rename that last moved a directory holding
// path to where it is, or nil.
func (w *Workspace) movedHere(h *history.Store, path string) *movedHereOf {
	keys, err := w.historyKeys(path)
	if err != nil {
		return nil
	}
	from, to, oldKey, err := h.MovedHere(keys[0])
	if err != nil || from == nil {
		return nil
	}
	m := &movedHereOf{from: from, to: to, oldPath: from.Path + filepath.ToSlash(keys[0][len(to.Key):])}
	if list, err := h.List(oldKey); err == nil {
		m.kept = len(list)
	}
	return m
}

// superseded reports whether a newer change than group is now the one an
// undo of path (or of the workspace, path empty) would take back.
func (w *Workspace) superseded(h *history.Store, path string, group []*history.Entry) bool {
	now, err := w.undoGroup(h, path)
	return err == nil && now[0].ID != group[0].ID
}

// settledHistory is the history with the changes of processes that died
// mid-write settled (committed if the write happened, dropped if not).
func (w *Workspace) settledHistory() (*history.Store, error) {
	h := w.history()
	if h == nil {
		return nil, errs.NoHistory()
	}
	if _, err := h.Recover(w.fingerprintAt); err != nil {
		w.warn("history: " + statefile.Relative(w.stateDir, err).Error())
	}
	return h, nil
}

// undoGroup finds the change to take back: the last of the file, or of
// the workspace, with all the files changed with it.
func (w *Workspace) undoGroup(h *history.Store, path string) ([]*history.Entry, error) {
	if path == "" {
		// The last change of this workspace: another sharing the state
		// directory keeps its changes there too, of files outside this
		// one's roots. The keys are compared as recorded (real paths), so
		// a change of this workspace whose path now leads outside through
		// a symlink is still its last, and refused as such.
		group, err := h.LastGroupWhere(func(e *history.Entry) bool { return w.ownsKey(e.Key) && w.undoesOf(e) })
		if err != nil {
			return nil, w.stateError(err)
		}
		if len(group) == 0 {
			return nil, w.nothingToUndo(h, "", nil)
		}
		return group, nil
	}
	keys, err := w.historyKeys(path)
	if err != nil {
		return nil, err
	}
	var e *history.Entry
	for _, key := range keys { // the newest change of either
		last, err := h.LastWhere(key, w.undoesOf)
		if err != nil {
			return nil, w.stateError(err)
		}
		if last != nil && (e == nil || last.ID > e.ID) {
			e = last
		}
	}
	if e == nil {
		return nil, w.nothingToUndo(h, path, keys)
	}
	group, err := h.Group(e.ID)
	if err != nil {
		return nil, w.stateError(err)
	}
	return group, nil
}

// undoesOf reports whether undo takes back the change of e: with a
// thread (--thread), only the changes made for that thread, so that one
// agent never takes back another's; without one, any change.
func (w *Workspace) undoesOf(e *history.Entry) bool {
	return w.thread == "" || e.Thread == w.thread
}

// nothingToUndo is the error of an undo that found no change of path (of
// the workspace when path is empty; keys are the path's history keys) it
// may take back: when other threads' changes are kept, it says so.
func (w *Workspace) nothingToUndo(h *history.Store, path string, keys []string) error {
	if w.thread == "" {
		return errs.NothingToUndo(path)
	}
	var other *history.Entry
	if path == "" {
		if g, err := h.LastGroupWhere(func(e *history.Entry) bool { return w.ownsKey(e.Key) }); err == nil && len(g) > 0 {
			other = g[0]
		}
	}
	for _, key := range keys {
		if last, err := h.Last(key); err == nil && last != nil && (other == nil || last.ID > other.ID) {
			other = last
		}
	}
	if other == nil {
		return errs.NothingToUndoOfThread(path, "")
	}
	return errs.NothingToUndoOfThread(path, fmt.Sprintf("%s of %s", other.Op, other.Time.UTC().Format(time.RFC3339)))
}

// ownsKey reports whether a history key (a file's real path when it was
// changed) lies in this workspace: under its real base or an allowed
// root; any path when it is not contained, as it may then change any.
func (w *Workspace) ownsKey(key string) bool {
	if !w.fs.Contained() {
		return true
	}
	_, reals := w.fs.AllowedRoots()
	for _, r := range append([]string{w.fs.RealBase()}, reals...) {
		if _, in := fsroot.Within(r, key); in {
			return true
		}
	}
	return false
}

// named is the entry of group that path names, when path is not empty
// and group has other files too; nil otherwise.
func (w *Workspace) named(path string, group []*history.Entry) *history.Entry {
	if path == "" || len(group) < 2 {
		return nil
	}
	keys, err := w.historyKeys(path)
	if err != nil {
		return nil
	}
	for _, e := range group {
		for _, k := range keys {
			if e.Key == k {
				return e
			}
		}
	}
	return nil
}

// historyKeys are the keys the history keeps a path's changes under: its
// real path, a final symlink followed (as writes follow it), and, when the
// path is a symlink, the link's own real path too (a delete removes the
// link, and an undo of that delete puts it back).
func (w *Workspace) historyKeys(path string) ([]string, error) {
	t, err := w.fs.Resolve(path)
	if err != nil {
		return nil, err
	}
	l := t.Loc()
	keys := []string{w.fs.OwnRealPath(l)}
	if dest, err := w.fs.FollowFinalLink(l); err == nil {
		l = dest
	}
	if real := w.fs.RealPath(l); real != keys[0] {
		keys = append(keys, real)
	}
	return keys, nil
}

// holdGroup takes the write lock of every file of the group (in key
// order, so two undos cannot deadlock), checks that each is as the change
// left it (unless forced; a refusal says how to go on, in words) and
// reads what to put back. Nothing is written.
//
// An undo of a path takes back the last change of that path whole: every
// file of a patch, as the patch wrote them all or none. named is the
// entry of the path asked for when the change has other files, so that a
// refusal because of another file says why that file matters.
func (w *Workspace) holdGroup(h *history.Store, group []*history.Entry, force bool, words undoWords, named *history.Entry) ([]*heldFile, func(), error) {
	sorted := append([]*history.Entry(nil), group...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Key < sorted[j].Key })
	var files []*heldFile
	release := func() {
		for _, f := range files {
			f.g.release()
		}
	}
	for _, e := range sorted {
		t, err := w.fs.Resolve(e.Key)
		if err != nil {
			// Resolve words its refusal with the key, an absolute path:
			// the message names the workspace path instead.
			if errs.CodeOf(err) == errs.OutsideWorkspace {
				err = errs.Escape("access", e.Path, err)
			}
			return files, release, err
		}
		lock, err := w.lockPath(e.Key, e.Path)
		if err != nil {
			return files, release, err
		}
		f := &heldFile{e: e, t: t, g: &writeGuard{lock: lock, real: e.Key, loc: t.Loc()}}
		files = append(files, f)
		if f.cur, err = w.stateAt(f.g.loc, w.keepLimit()); err != nil {
			return files, release, errs.FromOS("undo", e.Path, err, false)
		}
		if err := e.Check(f.cur.Fingerprint()); err != nil && !force {
			var ce *history.ChangedError
			if errors.As(err, &ce) && ce.Current.Kind == history.KindAbsent {
				// Gone with a directory moved since: forcing would make the
				// file again at its old path, alone; the move goes back first.
				if from, to, _ := h.MovedAway(e.Key, e.ID); from != nil {
					return files, release, errs.UndoRefused(e.Path, fmt.Sprintf("it has been moved since, with the directory %s (now %s): take that move back first (%s)", from.Path, to.Path, words.undo(to.Path)), err)
				}
			}
			if errors.As(err, &ce) && named != nil && named != e {
				return files, release, errs.UndoGroupRefused(string(e.Op), named.Path, e.Path, strings.TrimPrefix(ce.Reason, "it "), words.force, err)
			}
			if errors.As(err, &ce) {
				return files, release, errs.UndoRefused(e.Path, ce.Reason+"; "+words.force+" takes it back anyway", err)
			}
			return files, release, errs.UndoRefused(e.Path, err.Error(), err)
		}
		if f.old, err = h.Content(e); err != nil {
			return files, release, errs.UndoRefused(e.Path, "the version it replaced was not kept ("+err.Error()+")", err)
		}
	}
	return files, release, nil
}

// restoreAll puts back what each change replaced. When one fails, those
// already restored get what they held before the undo again. A file
// whose present bytes were not read (over the size cap) could not be put
// back so: such files go last, where no rollback needs them.
func (w *Workspace) restoreAll(files []*heldFile) ([]history.Fingerprint, error) {
	order := make([]int, len(files))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return restorable(files[order[a]].cur) && !restorable(files[order[b]].cur)
	})
	after := make([]history.Fingerprint, len(files))
	batch, staged, err := w.stage(files)
	if err != nil {
		return nil, err
	}
	defer batch.Close()
	for n, i := range order {
		f := files[i]
		restore := func() error { return w.restore(f.g, f.old) }
		if bi, ok := staged[i]; ok {
			restore = func() error {
				fst, err := batch.Commit(bi)
				if err != nil {
					return err
				}
				return w.recordWrite(f.g.real, fst)
			}
		}
		if err := restore(); err != nil {
			for _, j := range order[:n] {
				_ = w.restore(files[j].g, files[j].cur)
			}
			if restorable(f.cur) {
				_ = w.restore(f.g, f.cur)
			}
			return nil, errs.FromOS("undo", f.e.Path, err, false)
		}
		now, err := w.stateAt(f.g.loc, w.keepLimit())
		if err != nil {
			return nil, errs.FromOS("undo", f.e.Path, err, false)
		}
		after[i] = now.Fingerprint()
	}
	// The directories a change made for a file it created go with it,
	// once every file is back (a rollback would want them).
	for _, f := range files {
		if f.old.Kind == history.KindAbsent && f.e.MadeDirs > 0 {
			f.removedDirs = w.removeMadeDirs(f.e.Key, f.e.Path, f.e.MadeDirs)
		}
	}
	return after, nil
}

// batchFrom is how many files an undo puts back from which the files'
// writes share their syncs (see stage); fewer are written one by one,
// each synced as any write is.
const batchFrom = 9

// stage writes the bytes of the files an undo of many puts back (those
// that were regular files, where a regular file or nothing is now) to
// temporary files beside them, unsynced, and syncs the file system once
// (fsroot.Batch): restoreAll then renames each into place in its turn.
// Two fsyncs a file (WriteAtomic's) made the undo of a change of
// thousands of files take seconds. A file the batch cannot take (another
// user's, written in place) is restored on its own. staged maps a file's
// index in files to its index in the batch. Nothing has changed when
// stage fails.
func (w *Workspace) stage(files []*heldFile) (batch *fsroot.Batch, staged map[int]int, err error) {
	batch, staged = w.fs.NewBatch(), map[int]int{}
	if len(files) < batchFrom {
		return batch, staged, nil
	}
	for i, f := range files {
		if f.old.Kind != history.KindFile || f.old.Data == nil && f.old.Size > 0 ||
			f.cur.Kind != history.KindFile && f.cur.Kind != history.KindAbsent {
			continue
		}
		bi, err := batch.Add(f.g.loc, f.old.Data, fsroot.WriteOptions{Mode: f.old.Mode, SetMode: true, Owner: ownerArg(f.old.Owner)})
		if errors.Is(err, fsroot.ErrNotBatched) {
			continue
		}
		if err != nil {
			batch.Close()
			return nil, nil, errs.FromOS("undo", f.e.Path, err, false)
		}
		staged[i] = bi
	}
	if err := batch.Sync(); err != nil {
		batch.Close()
		return nil, nil, errs.FromOS("undo", files[0].e.Path, err, false)
	}
	return batch, staged, nil
}

// restorable reports whether st holds what writing it back needs: a file
// or a directory over the size cap is known by its size only.
func restorable(st history.State) bool {
	switch st.Kind {
	case history.KindFile:
		return st.Data != nil || st.Size == 0
	case history.KindDir:
		return st.Tree != nil || st.Size == 0
	}
	return true
}

// restore makes the path of g hold st. A state whose bytes were not kept
// (over the size cap) is not restorable and was refused before.
func (w *Workspace) restore(g *writeGuard, st history.State) error {
	l := g.loc
	cur, err := w.fs.Lstat(l)
	exists := err == nil
	if exists && !(st.Kind == history.KindFile && cur.Mode.IsRegular()) {
		if err := w.fs.Remove(l, true); err != nil {
			return err
		}
	}
	switch st.Kind {
	case history.KindAbsent:
		return nil
	case history.KindSymlink:
		if err := w.fs.Symlink(l, st.Target); err != nil {
			return err
		}
		w.fs.Lchown(l, ownerArg(st.Owner))
		return nil
	case history.KindFile:
		return w.restoreFile(g, l, st.Data, st)
	case history.KindDir:
		return w.restoreTree(l, st)
	}
	return nil
}

// restoreTree makes a directory with everything it held at l, where
// nothing is. It is built under a hidden temporary name beside l and
// renamed into place whole (fsroot.TreeBuilder), so a undo killed part
// way leaves no part of the tree at l (before, it left some of the files,
// and undoing that undo then took away the part, the whole tree no longer
// in reach of undo); a later write in the directory removes what it left.
// Its files are written unsynced and the file system synced once, before
// the rename: a sync of each file and of its directory made the undo of
// a delete of 10 000 small files take 7.5 s. The directories get their
// modes and owners last, deepest first, so that one that was read-only
// is filled before it is closed.
func (w *Workspace) restoreTree(l fsroot.Loc, st history.State) error {
	p, name := l.Parent()
	if err := w.fs.MkdirAll(p); err != nil {
		return err
	}
	b, err := w.fs.NewTree(p)
	if err != nil {
		return err
	}
	defer b.Abort() // after Commit, nothing
	if err := fillTree(b, st); err != nil {
		return err
	}
	return b.Commit(name)
}

// fillTree makes in b everything st holds, and gives b's top st's mode
// and owner.
func fillTree(b *fsroot.TreeBuilder, st history.State) error {
	for _, n := range st.Tree { // sorted: a directory before what it holds
		var err error
		switch n.Kind {
		case history.KindDir:
			err = b.Mkdir(n.Path)
		case history.KindSymlink:
			err = b.Symlink(n.Path, n.Target, ownerArg(n.Owner))
		case history.KindFile:
			err = b.File(n.Path, n.Data, n.Mode, ownerArg(n.Owner))
		}
		if err != nil {
			return err
		}
	}
	for i := len(st.Tree) - 1; i >= 0; i-- {
		if n := st.Tree[i]; n.Kind == history.KindDir {
			if err := b.SetDirAttrs(n.Path, n.Mode, ownerArg(n.Owner)); err != nil {
				return err
			}
		}
	}
	return b.SetDirAttrs(".", st.Mode, ownerArg(st.Owner))
}

// restoreFile writes a file's old bytes back and updates this thread's read
// record if it has one, so a thread that read the file may go on editing it.
func (w *Workspace) restoreFile(g *writeGuard, l fsroot.Loc, data []byte, st history.State) error {
	// The mode is put back too: a patch may have changed the executable bit.
	fst, err := w.fs.WriteAtomic(l, bytes.NewReader(data), fsroot.WriteOptions{Mode: st.Mode, SetMode: true, Owner: ownerArg(st.Owner)})
	if err != nil {
		return err
	}
	return w.recordWrite(g.real, fst)
}

// fingerprintAt is a file's fingerprint now, for the history's recovery;
// with identity, a directory's is its inode alone, and a regular file's
// its inode, size and mtime (history.Probe).
func (w *Workspace) fingerprintAt(key string, identity bool) (history.Fingerprint, error) {
	t, err := w.fs.Resolve(key)
	if err != nil {
		return history.Fingerprint{}, err
	}
	if identity {
		if st, err := w.fs.Lstat(t.Loc()); err == nil && (st.IsDir() || st.Mode.IsRegular()) {
			id, err := w.fs.Identity(t.Loc())
			return identityOf(st, id), err
		}
	}
	st, err := w.stateAt(t.Loc(), w.keepLimit())
	if err != nil {
		return history.Fingerprint{}, err
	}
	return st.Fingerprint(), nil
}

func undoResult(group []*history.Entry, files []*heldFile, force bool, thread string) *UndoResult {
	e := group[0]
	res := &UndoResult{Undid: e.ID, Op: string(e.Op), Forced: force, when: e.Time}
	var lines []string
	for _, f := range files {
		u := UndoneFile{Path: Bytes(f.e.Path), Restored: string(f.old.Kind)}
		var what string
		switch f.old.Kind {
		case history.KindAbsent:
			u.Restored, what = "absent", "removed (it did not exist before)"
			if len(f.removedDirs) > 0 {
				what += ", with the directories made for it: " + strings.Join(f.removedDirs, ", ")
				for _, d := range f.removedDirs {
					u.RemovedDirs = append(u.RemovedDirs, Bytes(d))
				}
			}
		case history.KindFile:
			u.Bytes = int64(len(f.old.Data))
			what = fmt.Sprintf("restored (%d bytes)", u.Bytes)
		case history.KindSymlink:
			what = "restored as a symlink to " + f.old.Target
		case history.KindDir:
			n := len(f.old.Tree)
			u.Restored, what = "directory", fmt.Sprintf("restored as a directory (%d %s)", n, wording.Plural(n, "entry", "entries"))
		}
		res.Files = append(res.Files, u)
		lines = append(lines, f.e.Path+": "+what)
	}
	sort.Slice(res.Files, func(i, j int) bool { return string(res.Files[i].Path) < string(res.Files[j].Path) })
	sort.Strings(lines)
	res.text = undoHead(e, force, thread) + "\n" + strings.Join(lines, "\n")
	return res
}

// undoHead is the first line of an undo's text: which change it took
// back, and, when it was made for another thread than thread (the undo
// has none), which.
func undoHead(e *history.Entry, force bool, thread string) string {
	head := fmt.Sprintf("Undid the %s of %s", e.Op, e.Time.UTC().Format(time.RFC3339))
	if e.Thread != thread {
		head += " (made by thread " + strconv.Quote(e.Thread) + ")"
	}
	if force {
		head += " (forced)"
	}
	return head
}

// HistoryRequest asks for the kept versions of one file.
type HistoryRequest struct {
	Path string `json:"path"`
}

// HistoryResult lists them, newest first.
type HistoryResult struct {
	Path     Bytes            `json:"path"`
	Versions []HistoryVersion `json:"versions"`
	// MovedFrom is the file's path before a directory holding it was
	// moved to where it is, when changes from before are kept there.
	MovedFrom Bytes `json:"moved_from,omitempty"`
	textOut
}

// HistoryVersion is one kept change of the file, as --json shows it: the
// history's entry with its path as workspace-relative bytes ({"bytes"}
// when not UTF-8) and without the entry's key, a real absolute path.
type HistoryVersion struct {
	ID        string              `json:"id"`
	Time      time.Time           `json:"time"`
	Op        string              `json:"op"`
	Path      Bytes               `json:"path"`
	Before    history.Kept        `json:"before"` // what undo would put back
	After     history.Fingerprint `json:"after"`  // what the change left
	Undoes    string              `json:"undoes,omitempty"`
	Recovered bool                `json:"recovered,omitempty"`
	Thread    Bytes               `json:"thread,omitempty"` // the thread it was made for
	// Rename is, for a directory renamed in one step, the part this path
	// played ("from": the directory left it; "to": it took it), and
	// MovedTo or MovedFrom the other path.
	Rename    string `json:"rename,omitempty"`
	MovedTo   Bytes  `json:"moved_to,omitempty"`
	MovedFrom Bytes  `json:"moved_from,omitempty"`
}

func versionOf(e *history.Entry, other string) HistoryVersion {
	v := HistoryVersion{ID: e.ID, Time: e.Time, Op: string(e.Op), Path: Bytes(e.Path),
		Before: e.Before, After: e.After, Undoes: e.Undoes, Recovered: e.Recovered, Thread: Bytes(e.Thread), Rename: string(e.Rename)}
	switch e.Rename {
	case history.RenameFrom:
		v.MovedTo = Bytes(other)
	case history.RenameTo:
		v.MovedFrom = Bytes(other)
	}
	return v
}

// renamePartner is the other path of a directory rename e is part of
// ("" when it is not, or its change is no longer kept).
func renamePartner(h *history.Store, e *history.Entry) string {
	if e.Rename == "" {
		return ""
	}
	group, err := h.Group(e.ID)
	if err != nil {
		return ""
	}
	from, to := history.Renamed(group)
	switch {
	case from == nil:
		return ""
	case e.Rename == history.RenameFrom:
		return to.Path
	}
	return from.Path
}

// History lists the changes ws made to a file, newest first, with what
// each replaced (which undo would put back).
func (w *Workspace) History(ctx context.Context, req HistoryRequest) (*HistoryResult, error) {
	h, err := w.settledHistory()
	if err != nil {
		return nil, err
	}
	keys, err := w.historyKeys(req.Path)
	if err != nil {
		return nil, err
	}
	var list []*history.Entry
	damaged := h.Damaged()
	for _, key := range keys {
		l, err := h.List(key)
		if err != nil {
			return nil, w.stateError(err)
		}
		list = append(list, l...)
	}
	if n := (h.Damaged() - damaged) / int64(max(len(keys), 1)); n > 0 {
		w.warn(fmt.Sprintf("%d damaged history %s passed over: the list may miss changes", n, wording.Plural(int(n), "entry was", "entries were")))
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].ID > list[j].ID })
	res := &HistoryResult{Path: Bytes(req.Path), Versions: []HistoryVersion{}}
	moved := w.movedHere(h, req.Path)
	var movedNote string
	if moved != nil && moved.kept > 0 {
		res.MovedFrom = Bytes(moved.oldPath)
		movedNote = fmt.Sprintf("its directory was moved here from %s at %s, and %d %s kept as %s (ws history %s)",
			moved.from.Path, moved.to.Time.UTC().Format(time.RFC3339), moved.kept, wording.Plural(moved.kept, "change is", "changes are"), moved.oldPath, moved.oldPath)
	}
	others := make([]string, len(list))
	for i, e := range list {
		others[i] = renamePartner(h, e)
		res.Versions = append(res.Versions, versionOf(e, others[i]))
	}
	if len(list) == 0 {
		res.text = "No changes of " + req.Path + " are kept."
		if movedNote != "" {
			res.text = "No changes of " + req.Path + " are kept; " + movedNote + "."
		}
		return res, nil
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d kept %s of %s, newest first (%s):", len(list), wording.Plural(len(list), "change", "changes"), req.Path, w.undoesWhich(req.Path, list))
	for i, e := range list {
		what := keptText(e.Before)
		if e.Rename != "" {
			what = renameText(e, others[i])
		}
		fmt.Fprintf(&sb, "\n%s\t%s\t%s%s", e.Time.UTC().Format(time.RFC3339), e.Op, what, threadNote(e, w.thread))
	}
	if movedNote != "" {
		sb.WriteString("\nAlso, " + movedNote + ".")
	}
	res.text = sb.String()
	return res, nil
}

// undoesWhich says which of list (a path's changes, newest first) ws undo
// of path takes back: the first, unless this thread (--thread) did not
// make it, as undo takes back only the thread's own.
func (w *Workspace) undoesWhich(path string, list []*history.Entry) string {
	for i, e := range list {
		switch {
		case !w.undoesOf(e):
		case i == 0:
			return "ws undo " + path + " takes back the first"
		default:
			return "ws undo " + path + " takes back the first made by this thread, of " + e.Time.UTC().Format(time.RFC3339)
		}
	}
	return "none made by this thread, the only ones its ws undo takes back"
}

// threadNote marks, in history's text, a change made for another thread
// than thread (or for none).
func threadNote(e *history.Entry, thread string) string {
	switch {
	case e.Thread == thread:
		return ""
	case e.Thread == "":
		return "\t(made without a thread)"
	}
	return "\t(made by thread " + strconv.Quote(e.Thread) + ")"
}

// renameText says what a rename (of a directory, or of a file too big to
// keep) did at the path of e; other is the rename's other path.
func renameText(e *history.Entry, other string) string {
	if other == "" {
		other = "another path"
	}
	if e.Rename == history.RenameFrom {
		return "moved the " + kindWord(e.Before.Kind) + " to " + other
	}
	text := "moved the " + kindWord(e.After.Kind) + " here from " + other
	switch e.Before.Kind {
	case history.KindAbsent:
		return text
	case history.KindDir:
		return text + ", replacing an empty directory"
	}
	return text + ", replacing " + strings.TrimPrefix(keptText(e.Before), "replaced ")
}

// keptText says what a change replaced.
func keptText(k history.Kept) string {
	switch {
	case k.TooLarge && k.Kind == history.KindDir:
		return "replaced a directory (its files too large to keep: cannot be undone)"
	case k.TooLarge:
		return fmt.Sprintf("replaced %d bytes (too large to keep: cannot be undone)", k.Size)
	case k.Kind == history.KindAbsent:
		return "created the file"
	case k.Kind == history.KindSymlink:
		return "replaced a symlink to " + k.Target
	case k.Kind == history.KindDir:
		return fmt.Sprintf("replaced a directory (%d %s)", k.Nodes, wording.Plural(k.Nodes, "entry", "entries"))
	}
	return fmt.Sprintf("replaced %d bytes", k.Size)
}
