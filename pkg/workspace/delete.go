package workspace

import (
	"context"
	"errors"
	"io/fs"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"golang.org/x/sys/unix"
)

// DeleteResult is the outcome of delete.
type DeleteResult struct {
	Path string `json:"path"`
	Type string `json:"type"` // file, directory or symlink
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
	lock, err := w.lockPath(w.fs.RealPath(l), req.Path)
	if err != nil {
		return nil, err
	}
	defer lock.Release()

	st, err := w.fs.Lstat(l)
	if err != nil {
		return nil, errs.FromOS("delete", req.Path, err, false)
	}
	p, name := l.Parent()
	pfd, err := w.fs.Open(p, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return nil, errs.FromOS("delete", req.Path, err, false)
	}
	defer unix.Close(pfd)
	recursive := req.Recursive != nil && *req.Recursive
	if err := fsroot.RemoveAt(pfd, name, recursive); err != nil {
		if errors.Is(err, unix.ENOTEMPTY) || errors.Is(err, unix.EEXIST) {
			return nil, errs.NotEmpty(req.Path, err)
		}
		return nil, errs.FromOS("delete", req.Path, err, false)
	}
	_ = unix.Fsync(pfd)
	typ := "file"
	switch {
	case st.Mode&fs.ModeSymlink != 0:
		typ = "symlink"
	case st.IsDir():
		typ = "directory"
	}
	return &DeleteResult{Path: req.Path, Type: typ, textOut: textOut{"Deleted " + req.Path}}, nil
}
