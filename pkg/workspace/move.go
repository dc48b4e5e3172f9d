package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
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
	Type        string `json:"type"`               // file or symlink
	Replaced    bool   `json:"replaced,omitempty"` // a file at destination was replaced
	DryRun      bool   `json:"dry_run,omitempty"`
	textOut
}

// Move renames a file or a symbolic link (the link itself) within the
// workspace, in one rename(2): the content is not copied, and no reader
// ever sees a half-moved file. The destination is the new path; its
// missing directories are made. A file already there is replaced only
// with overwrite. Both paths' previous states are kept, so undo moves the
// file back (and puts back a file it replaced). A thread that read the
// file keeps its read: an edit of the new path needs no second read.
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
	typ := entryType(sst.Mode)
	switch {
	case typ == "directory":
		return nil, errs.MoveDir(req.Source)
	case typ == "file" && !sst.Mode.IsRegular():
		return nil, errs.NotRegular("move", req.Source, nil)
	}
	overwrite := req.Overwrite != nil && *req.Overwrite
	how := "overwrite=true" // how to allow a replace, in the interface's words
	if dialectOf(ctx) == CLIFlags {
		how = "--overwrite"
	}
	dst, derr := w.fs.Lstat(dl)
	exists := derr == nil
	switch {
	case derr != nil && !errors.Is(derr, fs.ErrNotExist):
		return nil, errs.FromOS("move", req.Destination, derr, false)
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
		res.text = "Would move " + req.Source + " to " + req.Destination + replacedNote(exists)
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
	rec := w.record(history.OpMove,
		history.Change{Key: sreal, Path: string(st.Rel()), Before: sbefore},
		history.Change{Key: dreal, Path: string(dt.Rel()), Before: dbefore, MadeDirs: made})
	var mkdirErr error
	err = commit(ctx, func() error { // not after the deadline
		p, _ := dl.Parent()
		if mkdirErr = w.fs.MkdirAll(p); mkdirErr != nil {
			return mkdirErr
		}
		return w.fs.Rename(sl, dl, !overwrite)
	})
	if err != nil {
		rec.done(err)
		w.removeMadeDirs(dreal, string(dt.Rel()), made)
		switch {
		case mkdirErr != nil && (errors.Is(err, unix.EEXIST) || errors.Is(err, unix.ENOTDIR)):
			return nil, errs.NotDir(parentOf(req.Destination), err)
		case mkdirErr != nil:
			return nil, errs.FromOS("move", parentOf(req.Destination), err, true)
		case errors.Is(err, unix.EXDEV):
			return nil, errs.MoveAcross(req.Source, req.Destination, err)
		case errors.Is(err, unix.EEXIST):
			// Made between the check and the rename: refused all the same.
			return nil, errs.MoveOnto(req.Destination, how)
		}
		return nil, errs.FromOS("move", req.Source, err, false)
	}
	// A rename keeps the file as it was (bytes, size, mtime): the
	// destination's fingerprint is the source's before.
	rec.done(nil, history.AbsentFingerprint(), sbefore.Fingerprint())
	w.moveRead(sreal, dreal, dl)
	res.text = "Moved " + req.Source + " to " + req.Destination + replacedNote(exists)
	return res, nil
}

// replacedNote is what a move's text adds when a file was replaced.
func replacedNote(replaced bool) string {
	if replaced {
		return " (replacing the file there)"
	}
	return ""
}

// parentOf is the directory part of a path as typed ("." for a bare name).
func parentOf(p string) string {
	if i := strings.LastIndexByte(strings.TrimRight(p, "/"), '/'); i > 0 {
		return p[:i]
	}
	return "."
}

// moveRead carries this thread's read of a moved file over to its new
// path (a rename keeps the size and mtime the read noted), and forgets
// the old one, which names a file no longer there.
func (w *Workspace) moveRead(sreal, dreal string, dl fsroot.Loc) {
	rec, err := w.lookupRead(sreal, "")
	if err != nil || rec == nil {
		return
	}
	_ = os.Remove(w.recordFile(sreal))
	if st, err := w.fs.Stat(dl); err == nil && st.MtimeNS == rec.MtimeNS && st.Size == rec.Size {
		_ = w.recordRead(dreal, st)
	}
}
