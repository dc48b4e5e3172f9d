package workspace

import (
	"errors"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/landlock"
)

// Sandbox defaults.
const (
	defaultTimeout = 300 * time.Second // when sandbox.timeout is not set
	defaultTail    = 200
	defaultExecTok = 2000
)

// hostEnvKeys are the host variables a command sees (SPEC deviation 7):
// enough for tools to find their home, locale and temp directory, and no
// others, so secrets in the host environment stay out.
var hostEnvKeys = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TZ", "TMPDIR", "TERM"}

// commandEnv builds a command's environment: the host's allowed variables
// (or all of them with sandbox.inheritEnv), then sandbox.env, then the
// call's own variables. Later entries win.
func (w *Workspace) commandEnv(extra []string) []string {
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
	for _, kv := range w.hostEnv {
		k, v, ok := strings.Cut(kv, "=")
		if ok && (w.cfg.Sandbox.InheritEnv || allowed[k]) {
			set(k, v)
		}
	}
	if _, ok := vars["PATH"]; !ok {
		set("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
	}
	keys := make([]string, 0, len(w.cfg.Sandbox.Env))
	for k := range w.cfg.Sandbox.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		set(k, w.cfg.Sandbox.Env[k])
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

// commandCwd resolves a command's working directory: the workspace root by
// default; a relative path is taken from the root. When the workspace is
// contained the directory must lie inside it (SPEC deviation 5), symlinks
// resolved; it must exist and be a directory.
func (w *Workspace) commandCwd(cwd string) (string, error) {
	if cwd == "" {
		return w.fs.RealBase(), nil
	}
	t, err := w.fs.Resolve(cwd)
	if err != nil {
		return "", err
	}
	st, err := w.fs.Stat(t.Loc())
	if err != nil {
		return "", errs.FromOS("cwd", cwd, err, true)
	}
	if !st.IsDir() {
		return "", errs.NotDir(cwd, nil)
	}
	if !w.fs.Contained() {
		return string(t.Abs), nil
	}
	return w.fs.RealPath(t.Loc()), nil
}

// commandTimeout is a foreground call's timeout: the call's own
// (seconds; 0 = none), else sandbox.timeout, else 300 s.
func (w *Workspace) commandTimeout(secs *float64) time.Duration {
	s := w.cfg.Sandbox.Timeout
	if secs != nil {
		s = secs
	}
	if s == nil {
		return defaultTimeout
	}
	return seconds(*s)
}

// backgroundTimeout is a background call's timeout: the call's own, else
// sandbox.backgroundTimeout, else none: a server runs until it exits or
// is killed.
func (w *Workspace) backgroundTimeout(secs *float64) time.Duration {
	s := w.cfg.Sandbox.BackgroundTimeout
	if secs != nil {
		s = secs
	}
	if s == nil {
		return 0
	}
	return seconds(*s)
}

// seconds is a non-negative number of seconds as a Duration; one too long
// for a Duration is no limit (0).
func seconds(s float64) time.Duration {
	if s >= float64(math.MaxInt64)/float64(time.Second) {
		return 0
	}
	return time.Duration(s * float64(time.Second))
}

// shellArgv is the argv that runs command: /bin/sh -c, wrapped in
// bubblewrap when sandbox.isolation is "bwrap", or started by ws's
// Landlock launcher when it is "landlock".
func (w *Workspace) shellArgv(command, cwd string) ([]string, error) {
	sh := []string{"/bin/sh", "-c", command}
	switch w.cfg.Sandbox.Isolation {
	case "bwrap":
		bwrap, err := findBwrap()
		if err != nil {
			return nil, errs.NoBwrap()
		}
		return append(w.bwrapArgs(bwrap, cwd), sh...), nil
	case "landlock":
		return w.landlockArgv(sh)
	}
	return sh, nil
}

// landlockABI is the kernel's Landlock ABI; tests replace it to stand for
// a kernel without Landlock.
var landlockABI = landlock.ABI

// landlockArgv runs sh through the launcher (ws __landlock), which
// confines itself with Landlock and then executes sh: the command may read
// the system and write only the workspace (unless the filesystem is
// read-only), readWritePaths, the temp directory and the terminal and null
// devices; no TCP unless nativeSandbox.allowNetwork. The ws process itself
// is never confined.
func (w *Workspace) landlockArgv(sh []string) ([]string, error) {
	abi, err := landlockABI()
	if err != nil {
		return nil, errs.NoLandlock(err)
	}
	if len(w.launcher) == 0 {
		return nil, errs.NoLandlock(errors.New("ws cannot find its own executable to start the launcher"))
	}
	p := landlock.Policy{DenyNetwork: !w.cfg.Sandbox.NativeSandbox.AllowNetwork}
	if p.DenyNetwork && abi < landlock.NetworkABI {
		w.warn(fmt.Sprintf("this kernel's Landlock (ABI %d) cannot deny network access (ABI %d, Linux 6.7, can): the command has the network; use sandbox.isolation \"bwrap\" to cut it", abi, landlock.NetworkABI))
	}
	for _, d := range w.landlockWritable() {
		p.ReadWrite = append(p.ReadWrite, d.path)
	}
	argv := append([]string{}, w.launcher...)
	argv = append(argv, p.Args()...)
	return append(argv, sh...), nil
}

// landlockDevices are the devices a confined command may write: a shell
// needs /dev/null, a terminal its tty and pseudo-terminals.
var landlockDevices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts"}

// commandTempDir is the temp directory a command sees: its TMPDIR, else /tmp.
func (w *Workspace) commandTempDir() string {
	for _, kv := range w.commandEnv(nil) {
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

// bwrapArgs mounts what Mastra's bwrap isolation mounts: system directories
// read-only, the workspace (and readWritePaths) writable unless the
// filesystem is read-only, a private /tmp, /proc and /dev, new pid, ipc and
// uts namespaces, and no network unless nativeSandbox.allowNetwork.
func (w *Workspace) bwrapArgs(bwrap, cwd string) []string {
	ns := w.cfg.Sandbox.NativeSandbox
	args := []string{bwrap, "--unshare-pid", "--unshare-ipc", "--unshare-uts"}
	if !ns.AllowNetwork {
		args = append(args, "--unshare-net")
	}
	args = append(args, "--die-with-parent", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp")
	for _, p := range []string{"/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc/alternatives", "/etc/ssl",
		"/etc/ca-certificates", "/etc/resolv.conf", "/etc/hosts", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf",
		"/etc/ld.so.cache", "/etc/localtime", "/opt", "/snap"} {
		args = append(args, "--ro-bind-try", p, p)
	}
	bind := "--bind"
	if w.readOnly {
		bind = "--ro-bind"
	}
	_, reals := w.fs.AllowedRoots()
	for _, r := range append([]string{w.fs.RealBase()}, reals...) {
		args = append(args, bind, r, r)
	}
	for _, p := range ns.ReadWritePaths {
		p = w.fs.Absolute(p)
		args = append(args, "--bind-try", p, p)
	}
	for _, p := range ns.ReadOnlyPaths {
		p = w.fs.Absolute(p)
		args = append(args, "--ro-bind-try", p, p)
	}
	return append(args, "--chdir", filepath.Clean(cwd), "--")
}

// toolTokens is the token cap of a sandbox tool.
func (w *Workspace) toolTokens(id string) int {
	return w.cfg.MaxOutputTokens(id, defaultExecTok)
}
