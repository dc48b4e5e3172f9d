package upload

import (
	"strconv"
)

// ProcessorID names Mastra's processor in tripwire metadata.
const ProcessorID = "file-upload"

// Codes of the reasons an upload stops a turn, as Mastra's
// FILE_UPLOAD_ERROR_CODES has them (shims share these strings).
const (
	CodeNoSandbox          = "NO_SANDBOX"
	CodeNoWriteCapability  = "NO_WRITE_CAPABILITY"
	CodeInvalidMaxFileSize = "INVALID_MAX_FILE_SIZE"
	CodeInvalidFilter      = "INVALID_FILTER"
	CodeInvalidFileData    = "INVALID_FILE_DATA"
	CodeFileTooLarge       = "FILE_TOO_LARGE"
	CodeUploadFailed       = "UPLOAD_FAILED"
)

// Codes lists every code, in Mastra's order. ws never reports
// NO_WRITE_CAPABILITY (its sandbox always writes), but shims that share the
// list may.
var Codes = []string{CodeNoSandbox, CodeNoWriteCapability, CodeInvalidMaxFileSize, CodeInvalidFilter,
	CodeInvalidFileData, CodeFileTooLarge, CodeUploadFailed}

// Metadata is the tripwire metadata of a stopped turn, with Mastra's field
// names. Absent fields are left out.
type Metadata struct {
	ProcessorID string   `json:"processorId"`
	Code        string   `json:"code"`
	FileName    *string  `json:"fileName,omitempty"`
	MIMEType    *string  `json:"mimeType,omitempty"`
	Size        *int64   `json:"size,omitempty"`
	MaxFileSize *int64   `json:"maxFileSize,omitempty"`
	Cause       *string  `json:"cause,omitempty"`
	OrphanPaths []string `json:"orphanPaths,omitempty"`
}

// Failure is a reason to stop the turn: a code, Mastra's message, and the
// metadata a shim reports.
type Failure struct {
	Code    string
	Message string
	Meta    Metadata
}

func (f *Failure) Error() string { return f.Message }

// ErrorData is the failure's tripwire metadata, for JSON output.
func (f *Failure) ErrorData() any { return f.Meta }

// File is what is known about a file before its bytes are read: the name it
// was sent with ("" for none) and its MIME type as sent.
type File struct {
	Name     string
	MIMEType string
}

func newFailure(code, msg string, f *File) *Failure {
	fl := &Failure{Code: code, Message: msg, Meta: Metadata{ProcessorID: ProcessorID, Code: code}}
	if f != nil {
		if f.Name != "" {
			name := f.Name
			fl.Meta.FileName = &name
		}
		m := f.MIMEType
		fl.Meta.MIMEType = &m
	}
	return fl
}

func strPtr(s string) *string { return &s }

// NoSandbox is the failure when the workspace has no sandbox (the config
// says "sandbox": false); Mastra's processor refuses such a workspace.
func NoSandbox() *Failure {
	return newFailure(CodeNoSandbox, "FileUploadProcessor requires a workspace with a sandbox to upload files to.", nil)
}

// InvalidMaxFileSize is the failure when the size limit of a file could not
// be worked out (the maxSizeCommand failed or answered something that is
// not a non-negative number); cause says what happened.
func InvalidMaxFileSize(f File, cause string) *Failure {
	fl := newFailure(CodeInvalidMaxFileSize,
		"maxFileSize must return a non-negative number of bytes; it did not for "+Describe(f.Name)+".", &f)
	fl.Meta.Cause = strPtr(cause)
	return fl
}

// InvalidFilter is the failure when the filter failed or answered
// something other than true or false.
func InvalidFilter(f File, cause string) *Failure {
	fl := newFailure(CodeInvalidFilter, "filter must return true or false; it did not for "+Describe(f.Name)+".", &f)
	fl.Meta.Cause = strPtr(cause)
	return fl
}

// InvalidFileData is the failure when inline data cannot be decoded.
func InvalidFileData(f File) *Failure {
	return newFailure(CodeInvalidFileData, Describe(f.Name)+" has inline data that cannot be decoded.", &f)
}

// TooLarge is the failure when a file is over its size limit.
func TooLarge(f File, size, limit int64) *Failure {
	fl := newFailure(CodeFileTooLarge, Describe(f.Name)+" is "+strconv.FormatInt(size, 10)+
		" bytes, over the "+strconv.FormatInt(limit, 10)+" byte limit.", &f)
	fl.Meta.Size, fl.Meta.MaxFileSize = &size, &limit
	return fl
}

// UploadFailed is the failure when writing to the sandbox failed. orphans
// are the placed paths that may still exist because cleaning up failed.
func UploadFailed(cause string, orphans []string) *Failure {
	fl := newFailure(CodeUploadFailed, "Files could not be written to the sandbox.", nil)
	fl.Meta.Cause = strPtr(cause)
	fl.Meta.OrphanPaths = orphans
	return fl
}

// NoWriteCapability is Mastra's failure for a sandbox that can neither write
// files nor run commands. ws's sandbox always can; it is here so that the
// list of messages is complete for shims that share the codes.
func NoWriteCapability(sandbox string) *Failure {
	return newFailure(CodeNoWriteCapability, `Sandbox "`+sandbox+`" supports neither writeFiles nor executeCommand, so files cannot be uploaded to it.`, nil)
}
