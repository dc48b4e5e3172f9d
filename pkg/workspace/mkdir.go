package workspace

import (
	"context"
	"path"

	"github.com/wstools/ws/pkg/errs"
	"golang.org/x/sys/unix"
)

// MkdirResult is the outcome of mkdir.
type MkdirResult struct {
	Path Bytes `json:"path"`
	textOut
}

// Mkdir creates a directory. An existing directory is success.
func (w *Workspace) Mkdir(ctx context.Context, req MkdirRequest) (*MkdirResult, error) {
	t, err := w.fs.Resolve(req.Path)
	if err != nil {
		return nil, err
	}
	l := t.Loc()
	if w.stateFile(w.fs.RealPath(l)) {
		return nil, errs.Protected("mkdir", req.Path, "it is in ws's state directory")
	}
	// Nothing is created after the call's deadline (commit).
	if req.Recursive == nil || *req.Recursive {
		err = commit(ctx, func() error { return w.fs.MkdirAll(l) })
	} else if st, serr := w.fs.Stat(l); serr == nil {
		if !st.IsDir() {
			err = unix.EEXIST
		}
	} else {
		p, name := l.Parent()
		err = commit(ctx, func() error { return w.fs.MkdirIn(p, name) })
		if err == unix.ENOENT {
			return nil, errs.DirNotFound(path.Dir(req.Path), err)
		}
	}
	switch {
	case err == unix.EEXIST:
		return nil, errs.FileExists(req.Path, err)
	case err == unix.ENOTDIR:
		return nil, errs.NotDir(req.Path, err)
	case err != nil:
		return nil, errs.FromOS("mkdir", req.Path, err, true)
	}
	return &MkdirResult{Path: Bytes(req.Path), textOut: textOut{"Created directory " + req.Path}}, nil
}
