package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/history"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/statefile"
	"golang.org/x/sys/unix"
)

// dirMove is a directory move as Move has checked it so far: both paths
// resolved (their real paths), their write locks held, the source a
// directory (sst).
type dirMove struct {
	st, dt       *fsroot.Target
	sreal, dreal string
	sst          fsroot.FileStat
	overwrite    bool
	how          string // how to allow a replace, in the interface's words
}

// moveDir renames a directory in one rename(2), never a copy: the whole
// tree is at its old path or at its new one, never in part at both. A
// directory cannot move inside itself. An existing destination is refused
// unless it is an empty directory and overwrite is set: a move never
// merges two trees, never deletes one, and never replaces a file with a
// directory. The history keeps the rename as such (history.Rename), not
// the tree, so a move of a big tree costs no more than a file's, and undo
// renames it back. This thread's reads of the files beneath carry over to
// their new paths.
func (w *Workspace) moveDir(ctx context.Context, req MoveRequest, m dirMove) (*MoveResult, error) {
	sl, dl := m.st.Loc(), m.dt.Loc()
	if within(m.sreal, m.dreal) {
		return nil, errs.MoveIntoItself(req.Source, req.Destination)
	}
	into := path.Join(req.Destination, path.Base(req.Source))
	dst, exists, err := w.moveDestination(dl, req.Destination)
	if err != nil {
		return nil, err
	}
	switch {
	case exists && dst.IsDir():
		empty, err := w.fs.EmptyDir(dl)
		switch {
		case err != nil:
			return nil, errs.FromOS("move", req.Destination, err, true)
		case !m.overwrite && empty:
			return nil, errs.MoveDirOnto(req.Destination, into, m.how)
		case !m.overwrite:
			return nil, errs.MoveDirOnto(req.Destination, into, "")
		case !empty:
			return nil, errs.MoveDirNotEmpty(req.Destination, into, nil)
		}
	case exists:
		return nil, errs.MoveDirOntoFile(req.Destination, nil)
	}
	res := &MoveResult{Source: Bytes(req.Source), Destination: Bytes(req.Destination), Type: "directory", Replaced: exists}
	if req.DryRun {
		res.DryRun = true
		res.text = moveText("Would move", req, exists, true)
		return res, nil
	}

	id, err := w.fs.Identity(sl)
	if err != nil {
		return nil, errs.FromOS("move", req.Source, err, true)
	}
	sbefore := history.RenamedDirState(m.sst.Mode, m.sst.MtimeNS, id.Ino, id.BirthNS)
	sbefore.Owner = ownerOf(m.sst)
	dbefore := history.AbsentState()
	made := 0
	if exists {
		// The empty directory replaced, to be put back by undo.
		var err error
		if dbefore, err = w.stateAt(dl, w.keepLimit()); err != nil {
			return nil, errs.FromOS("move", req.Destination, err, true)
		}
	} else {
		made = missingDirs(m.dreal)
	}
	rec := w.record(history.OpMove,
		history.Change{Key: m.sreal, Path: string(m.st.Rel()), Before: sbefore, Rename: history.RenameFrom},
		history.Change{Key: m.dreal, Path: string(m.dt.Rel()), Before: dbefore, MadeDirs: made, Rename: history.RenameTo})
	// Free when checked, the destination must still be free; an empty
	// directory may be replaced, and rename(2) refuses one filled since.
	step := renameStep{op: "move", src: req.Source, dest: req.Destination, from: sl, to: dl, noReplace: !exists,
		key: m.dreal, rel: string(m.dt.Rel()), made: made}
	err = w.commitRename(ctx, rec, step, nil, func(err error) error {
		return renameDirError(req.Source, req.Destination, into, exists, err)
	})
	if err != nil {
		return nil, err
	}
	rec.done(nil, history.AbsentFingerprint(), history.DirIdentity(id.Ino, id.BirthNS))
	w.carryReads(m.sreal, m.dreal, true)
	res.text = moveText("Moved", req, exists, true)
	return res, nil
}

