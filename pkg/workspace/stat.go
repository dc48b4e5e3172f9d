package workspace

import (
	"context"
	"errors"
	"fmt"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"golang.org/x/sys/unix"
)

// StatResult is the outcome of stat.
type StatResult struct {
	Path     Bytes  `json:"path"`
	Type     string `json:"type"` // file or directory
	Size     int64  `json:"size"`
	Modified string `json:"modified"` // RFC 3339 with nanoseconds, UTC
	Mode     string `json:"mode"`
	textOut
}

// Stat describes a file or directory.
func (w *Workspace) Stat(ctx context.Context, req StatRequest) (*StatResult, error) {
	t, err := w.fs.Resolve(req.Path)
	if err != nil {
		return nil, err
	}
	st, err := w.fs.Stat(t.Loc())
	if errors.Is(err, unix.ENOENT) {
		return nil, errs.StatNotFound(req.Path, err)
	}
	if err != nil {
		return nil, errs.FromOS("stat", req.Path, err, false)
	}
	typ := "file"
	if st.IsDir() {
		typ = "directory"
	}
	return &StatResult{
		Path:     Bytes(req.Path),
		Type:     typ,
		Size:     st.Size,
		Modified: st.Mtime().UTC().Format("2006-01-02T15:04:05.000000000Z"),
		Mode:     fmt.Sprintf("%04o", fsroot.UnixMode(st.Mode)),
		textOut:  textOut{fmt.Sprintf("%s Type: %s Size: %d bytes Modified: %s", req.Path, typ, st.Size, isoMillis(st.Mtime()))},
	}, nil
}
