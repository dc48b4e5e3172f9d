package errs

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
)

// Code is a stable, machine-readable error code. The set is closed: every
// error a tool returns carries one of the constants below.
type Code string

// Error codes. Filesystem errors use the POSIX names Mastra uses; the rest
// name the condition.
const (
	ENOENT           Code = "ENOENT"
	EISDIR           Code = "EISDIR"
	ENOTDIR          Code = "ENOTDIR"
	EACCES           Code = "EACCES"
	EEXIST           Code = "EEXIST"
	ENOTEMPTY        Code = "ENOTEMPTY"
	ESTALE           Code = "ESTALE"
	EREADREQUIRED    Code = "EREAD_REQUIRED"
	EIO              Code = "EIO"
	ENOSPC           Code = "ENOSPC" // no space left on the device, or a disk quota reached
	ELOOP            Code = "ELOOP"  // a loop of symlinks (or a chain too long to follow)
	OutsideWorkspace Code = "OUTSIDE_WORKSPACE"
	ReadOnly         Code = "READ_ONLY"
	NotUnique        Code = "NOT_UNIQUE"
	NoMatch          Code = "NO_MATCH"
	Timeout          Code = "TIMEOUT"
	LockTimeout      Code = "LOCK_TIMEOUT"
	InvalidArgument  Code = "INVALID_ARGUMENT"
	InvalidPattern   Code = "INVALID_PATTERN"
	InvalidConfig    Code = "INVALID_CONFIG"
	NotAvailable     Code = "TOOL_NOT_AVAILABLE"
	ApprovalRefused  Code = "APPROVAL_REFUSED"
	StateCorrupt     Code = "STATE_CORRUPT"
	// RecordRemoved: a background process's record went away while ws
	// read it (ws destroy, ws ps --prune).
	RecordRemoved  Code = "PROCESS_REMOVED"
	InvalidPatch   Code = "INVALID_PATCH"
	NoChange       Code = "NOTHING_TO_UNDO"
	EmbedderFailed Code = "EMBEDDER_FAILED"
	Internal       Code = "INTERNAL"
	// A notebook tool's file is not a notebook it can read, or has no
	// such cell.
	NotANotebook Code = "NOT_NOTEBOOK"
	NoSuchCell   Code = "NO_CELL"

	// --remote: the transport failed, there is no ws on the other side,
	// or the connection ended before the command did.
	RemoteUnreachable Code = "REMOTE_UNREACHABLE"
	RemoteNoWS        Code = "REMOTE_NO_WS"
	RemoteLost        Code = "REMOTE_LOST"

	// The codes of Mastra's FileUploadProcessor (pkg/upload has the same
	// strings); NoWriteCapability is never reported by ws.
	UploadNoSandbox          Code = "NO_SANDBOX"
	UploadNoWriteCapability  Code = "NO_WRITE_CAPABILITY"
	UploadInvalidMaxFileSize Code = "INVALID_MAX_FILE_SIZE"
	UploadInvalidFilter      Code = "INVALID_FILTER"
	UploadInvalidFileData    Code = "INVALID_FILE_DATA"
	FileTooLarge             Code = "FILE_TOO_LARGE" // an upload over its limit, a skill file too large to read
	UploadFailed             Code = "UPLOAD_FAILED"
)

// Error is the one error type tools return. Message is the text shown to
// the model; Err is the underlying cause, kept for errors.Is/As but never
// shown in place of Message.
type Error struct {
	Code    Code
	Op      string // the operation, where one applies (write, mkdir …)
	Path    string // the path as the caller typed it, where one applies
	Message string
	Err     error
}

func (e *Error) Error() string {
	if e.Message != "" {
		return e.Message
	}
	if e.Err != nil {
		return e.Err.Error()
	}
	return string(e.Code)
}

func (e *Error) Unwrap() error { return e.Err }

// CodeOf returns the code of err, or Internal when err carries none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// newf builds an error; the constructors of the catalogue use it. Code
// outside this package calls a constructor instead.
func newf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// textError makes the constructor of a message with one text in it.
func textError(code Code, format string) func(string) *Error {
	return func(s string) *Error { return newf(code, format, s) }
}

// pathError makes the constructor of a message about a path, which keeps
// the path and the cause.
func pathError(code Code, format string) func(path string, cause error) *Error {
	return func(path string, cause error) *Error { return newf(code, format, path).at(path, cause) }
}

// at sets the path (and cause) of an error of the catalogue.
func (e *Error) at(path string, cause error) *Error {
	e.Path, e.Err = path, cause
	return e
}

// Wrap keeps an error of ours as it is and makes anything else an Internal
// error with its message: for failures that should not happen.
func Wrap(err error) error {
	var e *Error
	if err == nil || errors.As(err, &e) {
		return err
	}
	return &Error{Code: Internal, Message: err.Error(), Err: err}
}

// FromOS turns an OS error met while working on path (as the caller typed
// it) into a coded error with Mastra's message; an *Error passes through.
// dirContext chooses the directory wording for ENOENT.
func FromOS(op, path string, err error, dirContext bool) error {
	if err == nil {
		return nil
	}
	var we *Error
	if errors.As(err, &we) {
		return err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if dirContext {
			return DirNotFound(path, err)
		}
		return FileNotFound(path, err)
	case errors.Is(err, syscall.EISDIR):
		return IsDir(path, err)
	case errors.Is(err, syscall.ENOTDIR):
		return NotDir(path, err)
	case errors.Is(err, syscall.ENOTEMPTY), errors.Is(err, syscall.EEXIST) && op == "rmdir":
		return NotEmpty(path, err)
	case errors.Is(err, fs.ErrExist):
		return FileExists(path, err)
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS):
		return Permission(op, path, err)
	case errors.Is(err, ErrLinkLoop):
		return LinkLoop(path, err)
	case errors.Is(err, syscall.ELOOP), errors.Is(err, syscall.EXDEV):
		return Escape("access", path, err)
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		e := IOFailed(op, path, err)
		e.Code = ENOSPC
		return e
	}
	return IOFailed(op, path, err)
}

// Errno gives the bare system message of err, without Go's "open /abs/path:"
// prefix, so messages never leak absolute paths.
func Errno(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// At returns err with the path it concerns set, keeping its code and
// message (anything that is not an *Error becomes an Internal one).
func At(err error, path string) *Error {
	var e *Error
	if !errors.As(err, &e) {
		return &Error{Code: Internal, Path: path, Message: err.Error(), Err: err}
	}
	c := *e
	c.Path = path
	return &c
}

// Coded gives a code to an error whose text another package of ws words
// (a skill that is not found, an invalid skill path): the message is err's.
func Coded(code Code, err error) *Error {
	return &Error{Code: code, Message: err.Error(), Err: err}
}