// renameStep is the rename(2) that a move (op "move") or an undo of one
// ("undo") commits: from to to, src and dest as typed (or as the history
// names them), making the missing directories above to first; made of
// them are new, counted in the recorded change of to, whose real path is
// key and workspace-relative path rel. noReplace refuses a to that exists
// by then.
type renameStep struct {
	op, src, dest string
	from, to      fsroot.Loc
	noReplace     bool
	key, rel      string
	made          int
}

// commitRename makes r's rename, recorded by rec, once commit lets it
// (not after the deadline), then runs then, if not nil. When it fails,
// rec drops the change, the directories made for it are removed again,
// and the error is worded: as moveMkdirError when making the directories
// failed, as a permission refused on the side deniedSide names, else by
// other, the caller's own wording of the rename's error.
func (w *Workspace) commitRename(ctx context.Context, rec *recording, r renameStep, then func(), other func(error) error) error {
	var mkdirFailed bool
	err := commit(ctx, func() error {
		failed, err := w.renameMakingParent(r.from, r.to, r.noReplace)
		if mkdirFailed = failed; err != nil {
			return err
		}
		if then != nil {
			then()
		}
		return nil
	})
	if err == nil {
		return nil
	}
	rec.done(err)
	denied := errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM)
	side := ""
	if denied && !mkdirFailed {
		// Asked before the directories the step made go: with them gone
		// the destination's directory cannot be reached, and it would be
		// named though the source was the side in the way.
		side = w.deniedSide(r.src, r.dest, r.to)
	}
	w.removeMadeDirs(r.key, r.rel, r.made)
	switch {
	case mkdirFailed:
		return moveMkdirError(r.dest, err)
	case denied:
		return errs.Permission(r.op, side, err)
	}
	return other(err)
}

// renameMakingParent makes the missing directories above to, then
// renames from to to (noReplace: refusing a to that exists by then).
// mkdirFailed says the error came from making the directories, for
// moveMkdirError.
func (w *Workspace) renameMakingParent(from, to fsroot.Loc, noReplace bool) (mkdirFailed bool, err error) {
	p, _ := to.Parent()
	if err := w.fs.MkdirAll(p); err != nil {
		return true, err
	}
	return false, w.fs.Rename(from, to, noReplace)
}

// moveMkdirError is the error of making the destination's missing
// directories (dest as typed).
func moveMkdirError(dest string, err error) error {
	if errors.Is(err, unix.EEXIST) || errors.Is(err, unix.ENOTDIR) {
		return errs.NotDir(parentOf(dest), err)
	}
	return errs.FromOS("move", parentOf(dest), err, true)
}

// renameDirError words a failed rename(2) of the directory src to dest
// (as typed); replacing says an empty directory there was to be replaced.
func renameDirError(src, dest, into string, replacing bool, err error) error {
	switch {
	case errors.Is(err, unix.EXDEV):
		return errs.MoveAcross(src, dest, err)
	case errors.Is(err, unix.EINVAL):
		return errs.MoveIntoItself(src, dest) // it got inside since the check
	case errors.Is(err, unix.EBUSY):
		return errs.MoveBusy(src, err)
	case errors.Is(err, unix.ENOTDIR):
		return errs.MoveDirOntoFile(dest, err) // a file put there meanwhile
	case (errors.Is(err, unix.ENOTEMPTY) || errors.Is(err, unix.EEXIST)) && replacing:
		return errs.MoveDirNotEmpty(dest, into, err) // filled meanwhile
	case errors.Is(err, unix.EEXIST) || errors.Is(err, unix.ENOTEMPTY):
		return errs.MoveMadeMeanwhile(dest, err)
	}
	return errs.FromOS("move", src, err, true)
}

