package workspace

import (
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/upload"
)

// uploadError turns an upload failure into the coded error tools return
// (the codes are Mastra's, listed in errs); the failure stays reachable
// with errors.As, for its tripwire metadata.
func uploadError(f *upload.Failure) *errs.Error {
	return errs.UploadStopped(f.Code, f.Message, f)
}
