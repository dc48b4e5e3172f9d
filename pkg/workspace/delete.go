package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

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
	lock, err := w.lockPath(real, req.Path)
	if err != nil {
		return nil, err
	}
	defer lock.Release()

	st, err := w.fs.Lstat(l)
	if err != nil {
		return nil, errs.FromOS("delete", req.Path, err, false)
	}
	typ := "file"
	switch {
	case st.Mode&fs.ModeSymlink != 0:
		typ = "symlink"
	case st.IsDir():
		typ = "directory"
	}
	recursive := req.Recursive != nil && *req.Recursive
	if req.DryRun {
		return w.dryDelete(l, req.Path, typ, recursive)
	}
	before, serr := w.stateAt(l, w.keepLimit())
	var rec *recording
	if serr == nil {
		rec = w.record(history.OpDelete, history.Change{Key: real, Path: string(t.Rel()), Before: before})
	} else {
		rec = w.record(history.OpDelete) // a FIFO or a device: nothing to keep
	}
	err = commit(ctx, func() error { return w.fs.Remove(l, recursive) }) // not after the deadline
	rec.done(err, history.AbsentFingerprint())
	if err != nil {
		if errors.Is(err, unix.ENOTEMPTY) || errors.Is(err, unix.EEXIST) {
			return nil, errs.NotEmpty(req.Path, err)
		}
		return nil, errs.FromOS("delete", req.Path, err, false)
	}
	return &DeleteResult{Path: Bytes(req.Path), Type: typ, textOut: textOut{"Deleted " + req.Path}}, nil
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