// deniedSide names the side of a rename of src to dest (as typed; dl is
// dest's place) that was refused for want of permission: dest's directory
// when this process may not add to it, else src (its directory, or, for
// a directory moving to another parent, the directory itself, whose ".."
// the rename rewrites).
func (w *Workspace) deniedSide(src, dest string, dl fsroot.Loc) string {
	if p, _ := dl.Parent(); w.fs.Access(p, unix.W_OK|unix.X_OK) != nil {
		return parentOf(dest)
	}
	return src
}

// carryReads moves this thread's read records of what was at the real
// path from over to its new real path to: the file's, or, with dir, those
// of every file beneath the directory. A record goes over as it is: a
// rename changes neither size nor mtime, so a file read before the move
// is read at its new path, and one changed since that read is refused as
// stale there as it would have been at the old path.
func (w *Workspace) carryReads(from, to string, dir bool) {
	if w.stateDir == "" {
		return
	}
	if !dir {
		if rec, err := w.lookupRead(from, ""); err == nil && rec != nil {
			w.rekeyRead(rec, from, to)
		}
		return
	}
	des, err := os.ReadDir(w.threadDir())
	if err != nil {
		return
	}
	prefix := from + string(os.PathSeparator)
	for _, d := range des {
		if !strings.HasSuffix(d.Name(), ".json") {
			continue
		}
		data, err := os.ReadFile(w.threadDir() + string(os.PathSeparator) + d.Name())
		if err != nil {
			continue
		}
		var rec readRecord
		if json.Unmarshal(data, &rec) != nil || !strings.HasPrefix(string(rec.Path), prefix) {
			continue
		}
		old := string(rec.Path)
		if w.recordFile(old) != w.threadDir()+string(os.PathSeparator)+d.Name() {
			continue // not where its path says: not ws's
		}
		w.rekeyRead(&rec, old, to+old[len(from):])
	}
}

// rekeyRead writes rec as this thread's record of the file now at the
// real path to, then removes it at from.
func (w *Workspace) rekeyRead(rec *readRecord, from, to string) {
	rec.Path = statefile.String(to)
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil || w.writeStateFile(w.recordFile(to), append(data, '\n')) != nil {
		return
	}
	_ = os.Remove(w.recordFile(from))
}

// heldRename is a rename an undo takes back, of a directory or of a file
// too big to keep, both write locks held: it goes from the path it took
// (here) back to the one it left (back).
type heldRename struct {
	from, to   *history.Entry // the rename's two files
	back, here *fsroot.Target
	locks      []*writeGuard
	hereGuard  *writeGuard     // the lock of here, where what the rename replaced is put back
	file       bool            // a regular file was renamed, not a directory
	moved      fsroot.FileStat // what was renamed, at here
	id         fsroot.ID       // its identity
	cur        history.State   // what is at back now: nothing, an empty directory, or (a file's rename) a file or a symlink
	old        history.State   // what the rename replaced at here, to put back
}

func (r *heldRename) release() {
	for _, g := range r.locks {
		g.release()
	}
}

// noun names what was renamed.
func (r *heldRename) noun() string {
	if r.file {
		return "file"
	}
	return "directory"
}

