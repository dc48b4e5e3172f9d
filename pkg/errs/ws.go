package errs

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/wstools/ws/pkg/internal/wording"
)

// Messages of ws's own, one constructor each.

// EmptyPath refuses an empty path argument.
func EmptyPath() *Error {
	return newf(InvalidArgument, "path is empty: give a file or directory, e.g. \".\" for the workspace root")
}

// EmptyFilePath refuses an empty path given to a tool that reads or
// writes one file, for which EmptyPath's "." would be no better.
func EmptyFilePath() *Error {
	return newf(InvalidArgument, "path is empty: give the file's path, e.g. notes.md (relative to the workspace root)")
}

// EmptyPathToRemove refuses an empty path given to delete, whose hint
// cannot be EmptyPath's: delete refuses the workspace root.
func EmptyPathToRemove() *Error {
	return newf(InvalidArgument, "path is empty: give the file or directory to delete (the workspace root cannot be deleted)")
}

// EmptyPathToUndo refuses an empty path given to undo, which would
// otherwise be taken for none: the last change in the whole workspace.
func EmptyPathToUndo() *Error {
	return newf(InvalidArgument, "path is empty: give the file or directory whose last change to take back, or no path for the last change in the workspace")
}

// NULInPath refuses a path holding a NUL byte.
func NULInPath(input string) *Error {
	return newf(InvalidArgument, "path %s holds a NUL byte, which no file name can", strconv.Quote(input))
}

// NotRegular refuses to read or write something that is not a regular
// file (a FIFO, a device, a socket).
func NotRegular(op, path string, err error) *Error {
	e := newf(EACCES, "Permission denied: %s on %s (not a regular file)", op, path).at(path, err)
	e.Op = op
	return e
}

// ErrLinkLoop is the cause of an open that failed with ELOOP because the
// path's symlinks form a loop (or a chain longer than the kernel follows),
// not because a link was refused (one not followed, a /proc magic link),
// which ELOOP means too and which is an escape.
var ErrLinkLoop = errors.New("too many levels of symbolic links")

// LinkLoop refuses a path whose symlinks loop. Mastra throws Node's raw
// error, with the absolute path: ELOOP: too many symbolic links
// encountered, realpath '<ROOT>/loop1'.
var LinkLoop = pathError(ELOOP, "Too many levels of symbolic links: %s (a loop of symlinks, or a chain of more than 40)")

// IOFailed is an OS error without a Mastra message of its own.
func IOFailed(op, path string, err error) *Error {
	e := newf(EIO, "%s failed on %s: %s", op, path, Errno(err)).at(path, err)
	e.Op = op
	return e
}

// NoRoot: no workspace root was given.
func NoRoot() *Error { return newf(InvalidArgument, "no workspace root given") }

// BadRoot: the workspace root cannot be used. code is ENOENT, EACCES or
// ENOTDIR; why says what is wrong.
func BadRoot(code Code, root, why string, err error) *Error {
	e := newf(code, "workspace root %s: %s", root, why)
	e.Err = err
	return e
}

// NoWorkingDir: the current directory (the default root) is gone.
func NoWorkingDir(err error) *Error {
	return &Error{Code: ENOENT, Message: "cannot find the current directory: " + Errno(err), Err: err}
}

// Config is a configuration file that cannot be used.
func Config(err error) *Error { return &Error{Code: InvalidConfig, Message: err.Error(), Err: err} }

// NoSkills: the skill tools without skills configured.
func NoSkills() *Error {
	return newf(NotAvailable, `Workspace does not have skills configured (set "skills" in the config)`)
}

// NoSearchConfigured is NoSearch as a subcommand tells it: which config
// keys give a workspace search, and how a config is given.
func NoSearchConfigured() *Error {
	return newf(NotAvailable, `Workspace does not have search configured: set "bm25": true (or an "embedder") in the config, given with --config FILE or WS_CONFIG`)
}

// NoSandboxConfigured is NoSandbox as a subcommand tells it: the config
// switched the sandbox off.
func NoSandboxConfigured() *Error {
	return newf(NotAvailable, `Workspace does not have a sandbox configured: the config sets "sandbox": false`)
}

