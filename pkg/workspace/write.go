package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/history"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/udiff"
	"golang.org/x/sys/unix"
)

// WriteResult is the outcome of write.
type WriteResult struct {
	Path   Bytes  `json:"path"`
	Bytes  int    `json:"bytes"`
	DryRun bool   `json:"dry_run,omitempty"`
	Diff   string `json:"diff,omitempty"` // with --dry-run: what the write would change
	textOut
}

// Write replaces (or creates) a file atomically. The version it replaces
// is kept for undo.
func (w *Workspace) Write(ctx context.Context, req WriteRequest) (*WriteResult, error) {
	t, g, err := w.resolveGuarded(req.Path, WriteFile)
	if err != nil {
		return nil, err
	}
	defer g.release()
	noReplace := req.Overwrite != nil && !*req.Overwrite
	data := []byte(req.Content)
	if req.DryRun {
		return w.dryWrite(t, g, data, noReplace)
	}
	// A special file (a FIFO) has no previous version to keep; writeFile
	// refuses it anyway.
	var changes []history.Change
	if before, err := w.stateAt(g.loc, w.keepLimit()); err == nil {
		changes = append(changes, history.Change{Key: g.real, Path: string(t.Rel()), Before: before})
	}
	rec := w.record(history.OpWrite, changes...)
	st, err := w.writeFile(t, g, data, noReplace)
	rec.done(err, w.writtenPrint(data, st))
	if err != nil {
		return nil, err
	}
	return &WriteResult{Path: Bytes(req.Path), Bytes: len(data),
		textOut: textOut{fmt.Sprintf("Wrote %d bytes to %s", len(data), req.Path)}}, nil
}

// dryWrite says what a write would change, changing nothing.
func (w *Workspace) dryWrite(t *fsroot.Target, g *writeGuard, data []byte, noReplace bool) (*WriteResult, error) {
	old, err := w.readLoc(g.loc)
	exists := err == nil
	switch {
	case exists && noReplace:
		return nil, errs.FileExists(t.Input, nil)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, errs.FromOS("write", t.Input, err, false)
	}
	res := &WriteResult{Path: Bytes(t.Input), Bytes: len(data), DryRun: true}
	res.Diff = udiff.Unified(diffName(t, exists, true), diffName(t, true, false), old, data, 3)
	res.text = fmt.Sprintf("Would write %d bytes to %s (dry run: nothing was written)", len(data), t.Input)
	if res.Diff == "" {
		res.text += "\nThe file already holds exactly this content."
	} else {
		res.text += "\n\n" + res.Diff
	}
	return res, nil
}

// diffName names a side of a diff: the path, or /dev/null for a file that
// does not exist (git's convention, so patch tools read the diff).
func diffName(t *fsroot.Target, exists, old bool) string {
	if !exists {
		return "/dev/null"
	}
	if old {
		return "a/" + string(t.Rel())
	}
	return "b/" + string(t.Rel())
}

// writeFile writes data to t under a held guard and updates the read record
// of the file if this thread has one (recordWrite).
func (w *Workspace) writeFile(t *fsroot.Target, g *writeGuard, data []byte, noReplace bool) (fsroot.FileStat, error) {
	st, err := w.fs.WriteAtomic(t.Loc(), bytes.NewReader(data), fsroot.WriteOptions{NoReplace: noReplace})
	if err != nil {
		return st, writeError(t, err, noReplace)
	}
	return st, w.recordWrite(g.real, st)
}

// writeError gives a failed write Mastra's message.
func writeError(t *fsroot.Target, err error, noReplace bool) error {
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
