package workspace

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"strings"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/history"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"golang.org/x/sys/unix"
)

// MoveResult is the outcome of move.
type MoveResult struct {
	Source      Bytes  `json:"source"`
	Destination Bytes  `json:"destination"`
	Type        string `json:"type"`               // file, symlink or directory
	Replaced    bool   `json:"replaced,omitempty"` // a file (or an empty directory) at destination was replaced
	DryRun      bool   `json:"dry_run,omitempty"`
	textOut
}

// Move renames a file, a symbolic link (the link itself) or a directory
// within the workspace, in one rename(2): nothing is copied, and no reader
// ever sees a half-moved file or tree. The destination is the new path;
// its missing directories are made. A file already there is replaced only
// with overwrite; a directory replaces only an empty directory, with
// overwrite (see moveDir). Both paths' previous states are kept, so undo
// moves the file back (and puts back a file it replaced); a file too big
// for the history to keep its bytes is kept as a rename instead (its
// identity, not its bytes), which undo takes back by renaming it back. A
// thread that read the file keeps its read: an edit of the new path needs
// no second read.
func (w *Workspace) Move(ctx context.Context, req MoveRequest) (*MoveResult, error) {
	st, err := w.fs.Resolve(req.Source)
	if err != nil {
		return nil, err
	}
	dt, err := w.fs.Resolve(req.Destination)
	if err != nil {
		return nil, err
	}
	if st.IsRoot() {
		return nil, errs.Permission("move", req.Source, nil)
	}
	if dt.IsRoot() {
		return nil, errs.Permission("move", req.Destination, nil)
	}
	// The paths themselves, not where final symlinks lead: a move renames
	// the link, and what the destination names is replaced, not followed.
	sl, dl := st.Loc(), dt.Loc()
	sreal, dreal := w.fs.OwnRealPath(sl), w.fs.OwnRealPath(dl)
	if sreal == dreal {
		return nil, errs.MoveSame(req.Source, req.Destination)
	}
	if err := w.movable(req, sreal, dreal); err != nil {
		return nil, err
	}
	// Both write locks, in key order: two moves of one pair cannot deadlock.
	first, second := sreal, dreal
	fpath, spath := req.Source, req.Destination
	if second < first {
		first, second, fpath, spath = second, first, spath, fpath
	}
	l1, err := w.lockPath(first, fpath)
	if err != nil {
		return nil, err
	}
	defer l1.Release()
	l2, err := w.lockPath(second, spath)
	if err != nil {
		return nil, err
	}
	defer l2.Release()

	sst, err := w.fs.Lstat(sl)
	if err != nil {
		return nil, errs.FromOS("move", req.Source, err, false)
	}
	if err := w.sameFile(req, sl, dl, sst); err != nil {
		return nil, err
	}
	typ := entryType(sst.Mode)
	overwrite := req.Overwrite != nil && *req.Overwrite
	how := "overwrite=true" // how to allow a replace, in the interface's words
	if dialectOf(ctx) == CLIFlags {
		how = "--overwrite"
	}
	switch {
	case typ == "directory":
		return w.moveDir(ctx, req, dirMove{st: st, dt: dt, sreal: sreal, dreal: dreal, sst: sst, overwrite: overwrite, how: how})
	case typ == "file" && !sst.Mode.IsRegular():
		return nil, errs.NotRegular("move", req.Source, nil)
	}
	dst, exists, err := w.moveDestination(dl, req.Destination)
	if err != nil {
		return nil, err
	}
	switch {
	case exists && dst.IsDir():
		return nil, errs.MoveIntoDir(req.Destination, path.Join(req.Destination, path.Base(req.Source)))
	case exists && !overwrite:
		return nil, errs.MoveOnto(req.Destination, how)
	case exists && dst.Mode&fs.ModeSymlink == 0 && !dst.Mode.IsRegular():
		return nil, errs.NotRegular("move", req.Destination, nil)
	case exists:
		// The file replaced is written over as a write would: refused
		// when it changed since this thread read it.
		if err := w.checkFresh(dt, dl, dreal, MoveFile); err != nil {
			return nil, err
		}
	}
	res := &MoveResult{Source: Bytes(req.Source), Destination: Bytes(req.Destination), Type: typ, Replaced: exists}
	if req.DryRun {
		res.DryRun = true
		res.text = moveText("Would move", req, exists, false)
		return res, nil
	}

	sbefore, err := w.stateAt(sl, w.keepLimit())
	if err != nil {
		return nil, errs.FromOS("move", req.Source, err, false)
	}
	dbefore, err := w.stateAt(dl, w.keepLimit())
	if err != nil {
		return nil, errs.FromOS("move", req.Destination, err, false)
	}
	made := 0
	if !exists {
		made = missingDirs(dreal)
	}
	schange := history.Change{Key: sreal, Path: string(st.Rel()), Before: sbefore}
	dchange := history.Change{Key: dreal, Path: string(dt.Rel()), Before: dbefore, MadeDirs: made}
	if tooBigToKeep(sbefore) {
		// Its bytes are not kept: the move is kept as a rename, the file
		// known by its identity, and undo renames it back.
		id, err := w.fs.Identity(sl)
		if err != nil {
			return nil, errs.FromOS("move", req.Source, err, false)
		}
		sbefore = history.RenamedFileState(sbefore.Mode, sbefore.Size, sbefore.MtimeNS, id.Ino, id.BirthNS)
		sbefore.Owner = ownerOf(sst)
		schange.Before, schange.Rename, dchange.Rename = sbefore, history.RenameFrom, history.RenameTo
	}
	rec := w.record(history.OpMove, schange, dchange)
	// A destination free when checked stays free: one made meanwhile is
	// not replaced (its bytes were not kept for undo).
	step := renameStep{op: "move", src: req.Source, dest: req.Destination, from: sl, to: dl, noReplace: !exists,
		key: dreal, rel: string(dt.Rel()), made: made}
	err = w.commitRename(ctx, rec, step, nil, func(err error) error {
		switch {
		case errors.Is(err, unix.EXDEV):
			return errs.MoveAcross(req.Source, req.Destination, err)
		case errors.Is(err, unix.EEXIST) && !overwrite:
			// Made between the check and the rename: refused all the same.
			return errs.MoveOnto(req.Destination, how)
		case errors.Is(err, unix.EEXIST):
			return errs.MoveMadeMeanwhile(req.Destination, err)
		}
		return errs.FromOS("move", req.Source, err, false)
	})
	if err != nil {
		return nil, err
	}
	// A rename keeps the file as it was (bytes, size, mtime, inode): the
	// destination's fingerprint is the source's before.
	rec.done(nil, history.AbsentFingerprint(), sbefore.Fingerprint())
	w.carryReads(sreal, dreal, false)
	res.text = moveText("Moved", req, exists, false)
	return res, nil
}