// ToolNotAvailable: a tool that is not offered under that name.
var ToolNotAvailable = textError(NotAvailable, "tool not available: %s")

// ToolNotOffered: a tool ws has that this workspace does not offer under
// that name; why says what makes it so (the config, a read-only
// filesystem), in the words of the caller's dialect.
func ToolNotOffered(name, why string) *Error {
	return newf(NotAvailable, "tool not available: %s (%s)", name, why)
}

// NeedsEmbedder: a vector or hybrid search without an embedder.
func NeedsEmbedder(mode string) *Error { return NeedsEmbedderAs(mode, "mode") }

// NeedsEmbedderAs is NeedsEmbedder naming the mode as the caller gave it:
// the parameter (mode), or the subcommand's flag (--mode).
func NeedsEmbedderAs(mode, param string) *Error {
	return newf(InvalidArgument, "search mode %q needs an embedder, and none is configured (set \"embedder\" in the config, or use %s or leave %s out)",
		mode, setMode(param, "bm25"), param)
}

// setMode is a search mode given as the parameter or as the flag.
func setMode(param, mode string) string {
	if param == "mode" {
		return fmt.Sprintf("mode %q", mode)
	}
	return param + " " + mode
}

// UnknownSearchMode: a search mode ws does not know.
var UnknownSearchMode = textError(InvalidArgument, "unknown search mode %q (modes: bm25, vector, hybrid)")

// NeedsBM25: a bm25 or hybrid search in a workspace whose config enables
// only vector search.
// param names the mode as NeedsEmbedderAs's does.
func NeedsBM25(mode, param string) *Error {
	return newf(InvalidArgument, `search mode %q needs bm25, which the config does not enable (set "bm25": true, or use %s)`, mode, setMode(param, "vector"))
}

// Embedder is a failure of the embedder (the message names its endpoint,
// never the key).
func Embedder(err error) *Error { return &Error{Code: EmbedderFailed, Message: err.Error(), Err: err} }

// EmbedderKeyMissing: the environment variable that should hold the API
// key is not set.
func EmbedderKeyMissing(name string) *Error {
	return newf(EmbedderFailed, "embedder: the API key variable %s is not set in the environment", name)
}

// NoVectorState: vector search without a state directory to keep vectors.
func NoVectorState() *Error {
	return newf(NotAvailable, "vector search keeps its vectors in the state directory, and this workspace has none")
}

// OperationTimeout: a tool call that ran past tools.operationTimeout.
func OperationTimeout(tool string, ms int) *Error {
	return newf(Timeout, "%s timed out after %dms (tools.operationTimeout)", tool, ms)
}

// IndexTooNew: the search index was written by a newer ws.
func IndexTooNew(err error) *Error {
	return &Error{Code: StateCorrupt, Err: err, Message: "the search index in the state directory was written by a newer version of ws; use that version, or delete the state directory's search/ to start a new index"}
}

// IndexDamaged: the search index cannot be decoded.
func IndexDamaged(err error) *Error {
	return &Error{Code: StateCorrupt, Err: err, Message: "the search index in the state directory is damaged: " + err.Error()}
}

// State: the state directory failed ws.
func State(err error) *Error {
	return &Error{Code: EIO, Message: "state directory: " + err.Error(), Err: err}
}

// StateDir: the state directory dir itself is unusable, for the reason
// problem gives (see statefile.DirProblem).
func StateDir(dir, problem string, err error) *Error {
	return &Error{Code: EIO, Message: "state directory " + dir + ": " + problem, Err: err}
}

// ProcessRemoved: the record of a background process was removed while
// ws waited for it or followed it; its output and exit went with it.
func ProcessRemoved(pid string) *Error {
	return newf(RecordRemoved, "the record of process %s was removed while ws was reading it (by ws destroy, or ws ps --prune), so its output and exit code are gone", pid)
}

// DestroyDamagedRunning: destroy of a state directory holding a damaged
// process record whose process still runs: removing it would leave that
// process beyond ws's reach, unseen.
func DestroyDamagedRunning(dir, id string, pid int) *Error {
	return newf(StateCorrupt, "the state directory %s holds a damaged process record (procs/%s) whose process %d still runs, which ws can no longer stop: stop it yourself (kill %d), then run ws destroy again", dir, id, pid, pid)
}

