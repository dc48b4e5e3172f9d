package workspace

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/wstools/ws/pkg/cmdfiles"
	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/fsroot"
)

// An isolated command may write some places (the workspace, readWritePaths,
// the temp directory under Landlock). Everything ws itself trusts and runs
// unconfined must lie outside them, or a confined command could rewrite it
// and escape on the next ws call: the config file (it could switch the
// isolation off or add a hook), the programs of hooks, callbacks, upload
// filters and the embedder command, and the state directory (its records
// drive ws kill and ws ps, and a background process's spec names its
// callbacks). checkConfinement refuses such a setup when the workspace is
// opened.

// writable is one place an isolated command may write, and why.
type writable struct {
	path string // as configured; confinementOf resolves symlinks
	what string
}

// confinement is what an isolated command may write: below any of rw,
// except below any of ro (bubblewrap mounts readOnlyPaths last).
type confinement struct {
	isolation string
	rw, ro    []writable
}

// landlockWritable lists the paths a command may write under Landlock,
// with what each is; landlockArgv grants exactly these.
func (w *Workspace) landlockWritable() []writable {
	var out []writable
	if !w.readOnly {
		out = append(out, writable{w.fs.RealBase(), "the workspace"})
		_, reals := w.fs.AllowedRoots()
		for _, r := range reals {
			out = append(out, writable{r, "filesystem.allowedPaths"})
		}
	}
	for _, d := range w.cfg.Sandbox.NativeSandbox.ReadWritePaths {
		out = append(out, writable{w.fs.Absolute(d), "sandbox.nativeSandbox.readWritePaths"})
	}
	out = append(out, writable{w.commandTempDir(), "the commands' temp directory: TMPDIR, else /tmp"},
		writable{"/dev/shm", "/dev/shm"})
	for _, d := range landlockDevices {
		out = append(out, writable{d, d})
	}
	return out
}

// confinementOf is what commands may write under the configured isolation.
func (w *Workspace) confinementOf() confinement {
	c := confinement{isolation: w.cfg.Sandbox.Isolation}
	switch c.isolation {
	case "landlock":
		c.rw = w.landlockWritable()
	case "bwrap":
		// bwrapArgs: the roots (unless read-only) and readWritePaths are
		// bound writable; /tmp and /dev are the sandbox's own.
		if !w.readOnly {
			c.rw = append(c.rw, writable{w.fs.RealBase(), "the workspace"})
			_, reals := w.fs.AllowedRoots()
			for _, r := range reals {
				c.rw = append(c.rw, writable{r, "filesystem.allowedPaths"})
			}
		}
		ns := w.cfg.Sandbox.NativeSandbox
		for _, d := range ns.ReadWritePaths {
			c.rw = append(c.rw, writable{w.fs.Absolute(d), "sandbox.nativeSandbox.readWritePaths"})
		}
		for _, d := range ns.ReadOnlyPaths {
			c.ro = append(c.ro, writable{w.fs.Absolute(d), "sandbox.nativeSandbox.readOnlyPaths"})
		}
	}
	for _, l := range [][]writable{c.rw, c.ro} {
		for i := range l {
			l[i].path = fsroot.RealpathPartial(l[i].path)
		}
	}
	return c
}

// under reports the writable place that holds the entry p (a path whose
// parent is a real directory). An entry strictly below a writable directory
// can be replaced; the final path may also be the writable place itself
// (a file given in readWritePaths).
func (c confinement) under(p string, final bool) (writable, bool) {
	for _, r := range c.ro {
		if _, in := fsroot.Within(r.path, p); in {
			return writable{}, false
		}
	}
	for _, w := range c.rw {
		if rel, in := fsroot.Within(w.path, p); in && (final || rel != ".") {
			return w, true
		}
	}
	return writable{}, false
}

// exposed reports whether a command could replace the file at p (absolute)
// or any symlink on the way to it: every directory entry met while
// resolving p is checked, so a link outside pointing inside, or a link
// inside pointing outside, both count.
func (c confinement) exposed(p string) (string, writable, bool) {
	entries := resolutionEntries(p)
	for i, e := range entries {
		if w, ok := c.under(e, i == len(entries)-1); ok {
			return e, w, true
		}
	}
	return "", writable{}, false
}