// holdRename takes the write locks of a rename's two paths (in key order)
// and checks that it can be taken back: what it moved is still at the
// path it took (the same directory, by its inode, or the same file, by
// its inode, size and mtime, unless forced), and the path it left is free
// again (or holds what an earlier undo put back there, or, forced, an
// empty directory for a directory, a file or a symbolic link for a file).
// A directory that holds anything is never replaced, forced or not, nor a
// file by a directory, nor anything by a file; and what is gone cannot be
// moved back. Nothing is written.
func (w *Workspace) holdRename(h *history.Store, group []*history.Entry, force bool, words undoWords) (*heldRename, error) {
	from, to := history.Renamed(group)
	r := &heldRename{from: from, to: to, file: from.Before.Kind == history.KindFile}
	first, second := from, to
	if second.Key < first.Key {
		first, second = second, first
	}
	for _, e := range []*history.Entry{first, second} {
		t, err := w.fs.Resolve(e.Key)
		if err != nil {
			if errs.CodeOf(err) == errs.OutsideWorkspace {
				err = errs.Escape("access", e.Path, err)
			}
			return r, err
		}
		lock, err := w.lockPath(e.Key, e.Path)
		if err != nil {
			return r, err
		}
		g := &writeGuard{lock: lock, real: e.Key, loc: t.Loc()}
		r.locks = append(r.locks, g)
		if e == from {
			r.back = t
		} else {
			r.here, r.hereGuard = t, g
		}
	}
	refuse := func(e *history.Entry, why string) error {
		return errs.UndoRefused(e.Path, why, nil)
	}
	what := r.noun()
	var err error
	r.moved, err = w.fs.Lstat(r.here.Loc())
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// Moved on by ws since: that move goes back first, then this one.
		if f, t, _ := h.MovedOn(to.Key, to.ID); f != nil {
			why := "the " + what + " ws moved there has been moved on since, to " + t.Path + ": take that move back first"
			if f.Key != to.Key {
				why = fmt.Sprintf("the %s ws moved there has been moved on since, with %s (now %s): take that move back first", what, f.Path, t.Path)
			}
			if p := undoPathOf(h, f, t); p != "" {
				why += " (" + words.undo(p) + ")"
			}
			return r, refuse(to, why)
		}
		return r, refuse(to, "the "+what+" ws moved there is gone (moved or deleted since), so there is nothing to move back")
	case err != nil:
		return r, errs.FromOS("undo", to.Path, err, false)
	case r.file && !r.moved.Mode.IsRegular(), !r.file && !r.moved.IsDir():
		return r, refuse(to, "it is now a "+entryType(r.moved.Mode)+", not the "+what+" ws moved there, so there is nothing to move back")
	}
	if r.id, err = w.fs.Identity(r.here.Loc()); err != nil {
		return r, errs.FromOS("undo", to.Path, err, false)
	}
	var ce *history.ChangedError
	if err := to.Check(identityOf(r.moved, r.id)); errors.As(err, &ce) && !force {
		return r, refuse(to, ce.Reason+"; "+words.force+" moves it back anyway")
	}
	if r.file {
		err = w.fileRenameSpot(r, force, words)
	} else {
		err = w.dirRenameSpot(r, force, words)
	}
	if err != nil {
		return r, err
	}
	if r.old, err = h.Content(to); err != nil {
		return r, errs.UndoRefused(to.Path, "the "+kindWord(to.Before.Kind)+" it replaced was not kept ("+err.Error()+")", err)
	}
	return r, nil
}

// identityOf is the fingerprint by identity of a directory or a regular
// file whose stat is st and identity id: what a rename of it compares.
func identityOf(st fsroot.FileStat, id fsroot.ID) history.Fingerprint {
	if st.IsDir() {
		return history.DirIdentity(id.Ino, id.BirthNS)
	}
	return history.FileIdentity(st.Size, st.MtimeNS, id.Ino, id.BirthNS)
}

// dirRenameSpot checks, for the undo of a directory rename, the path the
// directory left, and keeps what is there in r.cur: nothing, or an empty
// directory (the one an earlier undo put back, or, forced, any).
func (w *Workspace) dirRenameSpot(r *heldRename, force bool, words undoWords) error {
	from := r.from
	var full bool
	var err error
	if r.cur, full, err = w.renameSpot(r.back.Loc()); err != nil {
		return errs.FromOS("undo", from.Path, err, false)
	}
	switch {
	case r.cur.Kind == history.KindAbsent:
	case full:
		return errs.UndoRefused(from.Path, "a directory that holds files is there now, and a move back never replaces one: move it away first", nil)
	case r.cur.Kind == history.KindDir && (force || r.cur.Fingerprint().Same(from.After)):
		// An empty directory: the one an undo put back, or forced.
	case r.cur.Kind == history.KindDir:
		return errs.UndoRefused(from.Path, "it has been created since (an empty directory); "+words.force+" replaces it", nil)
	default:
		return errs.UndoRefused(from.Path, "a "+kindWord(r.cur.Kind)+" is there now, and a move back never replaces one: move it away first", nil)
	}
	return nil
}

