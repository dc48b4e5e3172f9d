package errs

import "strings"

// Messages whose wording is Mastra's (mastra-behaviour.md §2.2 and the
// tool sections), one constructor each.

// FileNotFound is Mastra's FileNotFoundError.
var FileNotFound = pathError(ENOENT, "File not found: %s")

// DirNotFound is Mastra's DirectoryNotFoundError.
var DirNotFound = pathError(ENOENT, "Directory not found: %s")

// FileExists is Mastra's FileExistsError.
var FileExists = pathError(EEXIST, "File already exists: %s")

// IsDir is Mastra's IsDirectoryError.
var IsDir = pathError(EISDIR, "Path is a directory: %s")

// NotDir is Mastra's NotDirectoryError.
var NotDir = pathError(ENOTDIR, "Path is not a directory: %s")

// NotEmpty is Mastra's DirectoryNotEmptyError.
var NotEmpty = pathError(ENOTEMPTY, "Directory not empty: %s")

// Permission is Mastra's PermissionError.
func Permission(op, path string, err error) *Error {
	e := newf(EACCES, "Permission denied: %s on %s", op, path).at(path, err)
	e.Op = op
	return e
}

// ReadOnlyMode is Mastra's WorkspaceReadOnlyError.
func ReadOnlyMode(op string) *Error {
	e := newf(ReadOnly, "Workspace is in read-only mode. Cannot perform: %s", op)
	e.Op = op
	return e
}

// OutsideRoot is Mastra's refusal of a path outside the workspace. hint,
// when not empty, says how to spell it instead (for absolute paths).
func OutsideRoot(input, hint string) *Error {
	msg := "Permission denied: access on " + input
	if hint != "" {
		msg = "Permission denied: access (" + hint + ") on " + input
	}
	e := &Error{Code: OutsideWorkspace, Op: "access", Path: input, Message: msg}
	return e
}

// Escape is the refusal of a path that leaves the workspace through a
// symlink. Unlike Mastra it names the path as typed, never the resolved
// absolute path outside the workspace.
func Escape(op, input string, err error) *Error {
	e := newf(OutsideWorkspace, "Permission denied: %s on %s", op, input).at(input, err)
	e.Op = op
	return e
}

// ReadRequired is Mastra's FileReadRequiredError for a file never read.
func ReadRequired(path string) *Error {
	return newf(EREADREQUIRED, "File \"%s\" has not been read. You must read a file before writing to it.", path).at(path, nil)
}

// ReadElsewhere is Mastra's FileReadRequiredError for a file read through
// another filesystem.
func ReadElsewhere(path string) *Error {
	return newf(EREADREQUIRED, "File \"%s\" was read in a different filesystem. You must read a file before writing to it.", path).at(path, nil)
}

// ModifiedSinceRead is the read-before-write policy's stale-read message;
// sizes is ws's addition ("; expected size …") or "".
func ModifiedSinceRead(path, readAt, now, sizes string) *Error {
	return newf(ESTALE, "File \"%s\" was modified since last read (read at: %s, current: %s%s). Please re-read the file to get the latest contents.",
		path, readAt, now, sizes).at(path, nil)
}

// ModifiedExternally is Mastra's StaleFileError; sizes as above.
func ModifiedExternally(path, readAt, now, sizes string) *Error {
	return newf(ESTALE, "File was modified externally: %s (expected mtime %s, actual %s%s)", path, readAt, now, sizes).at(path, nil)
}

// WriteLockTimeout is Mastra's write-lock timeout; key is the normalised
// path.
func WriteLockTimeout(path, key string, ms int) *Error {
	return newf(LockTimeout, "write-lock timeout on \"%s\" after %dms", key, ms).at(path, nil)
}

// NoSandbox is Mastra's SandboxNotAvailableError.
func NoSandbox() *Error { return newf(NotAvailable, "Workspace does not have a sandbox configured") }

// NoProcesses is Mastra's SandboxFeatureNotSupportedError for processes.
func NoProcesses() *Error { return newf(NotAvailable, "Sandbox does not support processes") }

// NoSearch is Mastra's SearchNotAvailableError.
func NoSearch() *Error {
	return newf(NotAvailable, "Workspace does not have search configured (enable bm25 or provide vectorStore + embedder)")
}

// EditNotFound is edit_file's text when old_string does not occur.
const EditNotFound = "The specified text was not found. Make sure you use the exact text from the file."

// EditNotUnique is edit_file's text when old_string occurs n > 1 times.
func EditNotUnique(n int) *Error {
	return newf(NotUnique, "The specified text appears %d times. Provide more surrounding context to make the match unique, or use replace_all to replace all occurrences.", n)
}

// InvalidRegex is grep's text for a pattern that does not compile.
var InvalidRegex = textError(InvalidPattern, "Error: Invalid regex pattern: %s")

// PatternTooLong is grep's text for a pattern over 1000 code units.
func PatternTooLong(n int) *Error {
	return newf(InvalidPattern, "Error: Pattern too long (%d chars, max 1000). Use a shorter pattern.", n)
}

// NoSuchProcess is get_process_output's text for an unknown PID.
var NoSuchProcess = textError(ENOENT, "No background process found with PID %s.")

// ProcessGone is kill_process's text for an unknown or ended PID.
var ProcessGone = textError(ENOENT, "Process %s was not found or had already exited.")

// StatNotFound is file_stat's text for a missing path.
var StatNotFound = pathError(ENOENT, "%s: not found")

// Validation is Mastra's validation failure: the tool id as called, the
// "- field: problem" lines, and the provided arguments as JSON.
func Validation(id string, issues []string, provided string) *Error {
	var sb strings.Builder
	sb.WriteString("Tool input validation failed for " + id + ". Please fix the following errors and try again:\n")
	sb.WriteString(strings.Join(issues, "\n"))
	sb.WriteString("\n\nProvided arguments: " + provided)
	e := &Error{Code: InvalidArgument, Op: id, Message: sb.String()}
	return e
}

// CommandFailed is execute_command's text when the sandbox could not run
// the command at all.
func CommandFailed(err error) *Error {
	return &Error{Code: EIO, Message: "Error: " + err.Error(), Err: err}
}

// EditNoMatch is edit_file's not-found failure with Mastra's text.
func EditNoMatch() *Error { return &Error{Code: NoMatch, Message: EditNotFound} }
