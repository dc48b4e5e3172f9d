package workspace

import "github.com/wstools/ws/pkg/upload"

// Error codes of uploads: Mastra's FileUploadProcessor codes, the same
// strings as pkg/upload's.
const (
	NoSandbox          Code = upload.CodeNoSandbox
	NoWriteCapability  Code = upload.CodeNoWriteCapability // never reported by ws; kept for shims
	InvalidMaxFileSize Code = upload.CodeInvalidMaxFileSize
	InvalidFilter      Code = upload.CodeInvalidFilter
	InvalidFileData    Code = upload.CodeInvalidFileData
	FileTooLarge       Code = upload.CodeFileTooLarge
	UploadFailed       Code = upload.CodeUploadFailed
)

// uploadError turns an upload failure into the coded error tools return;
// the failure stays reachable with errors.As, for its tripwire metadata.
func uploadError(f *upload.Failure) *Error {
	return &Error{Code: Code(f.Code), Message: f.Message, Err: f}
}
