package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"golang.org/x/sys/unix"
)

// Options configure a Workspace. The caller (cmd) reads flags and the
// environment; nothing here does.
type Options struct {
	Root   string         // workspace base path; must be an existing directory
	Home   string         // expansion of `~`
	Config *config.Config // nil: defaults
	// ConfigFile is the path the config was read from ("": none); with
	// sandbox isolation it must lie where commands cannot write.
	ConfigFile string
	StateDir   string // where the read tracker and locks live
	Thread     string // scopes the read tracker; "" is the workspace's own
	Now        func() time.Time
	// HostEnv is the environment ws runs in; commands get a filtered copy.
	HostEnv []string
	// Supervisor is the command line that runs a background supervisor
	// (ws re-executing itself as `ws __supervise`); the record directory is
	// appended. Without it background processes are not available.
	Supervisor []string
	// Launcher is the command line of ws's Landlock launcher (ws
	// re-executing itself as `ws __landlock`), for sandbox.isolation
	// "landlock"; the policy and the command are appended.
	Launcher []string
	// Approve is asked before a tool that requires approval runs, with a
	// one-line summary of the call. Without it the context's approver
	// (WithApprover) is asked, and without that such calls are refused.
	Approve Approver
	// Warn receives problems that do not fail a call (a skipped SKILL.md,
	// a rebuilt index); cmd prints them on stderr. Nil drops them.
	Warn func(msg string)
}

// Workspace is one workspace root with its configuration and state.
type Workspace struct {
	base     string
	fs       *fsroot.FS // the path chokepoint and file primitives
	readOnly bool
	cfg      *config.Config
	stateDir string
	thread   string
	now      func() time.Time
	hostEnv  []string
	superv   []string
	launcher []string
	approver Approver
	warnf    func(msg string)
}

// New opens a workspace. An unusable root is an error.
func New(o Options) (*Workspace, error) {
	cfg := o.Config
	if cfg == nil {
		cfg = config.Default()
	}
	if o.Root == "" {
		return nil, errs.NoRoot()
	}
	base, err := filepath.Abs(o.Root)
	if err != nil {
		return nil, errs.BadRoot(errs.InvalidArgument, o.Root, err.Error(), err)
	}
	fi, err := os.Stat(base)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, errs.BadRoot(errs.ENOENT, o.Root, "no such directory", err)
	case err != nil:
		return nil, errs.BadRoot(errs.EACCES, o.Root, errs.Errno(err), err)
	case !fi.IsDir():
		return nil, errs.BadRoot(errs.ENOTDIR, o.Root, "not a directory", nil)
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	w := &Workspace{
		base:     base,
		readOnly: cfg.Filesystem.ReadOnly,
		cfg:      cfg,
		stateDir: o.StateDir,
		thread:   o.Thread,
		now:      now,
		hostEnv:  o.HostEnv,
		superv:   o.Supervisor,
		launcher: o.Launcher,
		approver: o.Approve,
		warnf:    o.Warn,
	}
	w.fs = fsroot.New(fsroot.Options{Base: base, Home: o.Home, AllowedPaths: cfg.Filesystem.AllowedPaths,
		Contained: cfg.Filesystem.Contained, Now: now})
	if err := w.checkConfinement(o.ConfigFile); err != nil {
		w.fs.Close()
		return nil, err
	}
	return w, nil
}

// Base is the workspace base path.
func (w *Workspace) Base() string { return w.base }

// Config is the configuration in effect.
func (w *Workspace) Config() *config.Config { return w.cfg }

// ReadOnly reports whether the filesystem is read-only.
func (w *Workspace) ReadOnly() bool { return w.readOnly }

// Close releases the descriptors the workspace holds.
func (w *Workspace) Close() error { return w.fs.Close() }

// Thread is the workspace's thread id ("" for none).
func (w *Workspace) Thread() string { return w.thread }