// moveDestination is what is at a move's destination dl (dest as typed);
// exists is false when nothing is there. Any other failure to look is the
// move's error.
func (w *Workspace) moveDestination(dl fsroot.Loc, dest string) (st fsroot.FileStat, exists bool, err error) {
	st, err = w.fs.Lstat(dl)
	switch {
	case err == nil:
		return st, true, nil
	case errors.Is(err, fs.ErrNotExist):
		return st, false, nil
	}
	return st, false, errs.FromOS("move", dest, err, false)
}

// moveText is the text of req's move: verb ("Would move" for a dry run,
// "Moved"), the paths as typed, and whether a file (or, for a directory,
// an empty directory) was replaced.
func moveText(verb string, req MoveRequest, replaced, dir bool) string {
	note := ""
	switch {
	case replaced && dir:
		note = " (replacing the empty directory there)"
	case replaced:
		note = " (replacing the file there)"
	}
	return verb + " " + req.Source + " to " + req.Destination + note
}

// movable refuses a move that would take the workspace itself along (a
// root, or a directory holding one: outside a contained workspace any path
// can be named) or that touches ws's state directory (see protected); and
// moving anything into the state directory would plant a file among ws's
// records. The paths are real paths.
func (w *Workspace) movable(req MoveRequest, sreal, dreal string) error {
	if why := w.protected(sreal); why != "" {
		return errs.Protected("move", req.Source, why)
	}
	if w.inState(dreal) {
		return errs.Protected("move", req.Destination, "it is in ws's state directory")
	}
	return nil
}

// protected says why what is at the real path real may not be moved or
// deleted, or "": it is a root of the workspace or holds one (outside a
// contained workspace any path can be named), or it is, holds or lies in
// ws's state directory, whose locks, read records and history the tools
// themselves rely on (it is inside the root only when the user put it
// there).
func (w *Workspace) protected(real string) string {
	switch {
	case w.fs.HoldsRoot(real):
		return "it is or holds the workspace root"
	case w.stateDir == "":
	case within(real, fsroot.RealpathPartial(w.stateDir)):
		return "it is or holds ws's state directory"
	case w.inState(real):
		return "it is in ws's state directory"
	}
	return ""
}

// inState reports whether the real path real lies in ws's state directory.
func (w *Workspace) inState(real string) bool {
	return w.stateDir != "" && within(fsroot.RealpathPartial(w.stateDir), real)
}

// within reports whether the real path p is dir or lies below it.
func within(dir, p string) bool {
	_, ok := fsroot.Within(dir, p)
	return ok
}

// parentOf is the directory part of a path as typed ("." for a bare name).
func parentOf(p string) string {
	if i := strings.LastIndexByte(strings.TrimRight(p, "/"), '/'); i > 0 {
		return p[:i]
	}
	return "."
}

// sameFile refuses, as mv does, a move onto another name of the source
// (a hard link: rename(2) would do nothing and report success) and a move
// of a symbolic link onto what it leads to (which would leave a link to
// itself). Paths that name one entry were refused before.
func (w *Workspace) sameFile(req MoveRequest, sl, dl fsroot.Loc, sst fsroot.FileStat) error {
	dk, err := w.fs.Key(dl, false)
	if err != nil {
		return nil // nothing there (or nothing to compare): the checks that follow say
	}
	if sk, err := w.fs.Key(sl, false); err == nil && sk == dk {
		return errs.MoveHardLink(req.Source, req.Destination)
	}
	if sst.Mode&fs.ModeSymlink != 0 {
		if sk, err := w.fs.Key(sl, true); err == nil && sk == dk {
			return errs.MoveLinkOntoTarget(req.Source, req.Destination)
		}
	}
	return nil
}