// resolutionEntries lists the directory entries met while resolving the
// absolute path p, each spelled with its parent's symlinks resolved: every
// symlink followed, and last the file itself (or the first missing part).
func resolutionEntries(p string) []string {
	var out []string
	cur := "/"
	rest := strings.Split(strings.TrimPrefix(filepath.Clean(p), "/"), "/")
	for hops := 0; len(rest) > 0; {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			if err != nil || len(rest) == 0 {
				return append(out, filepath.Join(append([]string{next}, rest...)...))
			}
			cur = next
			continue
		}
		out = append(out, next)
		link, err := os.Readlink(next)
		if hops++; err != nil || hops > 40 {
			return out
		}
		if filepath.IsAbs(link) {
			cur = "/"
		}
		rest = append(strings.Split(link, "/"), rest...)
	}
	return append(out, cur)
}

// checkConfinement refuses, when commands run isolated, a config file,
// helper program or state directory a command could rewrite. configFile
// is the config's path as given ("": none).
func (w *Workspace) checkConfinement(configFile string) error {
	iso := w.cfg.Sandbox.Isolation
	if w.cfg.Sandbox.Disabled || (iso != "landlock" && iso != "bwrap") {
		return nil
	}
	c := w.confinementOf()
	fail := func(key, subject, entry string, in writable, risk, fix string) error {
		return errs.Config(&config.Error{File: configFile, Key: key, Msg: fmt.Sprintf(
			"%s %s lies in %s (%s), which commands may write under sandbox.isolation %q: %s; %s",
			subject, entry, in.path, in.what, iso, risk, fix)})
	}
	const runs = "a command could rewrite it, and ws would then run it unconfined"
	if configFile != "" {
		abs, err := filepath.Abs(configFile)
		if err == nil {
			if e, in, ok := c.exposed(abs); ok {
				return fail("", "the config file", e, in,
					"a command could rewrite it (switch the isolation off, add a hook) and the next ws call would follow it unconfined", "keep the config file outside the workspace, readWritePaths and the temp directory")
			}
		}
	}
	if w.stateDir != "" {
		if e, in, ok := c.exposed(w.stateDir); ok {
			return fail("", "the state directory", e, in,
				"a command could forge its records, and ws would act on them unconfined (ws kill signals the processes they name)", "give --state-dir (WS_STATE_DIR) outside the workspace, readWritePaths and the temp directory")
		}
	}
	hostEnv := w.hostEnv
	cmds := []struct {
		key  string
		argv []string
		env  []string
	}{
		{"tools.hooks.beforeToolCall", w.cfg.Tools.BeforeToolCall, hostEnv},
		{"tools.hooks.afterToolCall", w.cfg.Tools.AfterToolCall, hostEnv},
		{"sandbox.backgroundProcesses.onStdout", w.cfg.Sandbox.BackgroundProcesses.OnStdout, nil},
		{"sandbox.backgroundProcesses.onStderr", w.cfg.Sandbox.BackgroundProcesses.OnStderr, nil},
		{"sandbox.backgroundProcesses.onExit", w.cfg.Sandbox.BackgroundProcesses.OnExit, nil},
		{"upload.filterCommand", w.cfg.Upload.FilterCommand, hostEnv},
		{"upload.maxSizeCommand", w.cfg.Upload.MaxSizeCommand, hostEnv},
	}
	if w.cfg.Embedder != nil {
		cmds = append(cmds, struct {
			key  string
			argv []string
			env  []string
		}{"embedder.command", w.cfg.Embedder.Command, hostEnv})
	}
	for _, cmd := range cmds {
		if len(cmd.argv) == 0 {
			continue
		}
		env := cmd.env
		if env == nil { // callbacks run with a command's environment
			env = w.commandEnv(nil)
		}
		for _, p := range cmdfiles.Of(cmd.argv, w.base, env) {
			if p.Dir {
				if in, ok := c.under(p.Path, true); ok {
					return fail(cmd.key, "the PATH directory searched for \""+p.Name+"\",", p.Path, in,
						"a command could place a program of that name there, and ws would then run it unconfined",
						"give the program's full path, or take that directory out of PATH")
				}
				continue
			}
			if e, in, ok := c.exposed(p.Path); ok {
				return fail(cmd.key, "the program", e, in, runs, "move it (and the files it runs) outside the workspace, readWritePaths and the temp directory")
			}
		}
	}
	return nil
}