// fileRenameSpot checks, for the undo of a file's rename, the path the
// file left, and keeps what is there in r.cur (with its bytes, for a redo
// to put back): nothing, or a file or a symbolic link (the one an earlier
// undo put back, or, forced, any), as the undo of a move of a small file
// would replace it. A directory is never replaced.
func (w *Workspace) fileRenameSpot(r *heldRename, force bool, words undoWords) error {
	from := r.from
	l := r.back.Loc()
	st, err := w.fs.Lstat(l)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.cur = history.AbsentState()
		return nil
	case err != nil:
		return errs.FromOS("undo", from.Path, err, false)
	case st.IsDir():
		return errs.UndoRefused(from.Path, "a directory is there now, and a file moved back never replaces one: move it away first", nil)
	}
	if r.cur, err = w.stateAt(l, w.keepLimit()); err != nil {
		return errs.FromOS("undo", from.Path, err, false)
	}
	if !force && !r.cur.Fingerprint().Same(from.After) {
		return errs.UndoRefused(from.Path, "it has been created since (a "+kindWord(r.cur.Kind)+"); "+words.force+" replaces it", nil)
	}
	return nil
}

// kindWord names a kind of history state in a sentence.
func kindWord(k history.Kind) string {
	switch k {
	case history.KindSymlink:
		return "symbolic link"
	case history.KindDir:
		return "directory"
	}
	return string(k)
}

// renameSpot is what is at l, where a directory is to be renamed, as far
// as the rename cares: nothing; an empty directory (its state, to be put
// back if replaced); a directory that holds something (full, known by
// its inode, its tree not read); or a file or a symlink (by its size).
func (w *Workspace) renameSpot(l fsroot.Loc) (st history.State, full bool, err error) {
	fst, err := w.fs.Lstat(l)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return history.AbsentState(), false, nil
	case err != nil:
		return history.State{}, false, err
	case !fst.IsDir():
		s, err := w.stateAt(l, 0) // a file by its size: it is never replaced
		if errors.Is(err, fsroot.ErrNotRegular) {
			return history.State{Kind: history.KindFile, Size: fst.Size}, false, nil
		}
		return s, false, err
	}
	empty, err := w.fs.EmptyDir(l)
	if err != nil || !empty {
		return history.State{Kind: history.KindDir, Mode: fst.Mode}, true, err
	}
	s, err := w.stateAt(l, w.keepLimit())
	return s, false, err
}

