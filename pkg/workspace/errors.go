package workspace

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
	Internal         Code = "INTERNAL"
)

// Error is the one error type tools return. Message is the text shown to the
// model (Mastra's wording where Mastra has one); Err is the underlying cause,
// kept for errors.Is/As but never shown in place of Message.
type Error struct {
	Code    Code
	Op      string
	Path    string
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

// Errorf builds an *Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// CodeOf returns the code of err, or Internal when err carries none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// Messages of Mastra's error catalogue, one function each so the wording
// lives in one place.

func errFileNotFound(path string, err error) *Error {
	return &Error{Code: ENOENT, Path: path, Message: "File not found: " + path, Err: err}
}

func errDirNotFound(path string, err error) *Error {
	return &Error{Code: ENOENT, Path: path, Message: "Directory not found: " + path, Err: err}
}

func errFileExists(path string, err error) *Error {
	return &Error{Code: EEXIST, Path: path, Message: "File already exists: " + path, Err: err}
}

func errIsDir(path string, err error) *Error {
	return &Error{Code: EISDIR, Path: path, Message: "Path is a directory: " + path, Err: err}
}

func errNotDir(path string, err error) *Error {
	return &Error{Code: ENOTDIR, Path: path, Message: "Path is not a directory: " + path, Err: err}
}

func errNotEmpty(path string, err error) *Error {
	return &Error{Code: ENOTEMPTY, Path: path, Message: "Directory not empty: " + path, Err: err}
}

func errPermission(op, path string, err error) *Error {
	return &Error{Code: EACCES, Op: op, Path: path, Message: "Permission denied: " + op + " on " + path, Err: err}
}

func errReadOnly(op string) *Error {
	return &Error{Code: ReadOnly, Op: op, Message: "Workspace is in read-only mode. Cannot perform: " + op}
}

// fsError turns an OS error met while working on path (as the caller typed
// it) into a coded error with Mastra's message. notFound chooses between the
// file and the directory wording for ENOENT.
func fsError(op, path string, err error, dirContext bool) error {
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
			return errDirNotFound(path, err)
		}
		return errFileNotFound(path, err)
	case errors.Is(err, syscall.EISDIR):
		return errIsDir(path, err)
	case errors.Is(err, syscall.ENOTDIR):
		return errNotDir(path, err)
	case errors.Is(err, syscall.ENOTEMPTY), errors.Is(err, syscall.EEXIST) && op == "rmdir":
		return errNotEmpty(path, err)
	case errors.Is(err, fs.ErrExist):
		return errFileExists(path, err)
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS):
		return errPermission(op, path, err)
	case errors.Is(err, syscall.ELOOP), errors.Is(err, syscall.EXDEV):
		return &Error{Code: OutsideWorkspace, Op: op, Path: path, Message: "Permission denied: access on " + path, Err: err}
	}
	return &Error{Code: EIO, Op: op, Path: path, Message: fmt.Sprintf("%s failed on %s: %s", op, path, errnoText(err)), Err: err}
}

// errnoText gives the bare system message of err, without Go's "open /abs/path:"
// prefix, so messages never leak absolute paths.
func errnoText(err error) string {
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
