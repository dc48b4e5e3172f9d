package sandbox

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/landlock"
)

// Files is what the sandbox needs of the workspace's filesystem: its
// roots and the path chokepoint (*fsroot.FS has them).
type Files interface {
	// RealBase is the base path with symlinks resolved.
	RealBase() string
	// AllowedRoots lists the filesystem.allowedPaths roots, as configured
	// and with symlinks resolved.
	AllowedRoots() (paths, reals []string)
	// Absolute is a configured path made absolute (`~` expanded, a
	// relative one taken from the base).
	Absolute(input string) string
	// Contained reports whether paths outside the allowed roots are refused.
	Contained() bool
	Resolve(input string) (*fsroot.Target, error)
	Stat(l fsroot.Loc) (fsroot.FileStat, error)
	RealPath(l fsroot.Loc) string
}

// Options build a Sandbox from the workspace's config and roots.
type Options struct {
	Config config.Sandbox // the sandbox section of the config
	Files  Files
	// ReadOnly is filesystem.readOnly: the roots are read-only for
	// commands too.
	ReadOnly bool
	// HostEnv is the environment ws runs in; commands get a filtered copy.
	HostEnv []string
	// Launcher is the command line of ws's Landlock launcher (ws
	// re-executing itself as `ws __landlock`); the policy and the command
	// are appended. Without it isolation "landlock" is not available.
	Launcher []string
	// Warn receives problems that do not stop the command (a kernel whose
	// Landlock cannot deny the network). Nil drops them.
	Warn func(msg string)
}

// A Sandbox is how commands run in one workspace.
type Sandbox struct {
	cfg      config.Sandbox
	files    Files
	readOnly bool
	hostEnv  []string
	launcher []string
	warn     func(msg string)
}

// New builds the sandbox o describes.
func New(o Options) *Sandbox {
	warn := o.Warn
	if warn == nil {
		warn = func(string) {}
	}
	return &Sandbox{cfg: o.Config, files: o.Files, readOnly: o.ReadOnly, hostEnv: o.HostEnv, launcher: o.Launcher, warn: warn}
}