// ProcessRecordDamaged: the only record of a pid (procs/<id>) cannot be
// read, so whether the process is this workspace's is not known.
func ProcessRecordDamaged(pid, id string, err error) *Error {
	return &Error{Code: StateCorrupt, Err: err, Message: fmt.Sprintf(
		"the record of process %s in the state directory (procs/%s) is damaged; ws ps --prune removes it once the process has ended", pid, id)}
}

// ReadRecordUnreadable: a read-tracker record that cannot be read.
func ReadRecordUnreadable(path string, err error) *Error {
	return newf(StateCorrupt, "cannot read the read-tracker record of %s: %s", path, Errno(err)).at(path, err)
}

// ReadRecordCorrupt: a read-tracker record that cannot be trusted.
func ReadRecordCorrupt(path string, err error) *Error {
	return newf(StateCorrupt, "the read-tracker record of %s is corrupt; read the file again to rebuild it", path).at(path, err)
}

// NoLandlock: isolation "landlock" on a kernel without Landlock (or a ws
// that cannot start its launcher).
func NoLandlock(err error) *Error {
	e := newf(NotAvailable, `sandbox isolation "landlock" is not available: %v; use a kernel with Landlock enabled (Linux 5.13 or later, "landlock" in the lsm= boot list) or set sandbox.isolation to "bwrap" or "none"`, err)
	e.Err = err
	return e
}

// NoBwrap: isolation "bwrap" without bubblewrap installed.
func NoBwrap() *Error {
	return newf(NotAvailable, `sandbox isolation "bwrap" needs bubblewrap, but bwrap was not found; install the bubblewrap package or set sandbox.isolation to "none"`)
}

// SandboxLink: a place a confined command was to be given is reached
// through a symlink a confined command may have made (see
// sandbox.PlantedLinkError); the command is not run.
func SandboxLink(err error) *Error {
	e := newf(EACCES, "%v", err)
	e.Err = err
	return e
}

// CwdNotInBwrap: a command's cwd that bwrap does not mount (a not
// contained workspace lets one outside be given).
func CwdNotInBwrap(dir string) *Error {
	return newf(InvalidArgument, "cwd %s is not in the bwrap sandbox: commands there see the workspace, filesystem.allowedPaths, sandbox.nativeSandbox.readWritePaths and readOnlyPaths, and the system directories (/usr, /bin, /etc/ssl …); give a cwd in one of them", dir).at(dir, nil)
}

// NoStdinPipe: send to a process started without a stdin pipe; how says
// how to start one.
func NoStdinPipe(pid, how string) *Error {
	return newf(InvalidArgument, "process %s has no stdin pipe: start it with %s to send it input", pid, how)
}

// StdinClosed: send to a process whose stdin is closed; why says how.
func StdinClosed(pid, why string) *Error {
	return newf(EIO, "the stdin of process %s is closed (%s)", pid, why)
}

// StdinStalled: a send whose process took nothing of a write for the
// whole wait (secs); sent bytes went in before; flag names the timeout
// setting in the caller's terms.
func StdinStalled(pid string, sent int64, secs, flag string) *Error {
	return newf(Timeout, "process %s took no input for %ss: %d bytes went in and the rest was not sent (is it reading its stdin?); set %s to wait longer, 0 for no limit", pid, secs, sent, flag)
}

// StdinBusy: another send held the stdin of a process for the whole wait.
func StdinBusy(pid, secs, flag string) *Error {
	return newf(LockTimeout, "another send to process %s was still writing after %ss (one send writes at a time, so that inputs do not mix); set %s to wait longer", pid, secs, flag)
}

// BadSignal: a signal ws kill does not know.
var BadSignal = textError(InvalidArgument, "unknown signal %q: give a name such as TERM, INT, HUP, KILL, USR1, or a number")

// BadFilter: a filter that is not a regular expression.
func BadFilter(err error) *Error {
	return &Error{Code: InvalidPattern, Message: "filter is not a valid regular expression: " + err.Error(), Err: err}
}

