package errs

import (
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"syscall"
	"testing"
)

func TestCatalogue(t *testing.T) {
	tests := []struct {
		err  *Error
		code Code
		text string
	}{
		{FileNotFound("a.txt", nil), ENOENT, "File not found: a.txt"},
		{DirNotFound("d", nil), ENOENT, "Directory not found: d"},
		{FileExists("a", nil), EEXIST, "File already exists: a"},
		{IsDir("d", nil), EISDIR, "Path is a directory: d"},
		{NotDir("f", nil), ENOTDIR, "Path is not a directory: f"},
		{NotEmpty("d", nil), ENOTEMPTY, "Directory not empty: d"},
		{Permission("write", "a", nil), EACCES, "Permission denied: write on a"},
		{ReadOnlyMode("write_file"), ReadOnly, "Workspace is in read-only mode. Cannot perform: write_file"},
		{OutsideRoot("../x", ""), OutsideWorkspace, "Permission denied: access on ../x"},
		{OutsideRoot("/x", "hint"), OutsideWorkspace, "Permission denied: access (hint) on /x"},
		{WriteLockTimeout("./a", "a", 30000), LockTimeout, `write-lock timeout on "a" after 30000ms`},
		{EditNotUnique(2), NotUnique, "The specified text appears 2 times. Provide more surrounding context to make the match unique, or use replace_all to replace all occurrences."},
		{EditNoMatch(), NoMatch, "The specified text was not found. Make sure you use the exact text from the file."},
		{NoSuchProcess("7"), ENOENT, "No background process found with PID 7."},
		{ProcessGone("7"), ENOENT, "Process 7 was not found or had already exited."},
		{ProcessRemoved("7"), RecordRemoved, "the record of process 7 was removed while ws was reading it (by ws destroy, or ws ps --prune), so its output and exit code are gone"},
		{StatNotFound("nope", nil), ENOENT, "nope: not found"},
		{Validation("t", []string{"- a: b"}, "{}"), InvalidArgument, "Tool input validation failed for t. Please fix the following errors and try again:\n- a: b\n\nProvided arguments: {}"},
		{ToolNotAvailable("x"), NotAvailable, "tool not available: x"},
		{ToolNotOffered("glob", "the filesystem is read-only"), NotAvailable, "tool not available: glob (the filesystem is read-only)"},
		{CommandError("hook afterToolCall", []string{"sh", "-c", "x"}, errors.New("exit status 1"), "oops"), EIO, "hook afterToolCall (sh -c x) failed: exit status 1: oops"},
		{UploadStopped("FILE_TOO_LARGE", "big", nil), FileTooLarge, "big"},
	}
	for _, tt := range tests {
		if tt.err.Code != tt.code || tt.err.Error() != tt.text {
			t.Errorf("got %s %q, want %s %q", tt.err.Code, tt.err.Error(), tt.code, tt.text)
		}
	}
}

func TestFromOS(t *testing.T) {
	tests := []struct {
		op, text string
		err      error
		dir      bool
		code     Code
	}{
		{"read", "File not found: p", fs.ErrNotExist, false, ENOENT},
		{"list", "Directory not found: p", fs.ErrNotExist, true, ENOENT},
		{"rmdir", "Directory not empty: p", syscall.EEXIST, false, ENOTEMPTY},
		{"write", "Permission denied: write on p", &fs.PathError{Op: "open", Path: "/abs/p", Err: syscall.EACCES}, false, EACCES},
		{"open", "Permission denied: access on p", syscall.ELOOP, false, OutsideWorkspace},
		{"read", "Too many levels of symbolic links: p (a loop of symlinks, or a chain of more than 40)", &fs.PathError{Op: "open", Path: "/abs/p", Err: ErrLinkLoop}, false, ELOOP},
		{"read", "read failed on p: input/output error", &fs.PathError{Op: "read", Path: "/abs/p", Err: syscall.EIO}, false, EIO},
		{"write", "write failed on p: no space left on device", &fs.PathError{Op: "write", Path: "/abs/p", Err: syscall.ENOSPC}, false, ENOSPC},
		{"write", "write failed on p: disk quota exceeded", syscall.EDQUOT, false, ENOSPC},
	}
	for _, tt := range tests {
		err := FromOS(tt.op, "p", tt.err, tt.dir)
		if CodeOf(err) != tt.code || err.Error() != tt.text {
			t.Errorf("FromOS(%s, %v) = %s %q, want %s %q", tt.op, tt.err, CodeOf(err), err, tt.code, tt.text)
		}
	}
	own := FileExists("x", nil)
	if FromOS("write", "p", fmt.Errorf("wrapped: %w", own), false) == nil || CodeOf(fmt.Errorf("w: %w", own)) != EEXIST {
		t.Error("an *Error does not pass through")
	}
	if CodeOf(errors.New("plain")) != Internal || At(errors.New("x"), "p").Code != Internal {
		t.Error("plain errors are Internal")
	}
}

// TestShellWord: the install command that "no ws there" advises runs as
// written, an exec: prefix with its spaces and quotes included (it was
// split into words, and ws remote install takes one URL).
func TestShellWord(t *testing.T) {
	for _, s := range []string{
		"ssh://dev@box:2222/srv/app",
		"exec:docker exec -i sandbox",
		`exec:sh -c 'exec "$@"' sh`,
		"exec:env A=`x` B=\\$HOME C=é",
	} {
		out, err := exec.Command("sh", "-c", `printf %s `+shellWord(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("sh reads %s as %q (%v), want %q", shellWord(s), out, err, s)
		}
	}
	if got := shellWord("ssh://dev@box/srv"); got != "ssh://dev@box/srv" {
		t.Errorf("shellWord quotes a plain URL: %s", got)
	}
}
