package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/history"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/internal/wording"
	"golang.org/x/sys/unix"
)

// DeleteResult is the outcome of delete.
type DeleteResult struct {
	Path   Bytes    `json:"path"`
	Type   string   `json:"type"` // file, directory or symlink
	DryRun bool     `json:"dry_run,omitempty"`
	Would  []string `json:"would_delete,omitempty"` // with --dry-run: what is inside a directory

	textOut
}

// Delete removes a file, a symlink (the link only) or a directory. Nothing
// is followed: a recursive delete never leaves the workspace through a link.
func (w *Workspace) Delete(ctx context.Context, req DeleteRequest) (*DeleteResult, error) {
	if req.Path == "" {
		return nil, errs.EmptyPathToRemove() // not EmptyPath's hint: "." is refused
	}
	t, err := w.fs.Resolve(req.Path)
	if err != nil {
		return nil, err
	}
	if t.IsRoot() {
		return nil, errs.Permission("delete", req.Path, nil)
	}
	l := t.Loc()
	// The path itself, not where a final symlink leads: a delete removes
	// the link, so the link is what its history entry and lock are about.
	real := w.fs.OwnRealPath(l)
	if why := w.protected(real); why != "" {
		return nil, errs.Protected("delete", req.Path, why)
	}
	lock, err := w.lockPath(real, req.Path)
	if err != nil {
		return nil, err
	}
	defer lock.Release()

	st, err := w.fs.Lstat(l)
	if err != nil {
		return nil, errs.FromOS("delete", req.Path, err, false)
	}
	typ := entryType(st.Mode)
	recursive := req.Recursive != nil && *req.Recursive
	if req.DryRun {
		return w.dryDelete(l, req.Path, typ, recursive)
	}
	if recursive && typ == "directory" {
		if err := w.removable(l, req.Path); err != nil {
			return nil, err
		}
	}
	var specials []string
	before, serr := w.stateOf(l, w.keepLimit(), &specials)
	var rec *recording
	if serr == nil {
		rec = w.record(history.OpDelete, history.Change{Key: real, Path: string(t.Rel()), Before: before})
	} else {
		rec = w.record(history.OpDelete) // a FIFO or a device: nothing to keep
	}
	err = commit(ctx, func() error { return removeAt(w, l, recursive) }) // not after the deadline
	switch now, nerr := stateLeft(w, l); {
	case err == nil:
		rec.done(nil, history.AbsentFingerprint())
	case serr == nil && nerr == nil && !now.Fingerprint().Same(before.Fingerprint()):
		// Part of a tree went before the failure (a mount point, an
		// immutable file): what was there is kept, so undo can bring it back.
		rec.done(nil, now.Fingerprint())
	case serr == nil && nerr != nil:
		// What is left cannot be read (the failure again: no descriptor
		// to spare, say), so whether part of it went is not known: the
		// change is kept all the same, known by nothing undo finds there,
		// so that undo refuses it as changed since and undo --force puts
		// the whole tree back. Before, it was dropped, and the part gone
		// was gone for good.
		rec.done(nil, history.UnknownFingerprint(before.Kind))
	default:
		rec.done(err)
	}
	if err != nil {
		if errors.Is(err, unix.ENOTEMPTY) || errors.Is(err, unix.EEXIST) {
			return nil, errs.NotEmpty(req.Path, err)
		}
		return nil, errs.FromOS("delete", req.Path, err, false)
	}
	switch {
	case serr != nil && typ == "directory":
		cause := serr
		var errno unix.Errno
		if errors.As(serr, &errno) {
			cause = errno
		}
		w.warn("the delete of " + req.Path + " is not kept for undo: what it held could not be read (" + fsroot.SkipReason(cause) + ")")
	case len(specials) > 0:
		w.warn("undo cannot bring back " + specialsText(req.Path, specials))
	}
	return &DeleteResult{Path: Bytes(req.Path), Type: typ, textOut: textOut{"Deleted " + req.Path}}, nil
}

// specialsText names the FIFOs, sockets and devices a delete of the
// directory dir (as typed) removed, which undo cannot bring back: a few
// of them, and how many more.
func specialsText(dir string, specials []string) string {
	const shown = 3
	var names []string
	for _, s := range specials[:min(len(specials), shown)] {
		names = append(names, path.Join(dir, s))
	}
	text := strings.Join(names, ", ")
	if n := len(specials) - shown; n > 0 {
		text += fmt.Sprintf(" and %d more", n)
	}
	if len(specials) == 1 {
		return text + " (not a file, a directory or a symlink, which the history keeps)"
	}
	return text + " (not files, directories or symlinks, which the history keeps)"
}

// removeAt and stateLeft are a delete's removal and its look at what is
// left after it: tests make them fail.
var (
	removeAt  = func(w *Workspace, l fsroot.Loc, recursive bool) error { return w.fs.Remove(l, recursive) }
	stateLeft = func(w *Workspace, l fsroot.Loc) (history.State, error) { return w.stateAt(l, w.keepLimit()) }
)

// entryType names what a path holds, as delete and move report it: a
// file (any that is not a link or a directory), a symlink or a directory.
func entryType(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m.IsDir():
		return "directory"
	}
	return "file"
}

// removable refuses a recursive delete of the directory l (typed as
// dir) that could not remove everything: a directory inside that this
// process may not list or change. Removing what it could and failing there would
// leave half a tree, so nothing is removed.
func (w *Workspace) removable(l fsroot.Loc, dir string) error {
	if err := w.fs.Access(l, unix.R_OK|unix.W_OK|unix.X_OK); err != nil {
		return errs.FromOS("delete", dir, err, false)
	}
	var blocked string
	var cause error
	err := w.fs.WalkTree(l, func(e *fsroot.TreeEntry) (bool, error) {
		if blocked != "" || !e.Stat.IsDir() {
			return false, nil
		}
		if err := e.Access(unix.R_OK | unix.W_OK | unix.X_OK); err != nil {
			blocked, cause = path.Join(dir, e.Rel), err
			return false, nil
		}
		return true, nil
	})
	switch {
	case blocked != "":
		return errs.FromOS("delete", blocked, cause, false)
	case err != nil:
		return errs.FromOS("delete", dir, err, true)
	}
	return nil
}

// dryDelete says what a delete would remove, removing nothing.
func (w *Workspace) dryDelete(l fsroot.Loc, path, typ string, recursive bool) (*DeleteResult, error) {
	res := &DeleteResult{Path: Bytes(path), Type: typ, DryRun: true}
	if typ != "directory" {
		res.text = fmt.Sprintf("Would delete %s (a %s; dry run: nothing was deleted)", path, typ)
		return res, nil
	}
	_, err := w.fs.Walk(context.Background(), l, path, fsroot.WalkOptions{Hidden: true}, nil, func(e *fsroot.WalkEntry) (bool, any) {
		res.Would = append(res.Would, e.Rel())
		return true, nil
	})
	if err != nil {
		return nil, errs.FromOS("delete", path, err, true)
	}
	if len(res.Would) > 0 && !recursive {
		return nil, errs.NotEmpty(path, nil)
	}
	res.text = fmt.Sprintf("Would delete %s, a directory with %d %s (dry run: nothing was deleted)", path, len(res.Would), wording.Plural(len(res.Would), "entry", "entries"))
	for _, p := range res.Would {
		res.text += "\n  " + p
	}
	return res, nil
}