// EmptyCommand: execute_command without a command.
func EmptyCommand() *Error { return newf(InvalidArgument, "Error: the command is empty") }

// BadEnv: an env entry that is not NAME=value.
var BadEnv = textError(InvalidArgument, "env: %q is not NAME=value")

// NeedsApproval: a tool that requires approval, with nobody to ask.
var NeedsApproval = textError(ApprovalRefused, "%s requires approval: run ws with --yes to approve it, or from a terminal to be asked")

// NeedsApprovalRemote: a tool that requires approval, called through
// --remote: the remote ws has no terminal of its own to ask on.
var NeedsApprovalRemote = textError(ApprovalRefused, "%s requires approval: run ws with --yes to approve it (a remote workspace has no terminal to ask on)")

// CannotAsk: a tool that requires approval, called through an MCP client
// that cannot ask its user (it did not declare elicitation).
var CannotAsk = textError(ApprovalRefused, "%s requires approval, and this MCP client cannot ask its user (it did not declare the elicitation capability): start ws mcp with --yes to approve such calls without asking")

// AskFailed: the MCP client was asked to approve a call and did not answer.
func AskFailed(tool, why string) *Error {
	return newf(ApprovalRefused, "%s requires approval, and asking the MCP client's user failed: %s", tool, why)
}

// NotApproved: the user said no.
var NotApproved = textError(ApprovalRefused, "the call of %s was not approved")

// HookBadJSON: a before hook whose answer is not JSON.
func HookBadJSON(err error) *Error {
	return &Error{Code: EIO, Message: "hook beforeToolCall printed bad JSON: " + err.Error(), Err: err}
}

// CommandError: a config command (a hook, an upload filter) that failed;
// what names it ("hook beforeToolCall", "filterCommand"), stderr is the
// first line it printed there, if any.
func CommandError(what string, argv []string, err error, stderr string) *Error {
	msg := fmt.Sprintf("%s (%s) failed: %v", what, strings.Join(argv, " "), err)
	if stderr != "" {
		msg += ": " + stderr
	}
	return &Error{Code: EIO, Message: msg, Err: err}
}

// Interrupted: a wait cut short because ws was asked to stop.
var Interrupted = textError(Timeout, "interrupted while %s")

// InterruptedBy is Interrupted with what ended the wait (context.Cause):
// a signal to ws is kept, so that ws exits as that signal asks (130 for
// INT, 143 for TERM), as exec does.
func InterruptedBy(cause error, what string) *Error {
	e := Interrupted(what)
	e.Err = cause
	return e
}

// BadJSONArgs: call arguments that are not JSON.
func BadJSONArgs(id string, err error) *Error {
	e := newf(InvalidArgument, "invalid JSON arguments for %s: %v", id, err)
	e.Op = id
	return e
}

// BadArgs: call arguments that passed validation but not decoding.
func BadArgs(id string, err error) *Error {
	e := newf(InvalidArgument, "invalid arguments for %s: %v", id, err)
	e.Op = id
	return e
}

// Invalid is an argument ws refuses: field names it (a JSON parameter or a
// flag), problem says what is wrong.
func Invalid(field, problem string) *Error { return newf(InvalidArgument, "%s: %s", field, problem) }

// Internalf is a failure that should not happen.
func Internalf(format string, args ...any) *Error { return newf(Internal, format, args...) }

// UploadStopped is an upload failure of Mastra's FileUploadProcessor: its
// code (one of the Upload* codes) and message come from pkg/upload, whose
// failure stays reachable with errors.As, for its tripwire metadata.
func UploadStopped(code, message string, failure error) *Error {
	return &Error{Code: Code(code), Message: message, Err: failure}
}

// NoHistory: undo or history without a state directory to keep versions in.
func NoHistory() *Error {
	return newf(NotAvailable, "no state directory: ws keeps no versions to undo")
}

// NothingToUndo: no change ws made that undo could take back (path "" is
// the whole workspace).
func NothingToUndo(path string) *Error {
	if path == "" {
		return newf(NoChange, "nothing to undo: ws has kept no change in this workspace")
	}
	return newf(NoChange, "nothing to undo: ws has kept no change of %s", path).at(path, nil)
}

