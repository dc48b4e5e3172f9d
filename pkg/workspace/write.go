package workspace

import (
	"bytes"
	"context"
	"fmt"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"golang.org/x/sys/unix"
)

// WriteResult is the outcome of write.
type WriteResult struct {
	Path  string `json:"path"`
	Bytes int    `json:"bytes"`
	textOut
}

// Write replaces (or creates) a file atomically.
func (w *Workspace) Write(ctx context.Context, req WriteRequest) (*WriteResult, error) {
	t, err := w.fs.Resolve(req.Path)
	if err != nil {
		return nil, err
	}
	g, err := w.guardWrite(t, WriteFile)
	if err != nil {
		return nil, err
	}
	defer g.release()
	noReplace := req.Overwrite != nil && !*req.Overwrite
	if err := w.writeFile(t, g, []byte(req.Content), noReplace); err != nil {
		return nil, err
	}
	return &WriteResult{Path: req.Path, Bytes: len(req.Content),
		textOut: textOut{fmt.Sprintf("Wrote %d bytes to %s", len(req.Content), req.Path)}}, nil
}

// writeFile writes data to t under a held guard and records the new state
// of the file as seen by this thread.
func (w *Workspace) writeFile(t *fsroot.Target, g *writeGuard, data []byte, noReplace bool) error {
	st, err := w.fs.WriteAtomic(t.Loc(), bytes.NewReader(data), fsroot.WriteOptions{NoReplace: noReplace})
	if err != nil {
		switch {
		case err == fsroot.ErrNotRegular:
			return errs.NotRegular("write", t.Input, err)
		case err == unix.EEXIST && noReplace:
			return errs.FileExists(t.Input, err)
		case err == unix.ENOTDIR:
			return errs.NotDir(t.Input, err)
		}
		return errs.FromOS("write", t.Input, err, false)
	}
	return w.recordRead(g.real, st)
}