// ForThread is w as another thread works in it: the same root, config and
// state directory, with the thread's own read records and output cursors.
// It shares w's file system handle, so only w is closed.
func (w *Workspace) ForThread(thread string) *Workspace {
	c := *w
	c.thread = thread
	return &c
}

// DefaultStateDir is where a workspace keeps its state when the user names
// no directory: $XDG_STATE_HOME/ws/<16 hex of sha256(real root)>, else
// ~/.local/state/ws/…. When that would lie inside the workspace itself (a
// root at or above the home directory), so that tools would see and edit
// it, or could not be made there, the state goes under the temporary
// directory instead.
func DefaultStateDir(root, xdgStateHome, home, tmp string) string {
	real := fsroot.RealpathPartial(root)
	sum := sha256.Sum256([]byte(real))
	id := hex.EncodeToString(sum[:])[:16]
	base, usable := xdgStateHome, home != ""
	if base == "" || !filepath.IsAbs(base) {
		base = filepath.Join(home, ".local", "state")
		// A home that is not there is not made (HOME=/nonexistent, as
		// service accounts have, must stay so, even for root).
		fi, err := os.Stat(home)
		usable = usable && err == nil && fi.IsDir()
	}
	dir := filepath.Join(base, "ws", id)
	if _, inside := fsroot.Within(real, fsroot.RealpathPartial(dir)); inside || !usable || !creatable(dir) {
		dir = filepath.Join(tempStateParent(tmp), id)
	}
	return dir
}

// creatable reports whether dir is there or this user could make it: its
// nearest existing ancestor is a directory it may write in. A home that is
// read-only or missing (HOME=/nonexistent, as some containers and service
// accounts have) has no room for state, and every read would fail on
// recording itself. A dir that is there is kept even if it cannot be
// written (one made by sudo): it may hold this workspace's history, and
// its errors say where it is, where a silent move would hide it.
func creatable(dir string) bool {
	for p := dir; ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err == nil {
			return p == dir || fi.IsDir() && unix.Access(p, unix.W_OK|unix.X_OK) == nil
		}
		if !errors.Is(err, fs.ErrNotExist) || filepath.Dir(p) == p {
			return false
		}
	}
}

// tempStateParent is DefaultStateDir's directory under the temporary
// directory: one per user.
func tempStateParent(tmp string) string {
	return filepath.Join(tmp, "ws-state-"+strconv.Itoa(os.Getuid()))
}

// CheckDefaultStateDir makes sure that a state directory DefaultStateDir
// put under the temporary directory is the user's alone. Anyone may create
// tmp/ws-state-<uid> first (its name is known), and whoever owns it could
// read the kept versions of files there, or plant records: a version that
// undo would write back into the workspace, read records that let a stale
// write through. So the directory is made owner-only when missing, and one
// that is a symlink, belongs to another user or is open to others is
// refused. Any other dir passes as it is.
func CheckDefaultStateDir(dir, tmp string) error {
	parent := tempStateParent(tmp)
	if filepath.Dir(dir) != parent {
		return nil
	}
	if err := os.Mkdir(parent, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return errs.State(err)
	}
	fi, err := os.Lstat(parent)
	if err != nil {
		return errs.State(err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return errs.UnsafeStateDir(parent, "is not a directory of its own (a symlink or a file)")
	case ok && int(st.Uid) != os.Getuid():
		return errs.UnsafeStateDir(parent, "belongs to another user")
	case fi.Mode().Perm()&0o077 != 0:
		return errs.UnsafeStateDir(parent, "is open to other users (mode "+fmt.Sprintf("%04o", fi.Mode().Perm())+")")
	}
	return nil
}

// normalizeKey spells a path the way Mastra's write lock and messages
// normalise it: slashes, cleaned, no trailing slash.
func normalizeKey(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	if p == "" {
		return "/"
	}
	return filepath.ToSlash(filepath.Clean(p))
}