// An UnavailableError is an isolation this machine cannot give (no
// bubblewrap, no Landlock, no launcher); the command must not run.
type UnavailableError struct {
	Isolation string // "bwrap" or "landlock"
	Err       error  // why
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("sandbox isolation %q is not available: %v", e.Isolation, e.Err)
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// ErrNotDir is a working directory that exists but is not a directory.
var ErrNotDir = errors.New("not a directory")

// A DirError is a working directory that cannot be used: Err is the
// error of its stat, or ErrNotDir.
type DirError struct {
	Dir string // as the call gave it
	Err error
}

func (e *DirError) Error() string { return "cwd " + e.Dir + ": " + e.Err.Error() }

func (e *DirError) Unwrap() error { return e.Err }

// hostEnvKeys are the host variables a command sees (SPEC deviation 7):
// enough for tools to find their home, locale and temp directory, and no
// others, so secrets in the host environment stay out.
var hostEnvKeys = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TZ", "TMPDIR", "TERM"}

// Env builds a command's environment: the host's allowed variables (or
// all of them with sandbox.inheritEnv), then sandbox.env, then extra, the
// call's own variables (KEY=VALUE). Later entries win.
func (s *Sandbox) Env(extra []string) []string {
	vars := map[string]string{}
	var order []string
	set := func(k, v string) {
		if _, ok := vars[k]; !ok {
			order = append(order, k)
		}
		vars[k] = v
	}
	allowed := map[string]bool{}
	for _, k := range hostEnvKeys {
		allowed[k] = true
	}
	for _, kv := range s.hostEnv {
		k, v, ok := strings.Cut(kv, "=")
		if ok && (s.cfg.InheritEnv || allowed[k]) {
			set(k, v)
		}
	}
	if _, ok := vars["PATH"]; !ok {
		set("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
	}
	// Under bwrap the host's temp directory is not there (the sandbox has
	// a private /tmp): a host TMPDIR outside what is bound writable would
	// fail every temporary file (mktemp, compilers, package managers).
	if v, ok := vars["TMPDIR"]; ok && s.cfg.Isolation == "bwrap" && !s.bwrapWritable(v) {
		vars["TMPDIR"] = "/tmp"
	}
	keys := make([]string, 0, len(s.cfg.Env))
	for k := range s.cfg.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		set(k, s.cfg.Env[k])
	}
	for _, kv := range extra {
		k, v, _ := strings.Cut(kv, "=")
		set(k, v)
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		out = append(out, k+"="+vars[k])
	}
	return out
}

// Dir resolves a command's working directory: the workspace root by
// default; a relative path is taken from the root. When the workspace is
// contained the directory must lie inside it (SPEC deviation 5), symlinks
// resolved; it must exist and be a directory. A path the chokepoint
// refuses comes back with the chokepoint's error.
func (s *Sandbox) Dir(cwd string) (string, error) {
	if cwd == "" {
		return s.files.RealBase(), nil
	}
	t, err := s.files.Resolve(cwd)
	if err != nil {
		return "", err
	}
	st, err := s.files.Stat(t.Loc())
	if err != nil {
		return "", &DirError{Dir: cwd, Err: err}
	}
	if !st.IsDir() {
		return "", &DirError{Dir: cwd, Err: ErrNotDir}
	}
	if !s.files.Contained() {
		return string(t.Abs), nil
	}
	return s.files.RealPath(t.Loc()), nil
}

// Argv is the argv that runs command in the directory cwd (as Dir gave
// it): /bin/sh -c -- command (the "--" keeps a command that starts with
// "-" or "+" from being read as sh's options), wrapped in bubblewrap when sandbox.isolation is
// "bwrap", or started by ws's Landlock launcher when it is "landlock". An
// isolation that cannot be had is an *UnavailableError.
func (s *Sandbox) Argv(command, cwd string) ([]string, error) {
	sh := []string{"/bin/sh", "-c", "--", command}
	switch s.cfg.Isolation {
	case "bwrap":
		bwrap, err := findBwrap()
		if err != nil {
			return nil, &UnavailableError{Isolation: "bwrap", Err: err}
		}
		if err := s.checkBinds(); err != nil {
			return nil, err
		}
		if !s.bwrapMounts(fsroot.RealpathPartial(cwd)) {
			return nil, &DirError{Dir: cwd, Err: ErrNotMounted}
		}
		return append(s.bwrapArgs(bwrap, cwd), sh...), nil
	case "landlock":
		return s.landlockArgv(sh)
	}
	return sh, nil
}

// Confined reports whether commands run under an isolation (bwrap or
// landlock). A confined command must not get ws's controlling terminal:
// with it, TIOCSTI pushes input to the shell that runs ws, outside the
// sandbox (see procstate.Foreground's NoTerminal).
func (s *Sandbox) Confined() bool {
	return s.cfg.Isolation == "bwrap" || s.cfg.Isolation == "landlock"
}

// Bwrapped reports whether commands run under bubblewrap: the first
// process is bwrap, which TERM and INT must spare (it dies of them and
// KILLs what it confines at once; see procstate.StopSignal).
func (s *Sandbox) Bwrapped() bool { return s.cfg.Isolation == "bwrap" }

// landlockABI is the kernel's Landlock ABI; tests replace it to stand for
// a kernel without Landlock.
var landlockABI = landlock.ABI

// NetworkCut reports whether a command run now has no network when the
// config denies it: bwrap cuts it; Landlock only from ABI 4 (Linux 6.7),
// and only when the kernel has Landlock at all.
func (s *Sandbox) NetworkCut() bool {
	switch {
	case s.cfg.NativeSandbox.AllowNetwork:
		return false
	case s.cfg.Isolation == "bwrap":
		return true
	case s.cfg.Isolation == "landlock":
		abi, err := landlockABI()
		return err == nil && abi >= landlock.NetworkABI
	}
	return false
}

// landlockArgv runs sh through the launcher (ws __landlock), which
// confines itself with Landlock and then executes sh: the command may read
// the system and write only the workspace (unless the filesystem is
// read-only), readWritePaths, the temp directory and the terminal and null
// devices; no TCP unless nativeSandbox.allowNetwork. The ws process itself
// is never confined.
func (s *Sandbox) landlockArgv(sh []string) ([]string, error) {
	abi, err := landlockABI()
	if err != nil {
		return nil, &UnavailableError{Isolation: "landlock", Err: err}
	}
	if len(s.launcher) == 0 {
		return nil, &UnavailableError{Isolation: "landlock", Err: errors.New("cannot find the ws executable to start the launcher")}
	}
	p := landlock.Policy{DenyNetwork: !s.cfg.NativeSandbox.AllowNetwork}
	if p.DenyNetwork && abi < landlock.NetworkABI {
		s.warn(fmt.Sprintf("this kernel's Landlock (ABI %d) cannot deny network access (ABI %d, Linux 6.7, can): the command has the network; use sandbox.isolation \"bwrap\" to cut it", abi, landlock.NetworkABI))
	}
	// Each place is resolved here, and refused when a command could have
	// made a symlink on its way; the launcher opens the real path given
	// without following any symlink, so one made since is not followed.
	c := s.confinementOf()
	for _, d := range s.landlockWritable() {
		real, err := s.resolveGranted(c, d)
		if err != nil {
			return nil, err
		}
		p.ReadWrite = append(p.ReadWrite, real)
	}
	argv := append([]string{}, s.launcher...)
	argv = append(argv, p.Args()...)
	return append(argv, sh...), nil
}

// landlockDevices are the devices a confined command may write: a shell
// needs /dev/null, a terminal its tty and pseudo-terminals.
var landlockDevices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts"}

// tempDir is the temp directory a command sees: its TMPDIR, else /tmp.
func (s *Sandbox) tempDir() string {
	for _, kv := range s.Env(nil) {
		if v, ok := strings.CutPrefix(kv, "TMPDIR="); ok && filepath.IsAbs(v) {
			return v
		}
	}
	return "/tmp"
}

// findBwrap locates bubblewrap on PATH or where Debian puts it; tests
// replace it to stand for a machine without it.
var findBwrap = func() (string, error) {
	if p, err := exec.LookPath("bwrap"); err == nil {
		return p, nil
	}
	for _, p := range []string{"/usr/bin/bwrap", "/usr/local/bin/bwrap"} {
		if _, err := exec.LookPath(p); err == nil {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// bwrapWritable reports whether the directory dir is there and writable
// inside bwrap: the private /tmp itself, or below the workspace, an
// allowed path or a readWritePaths entry (as bwrapArgs binds them).
func (s *Sandbox) bwrapWritable(dir string) bool {
	if !filepath.IsAbs(dir) {
		return false
	}
	dir = filepath.Clean(dir)
	if dir == "/tmp" {
		return true
	}
	if s.files == nil || s.readOnly {
		return false
	}
	_, binds := s.files.AllowedRoots()
	binds = append([]string{s.files.RealBase()}, binds...)
	for _, p := range s.cfg.NativeSandbox.ReadWritePaths {
		binds = append(binds, s.files.Absolute(p))
	}
	for _, b := range binds {
		if rel, err := filepath.Rel(b, dir); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

// checkBinds refuses an allowed path or a readWritePaths entry that bwrap
// would bind through a symlink a confined command may have made (see
// resolveGranted): bwrap follows it, and then fails to start, or binds
// what it points to.
func (s *Sandbox) checkBinds() error {
	c := s.confinementOf()
	paths, _ := s.files.AllowedRoots()
	var places []writable
	for _, p := range paths {
		places = append(places, writable{p, "filesystem.allowedPaths"})
	}
	for _, p := range s.cfg.NativeSandbox.ReadWritePaths {
		places = append(places, writable{p, "sandbox.nativeSandbox.readWritePaths"})
	}
	for _, w := range places {
		if _, err := s.resolveGranted(c, w); err != nil {
			return err
		}
	}
	return nil
}

// bwrapSystemDirs are the system paths bwrapArgs mounts read-only.
var bwrapSystemDirs = []string{"/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc/alternatives", "/etc/ssl",
	"/etc/ca-certificates", "/etc/resolv.conf", "/etc/hosts", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf",
	"/etc/ld.so.cache", "/etc/localtime", "/opt", "/snap"}

// ErrNotMounted is a working directory that bwrap does not mount: the
// command could not start there.
var ErrNotMounted = errors.New("not in the bwrap sandbox")

// bwrapMounts reports whether bwrapArgs mounts the directory dir (a real
// path): it lies in a root, a readWritePaths or readOnlyPaths entry, or a
// system path. A cwd elsewhere exists only outside the sandbox (a not
// contained workspace lets one be given).
func (s *Sandbox) bwrapMounts(dir string) bool {
	_, reals := s.files.AllowedRoots()
	places := append([]string{s.files.RealBase()}, reals...)
	for _, p := range append(slices.Clone(s.cfg.NativeSandbox.ReadWritePaths), s.cfg.NativeSandbox.ReadOnlyPaths...) {
		places = append(places, fsroot.RealpathPartial(s.files.Absolute(p)))
	}
	places = append(places, bwrapSystemDirs...)
	places = append(places, "/dev", "/proc")
	if dir == "/tmp" { // the sandbox's own, empty
		return true
	}
	for _, p := range places {
		if _, in := fsroot.Within(p, dir); in {
			return true
		}
	}
	return false
}

// bwrapArgs mounts what Mastra's bwrap isolation mounts: system directories
// read-only, the workspace (and readWritePaths) writable unless the
// filesystem is read-only, a private /tmp, /proc and /dev, new pid, ipc and
// uts namespaces, and no network unless nativeSandbox.allowNetwork; every
// capability is dropped.
func (s *Sandbox) bwrapArgs(bwrap, cwd string) []string {
	ns := s.cfg.NativeSandbox
	args := []string{bwrap, "--unshare-pid", "--unshare-ipc", "--unshare-uts"}
	if !ns.AllowNetwork {
		args = append(args, "--unshare-net")
	}
	// No capabilities: bwrap run as root keeps them all otherwise, and a
	// command with CAP_SYS_ADMIN remounts the read-only binds writable
	// (mount -o remount,bind,rw /usr) and writes the host through them.
	args = append(args, "--cap-drop", "ALL", "--die-with-parent", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp")
	for _, p := range bwrapSystemDirs {
		args = append(args, "--ro-bind-try", p, p)
	}
	bind := "--bind"
	if s.readOnly {
		bind = "--ro-bind"
	}
	args = append(args, bind, s.files.RealBase(), s.files.RealBase())
	// An allowed path that does not exist (yet) is passed over, as the
	// file tools pass it over; bwrap would refuse to start.
	_, reals := s.files.AllowedRoots()
	for _, r := range reals {
		args = append(args, bind+"-try", r, r)
	}
	for _, p := range ns.ReadWritePaths {
		p = s.files.Absolute(p)
		args = append(args, "--bind-try", p, p)
	}
	for _, p := range ns.ReadOnlyPaths {
		p = s.files.Absolute(p)
		args = append(args, "--ro-bind-try", p, p)
	}
	return append(args, "--chdir", filepath.Clean(cwd), "--")
}
