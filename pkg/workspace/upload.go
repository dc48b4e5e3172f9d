package workspace

import (
	"context"
	"errors"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/upload"
)

// Upload is Mastra's FileUploadProcessor as a command: it places the
// request's files in the sandbox working directory (the workspace root) at
// uploads/<dir>/<sha256>.<ext> and gives, for each one, the note that
// replaces it in the prompt. The uploader (pkg/upload) applies the config's
// upload section and writes the files; a failure that stops the turn comes
// back with its code (Mastra's, listed in errs) and stays reachable with
// errors.As as an *upload.Failure, for its tripwire metadata.
func (w *Workspace) Upload(ctx context.Context, req upload.Request) (*upload.Result, error) {
	c := w.cfg.Upload
	u := &upload.Uploader{
		Policy: upload.Policy{Include: c.Include, Exclude: c.Exclude, MaxSize: c.MaxSize,
			FilterCommand: c.FilterCommand, MaxSizeCommand: c.MaxSizeCommand},
		FS: w.fs, Thread: w.thread, SandboxDisabled: w.cfg.Sandbox.Disabled, Now: w.now,
		Run: func(ctx context.Context, name string, argv []string, stdin []byte) ([]byte, error) {
			return w.runHelper(ctx, name, argv, stdin, helperTimeoutOf(c.CommandTimeout))
		},
	}
	res, err := u.Upload(ctx, req)
	var f *upload.Failure
	if errors.As(err, &f) {
		return nil, errs.UploadStopped(f.Code, f.Message, f)
	}
	return res, err
}