// NothingToUndoOfThread: a thread (--thread) has no change of path (of
// the workspace when empty) to take back; other, when not empty, names the
// newest change another thread (or none) made, which it does not take back.
func NothingToUndoOfThread(path, other string) *Error {
	what := "in this workspace"
	if path != "" {
		what = "of " + path
	}
	msg := "nothing to undo: ws has kept no change " + what + " made by this thread"
	if other != "" {
		msg += fmt.Sprintf(" (the last, the %s, was not: an undo with a thread takes back only that thread's changes)", other)
	}
	e := newf(NoChange, "%s", msg)
	if path != "" {
		e = e.at(path, nil)
	}
	return e
}

// StartLockTimeout: a background process was not started because ws
// destroy kept the state directory's start lock for ms milliseconds.
func StartLockTimeout(ms int) *Error {
	return newf(LockTimeout, "background process not started: ws destroy is removing this workspace's processes and kept the state directory's start lock for %dms (tools.writeLockTimeoutMs)", ms)
}

// NothingToUndoMoved: no change of path kept since its directory was
// moved there; hint says where the move came from and how to take it back.
func NothingToUndoMoved(path, hint string) *Error {
	return newf(NoChange, "nothing to undo: ws has kept no change of %s since its directory was moved there (%s)", path, hint).at(path, nil)
}

// UndoRefused: an undo that would overwrite a later change, or lacks the
// bytes it needs; why says which.
func UndoRefused(path, why string, cause error) *Error {
	return newf(ESTALE, "cannot undo the change of %s: %s", path, why).at(path, cause)
}

// UndoGroupRefused: an undo of path refused because another file of the
// same change (a patch, a move), other, is not as the change left it; why
// says how it differs ("has been modified since …"), force how to go on. A change
// is taken back whole, and the message says so, since path itself is as
// the change left it.
func UndoGroupRefused(op, path, other, why, force string, cause error) *Error {
	return newf(ESTALE, "cannot undo the %s that last changed %s: it changed %s too, which %s, and undo takes a change back whole (all its files or none); %s takes it back anyway", op, path, other, why, force).at(other, cause)
}

// BadPatch: a patch ws cannot apply (it does not parse, or does not fit
// the files); the message is pkg/patch's, which says what to fix.
func BadPatch(code Code, err error) *Error { return &Error{Code: code, Message: err.Error(), Err: err} }

// CannotReach: the transport of --remote could not run the command
// (ssh could not connect, the prefix's program failed).
func CannotReach(url, said string, err error) *Error {
	e := newf(RemoteUnreachable, "remote %s: cannot run ws there: %s", url, said)
	e.Err = err
	return e
}

// NoWSThere: the transport works but finds no ws on the other side.
func NoWSThere(url, said string) *Error {
	return newf(RemoteNoWS, "remote %s: no ws there (%s); 'ws remote install %s' copies this one there", url, said, shellWord(url))
}

// OldWSThere: the ws on the other side is too old to serve --remote.
func OldWSThere(url, said string) *Error {
	return newf(RemoteNoWS, "remote %s: the ws there is older than --remote (%s); 'ws remote install %s' copies this one there", url, said, shellWord(url))
}