// undoRename takes a held rename back: one rename(2) from the path it
// took to the one it left (replacing only what holdRename allowed there),
// then what it replaced, if anything (an empty directory; for a file, a
// file or a symbolic link), put back. The undo is recorded as a rename
// the other way, so undoing it redoes.
func (w *Workspace) undoRename(ctx context.Context, r *heldRename, force bool) (*UndoResult, error) {
	bl, hl := r.back.Loc(), r.here.Loc()
	made := 0
	if r.cur.Kind == history.KindAbsent {
		made = missingDirs(r.from.Key)
	}
	moved := history.RenamedDirState(r.moved.Mode, r.moved.MtimeNS, r.id.Ino, r.id.BirthNS)
	if r.file {
		moved = history.RenamedFileState(r.moved.Mode, r.moved.Size, r.moved.MtimeNS, r.id.Ino, r.id.BirthNS)
	}
	moved.Owner = ownerOf(r.moved)
	rec := w.record(history.OpUndo,
		history.Change{Key: r.to.Key, Path: r.to.Path, Before: moved, Rename: history.RenameFrom, Undoes: r.from.ID},
		history.Change{Key: r.from.Key, Path: r.from.Path, Before: r.cur, Rename: history.RenameTo, Undoes: r.from.ID, MadeDirs: made})
	var putBack error
	step := renameStep{op: "undo", src: r.to.Path, dest: r.from.Path, from: hl, to: bl, noReplace: r.cur.Kind == history.KindAbsent,
		key: r.from.Key, rel: r.from.Path, made: made}
	err := w.commitRename(ctx, rec, step, func() {
		if r.old.Kind != history.KindAbsent {
			putBack = w.restore(r.hereGuard, r.old)
		}
	}, func(err error) error {
		switch {
		case r.file && errors.Is(err, unix.EEXIST):
			return errs.MoveMadeMeanwhile(r.from.Path, err)
		case r.file:
			return errs.FromOS("undo", r.to.Path, err, false)
		}
		return renameDirError(r.to.Path, r.from.Path, r.from.Path, r.cur.Kind != history.KindAbsent, err)
	})
	if err != nil {
		return nil, err
	}
	left := history.AbsentFingerprint()
	if r.file {
		if now, err := w.stateAt(hl, w.keepLimit()); err == nil {
			left = now.Fingerprint()
		}
	} else if now, _, err := w.renameSpot(hl); err == nil {
		left = now.Fingerprint()
	}
	rec.done(nil, left, identityOf(r.moved, r.id))
	w.carryReads(r.to.Key, r.from.Key, !r.file)

	what := r.noun()
	res := &UndoResult{Undid: r.from.ID, Op: string(r.from.Op), Forced: force, when: r.from.Time}
	back := UndoneFile{Path: Bytes(r.from.Path), Restored: "directory", RenamedFrom: Bytes(r.to.Path)}
	backLine := r.from.Path + ": restored (the directory moved back from " + r.to.Path + ")"
	if r.file {
		back.Restored, back.Bytes = "file", r.moved.Size
		backLine = fmt.Sprintf("%s: restored (%d bytes; the file moved back from %s)", r.from.Path, r.moved.Size, r.to.Path)
	}
	here := UndoneFile{Path: Bytes(r.to.Path), Restored: "absent"}
	hereLine := r.to.Path + ": removed (the " + what + " moved back to " + r.from.Path + ")"
	switch {
	case putBack != nil:
		w.warn("the " + replacedWord(r.old) + " " + r.to.Path + " that the move replaced could not be made again: " + errs.Errno(putBack))
	case r.old.Kind == history.KindDir:
		here.Restored = "directory"
		hereLine = r.to.Path + ": restored as an empty directory (the directory moved back to " + r.from.Path + ")"
	case r.old.Kind == history.KindFile:
		here.Restored, here.Bytes = "file", int64(len(r.old.Data))
		hereLine = fmt.Sprintf("%s: restored (%d bytes; the file moved back to %s)", r.to.Path, len(r.old.Data), r.from.Path)
	case r.old.Kind == history.KindSymlink:
		here.Restored = "symlink"
		hereLine = r.to.Path + ": restored as a symlink to " + r.old.Target + " (the file moved back to " + r.from.Path + ")"
	case r.to.MadeDirs > 0:
		if removed := w.removeMadeDirs(r.to.Key, r.to.Path, r.to.MadeDirs); len(removed) > 0 {
			hereLine += ", with the directories made for it: " + strings.Join(removed, ", ")
			for _, d := range removed {
				here.RemovedDirs = append(here.RemovedDirs, Bytes(d))
			}
		}
	}
	res.Files = []UndoneFile{back, here}
	lines := []string{backLine, hereLine}
	if r.to.Path < r.from.Path {
		res.Files[0], res.Files[1] = here, back
		lines[0], lines[1] = hereLine, backLine
	}
	res.text = undoHead(r.from, force, w.thread) + "\n" + strings.Join(lines, "\n")
	return res, nil
}

// replacedWord names what a rename replaced, as its undo puts it back.
func replacedWord(st history.State) string {
	if st.Kind == history.KindDir {
		return "empty directory"
	}
	return kindWord(st.Kind)
}