// shellWord is s as one word of a shell command line: in double quotes
// when a shell would split or expand it (an exec: prefix has spaces), so
// that the command a message advises runs as it is written.
func shellWord(s string) string {
	plain := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-", r))
	}) < 0
	if plain {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if strings.ContainsRune("\"$`\\", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// ConnectionLost: the connection ended before the remote command did.
func ConnectionLost(url, said string) *Error {
	return newf(RemoteLost, "remote %s: the connection ended before the command did: %s", url, said)
}

// Listen: ws mcp --http cannot listen on its address.
func Listen(addr string, err error) *Error {
	e := newf(EIO, "--http %s: cannot listen: %s", addr, Errno(err))
	e.Err = err
	return e
}

// RegexTimeout is grep's error when the ECMAScript engine gives up on a
// line (catastrophic backtracking).
func RegexTimeout(path string, line int, limit string) *Error {
	return newf(Timeout, "Error: Regex match timed out after %s on %s:%d: the pattern backtracks too much; simplify it (nested quantifiers such as (a+)+, or lookaround)", limit, path, line)
}

// NoStateDir: a command that needs the state directory in a workspace
// that has none.
func NoStateDir() *Error { return newf(NotAvailable, "this workspace has no state directory") }

// UnsafeStateDir: the default state directory under the shared temporary
// directory is not the user's alone.
func UnsafeStateDir(dir, why string) *Error {
	return newf(EACCES, "state directory: %s %s, so ws does not keep this workspace's state there (others could read or plant it); remove it, or give --state-dir or WS_STATE_DIR", dir, why)
}

// DestroyHoldsRoot: destroy refuses a state directory that would take the
// workspace's files with it.
func DestroyHoldsRoot(dir string) *Error {
	return newf(InvalidArgument, "the state directory %s holds the workspace root; destroy removes state only, never the files", dir)
}

// DestroyBusy: the state directory kept filling while destroy removed
// it: another ws is using the workspace.
func DestroyBusy(dir string) *Error {
	return newf(ENOTEMPTY, "the state directory %s kept filling while destroy removed it: another ws is using this workspace; stop it, then run ws destroy again", dir)
}

// DestroyForeign: destroy refuses a state directory holding something ws
// does not make there.
func DestroyForeign(dir, name string) *Error {
	return newf(InvalidArgument, "the state directory %s holds %s, which ws did not make; destroy removes only ws's state, so it leaves this directory alone (check --state-dir and WS_STATE_DIR)", dir, name)
}

// DestroyShared: destroy refuses a state directory other workspaces use.
func DestroyShared(dir, other string) *Error {
	return newf(InvalidArgument, "the state directory %s also holds the state of the workspace %s; destroy removes a whole state directory, so it leaves one that other workspaces use alone (give each workspace its own --state-dir)", dir, other)
}

// DestroyNotConfirmed: destroy without --yes and no terminal to ask on,
// or the answer was no.
func DestroyNotConfirmed(asked bool) *Error {
	if asked {
		return newf(ApprovalRefused, "destroy cancelled")
	}
	return newf(ApprovalRefused, "destroy removes the workspace's state: confirm with --yes (there is no terminal to ask on)")
}

// MoveOnto: a move whose destination exists, without overwrite; how says
// how to allow it, in the words of the interface in use.
func MoveOnto(dest, how string) *Error {
	return newf(EEXIST, "File already exists: %s (%s replaces it)", dest, how).at(dest, nil)
}

// MoveMadeMeanwhile: the destination of a move was free when checked and
// taken before the rename, which then refused to replace it.
func MoveMadeMeanwhile(dest string, err error) *Error {
	return newf(EEXIST, "File already exists: %s (it was made while ws was moving; nothing was replaced)", dest).at(dest, err)
}

// MoveDirOnto: a directory's move onto a directory, without overwrite:
// the destination is the new path (into moves it inside); how, when the
// directory there is empty, says how to replace it.
func MoveDirOnto(dest, into, how string) *Error {
	if how != "" {
		return newf(EEXIST, "Directory already exists: %s (the destination is the new path: %s moves the directory into it; %s replaces %s, an empty directory)", dest, into, how, dest).at(dest, nil)
	}
	return newf(EEXIST, "Directory already exists: %s (the destination is the new path: %s moves the directory into it)", dest, into).at(dest, nil)
}

// MoveDirNotEmpty: a directory's move with overwrite onto a directory
// that holds something: a move replaces an empty directory only.
func MoveDirNotEmpty(dest, into string, err error) *Error {
	return newf(ENOTEMPTY, "Directory not empty: %s (a move replaces only an empty directory; it never merges two or deletes one: %s moves the directory into it)", dest, into).at(dest, err)
}

// MoveDirOntoFile: a directory's move onto a file or a symbolic link,
// which a directory never replaces.
func MoveDirOntoFile(dest string, err error) *Error {
	return newf(EEXIST, "File already exists: %s (a directory replaces only an empty directory, never a file or a symbolic link)", dest).at(dest, err)
}

// MoveIntoItself: a directory's move to a path inside itself.
func MoveIntoItself(src, dest string) *Error {
	return newf(InvalidArgument, "cannot move %s to %s: a directory cannot move inside itself", src, dest).at(dest, nil)
}

// MoveBusy: rename(2) refused a directory in use as a mount point (EBUSY).
func MoveBusy(src string, err error) *Error {
	return newf(EIO, "cannot move %s: it is a mount point, or in use by the system", src).at(src, err)
}

// Protected: a move or a delete (op) of the workspace root, of a
// directory holding it or ws's state directory, or of (or into) something
// in the state directory; why says which.
func Protected(op, path, why string) *Error {
	e := newf(EACCES, "Permission denied: %s on %s (%s)", op, path, why).at(path, nil)
	e.Op = op
	return e
}

// MoveIntoDir: a move whose destination is a directory: the destination
// is the new path, and into names the one that moves the file into it.
func MoveIntoDir(dest, into string) *Error {
	return newf(EISDIR, "Path is a directory: %s (the destination is the new path: %s moves the file into it)", dest, into).at(dest, nil)
}

// MoveSame: a move whose source and destination are one file.
func MoveSame(src, dest string) *Error {
	return newf(InvalidArgument, "%s and %s are the same file: nothing to move", src, dest)
}

// MoveHardLink: a move of a file onto another name of it (a hard link),
// which rename(2) does nothing for.
func MoveHardLink(src, dest string) *Error {
	return newf(InvalidArgument, "%s and %s are the same file (two names of one file, hard links): nothing to move (to keep one name, delete the other)", src, dest)
}

// MoveLinkOntoTarget: a move of a symbolic link onto the file it leads
// to, which would replace the file by a link to itself.
func MoveLinkOntoTarget(src, dest string) *Error {
	return newf(InvalidArgument, "%s and %s are the same file: %s is a symbolic link to %s, and moving it there would replace the file with a link to itself", src, dest, src, dest)
}

// MoveAcross: rename(2) cannot move between file systems (EXDEV).
func MoveAcross(src, dest string, err error) *Error {
	return newf(EIO, "cannot move %s to %s: they are on different file systems", src, dest).at(src, err)
}

// NotNotebook: a notebook tool's file is not a notebook it can read; why
// says what is wrong with it.
func NotNotebook(path, why string) *Error {
	return newf(NotANotebook, "%s is not a Jupyter notebook ws can read: %s", path, why).at(path, nil)
}

// NotebookTooLarge: a notebook too big to load as cells.
func NotebookTooLarge(path string, size, max int64) *Error {
	return newf(FileTooLarge, "%s is too large to load as a notebook (%d bytes; at most %d)", path, size, max).at(path, nil)
}

// CellIDNotUnique: more than one cell of the notebook at path has the id
// ref (at their indexes); how is the parameter that names one by index,
// with the first of them ("--cell 2", "cellId=2").
func CellIDNotUnique(path, ref string, at []int, how string) *Error {
	idx := make([]string, len(at))
	for i, n := range at {
		idx[i] = strconv.Itoa(n)
	}
	return newf(NotUnique, "Cell id %s is not unique in %s: cells %s have it; name the cell by its index instead (%s)",
		strconv.Quote(ref), path, wording.JoinAnd(idx), how).at(path, nil)
}

// NoCellInEmpty: an insert after cell ref of a notebook with no cells;
// the first goes in without param.
func NoCellInEmpty(path, ref, param string) *Error {
	return newf(NoSuchCell, "No cell %s in %s: it has no cells; insert the first one without %s", strconv.Quote(ref), path, param).at(path, nil)
}

// NoCell: no cell of the notebook at path has the id or index ref. cells
// is how many it has, ids some of their ids.
func NoCell(path, ref string, cells int, ids []string) *Error {
	if cells == 0 {
		return newf(NoSuchCell, "No cell %s in %s: it has no cells", strconv.Quote(ref), path).at(path, nil)
	}
	which := fmt.Sprintf("an index from 0 to %d (-1 is the last)", cells-1)
	if len(ids) > 0 {
		which = "an id (" + strings.Join(ids, ", ") + ") or " + which
	}
	return newf(NoSuchCell, "No cell %s in %s: give %s", strconv.Quote(ref), path, which).at(path, nil)
}
