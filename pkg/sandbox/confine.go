package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/wstools/ws/pkg/cmdfiles"
	"github.com/wstools/ws/pkg/internal/fsroot"
)

// An isolated command may write some places (the workspace, readWritePaths,
// the temp directory under Landlock). Everything ws itself trusts and runs
// unconfined must lie outside them, or a confined command could rewrite it
// and escape on the next ws call: the config file (it could switch the
// isolation off or add a hook), the programs of hooks, callbacks, upload
// filters and the embedder command, and the state directory (its records
// drive ws kill and ws ps, and a background process's spec names its
// callbacks). Check refuses such a setup; the workspace calls it when it
// is opened.

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
func (s *Sandbox) landlockWritable() []writable {
	var out []writable
	if !s.readOnly {
		out = append(out, writable{s.files.RealBase(), "the workspace"})
		// As configured: resolveGranted sees a symlink on the way.
		paths, _ := s.files.AllowedRoots()
		for _, r := range paths {
			out = append(out, writable{r, "filesystem.allowedPaths"})
		}
	}
	for _, d := range s.cfg.NativeSandbox.ReadWritePaths {
		out = append(out, writable{s.files.Absolute(d), "sandbox.nativeSandbox.readWritePaths"})
	}
	out = append(out, writable{s.tempDir(), "the commands' temp directory: TMPDIR, else /tmp"},
		writable{"/dev/shm", "/dev/shm"})
	for _, d := range landlockDevices {
		out = append(out, writable{d, d})
	}
	return out
}

// confinementOf is what commands may write under the configured isolation.
func (s *Sandbox) confinementOf() confinement {
	c := confinement{isolation: s.cfg.Isolation}
	switch c.isolation {
	case "landlock":
		c.rw = s.landlockWritable()
	case "bwrap":
		// bwrapArgs: the roots (unless read-only) and readWritePaths are
		// bound writable; /tmp and /dev are the sandbox's own.
		if !s.readOnly {
			c.rw = append(c.rw, writable{s.files.RealBase(), "the workspace"})
			_, reals := s.files.AllowedRoots()
			for _, r := range reals {
				c.rw = append(c.rw, writable{r, "filesystem.allowedPaths"})
			}
		}
		ns := s.cfg.NativeSandbox
		for _, d := range ns.ReadWritePaths {
			c.rw = append(c.rw, writable{s.files.Absolute(d), "sandbox.nativeSandbox.readWritePaths"})
		}
		for _, d := range ns.ReadOnlyPaths {
			c.ro = append(c.ro, writable{s.files.Absolute(d), "sandbox.nativeSandbox.readOnlyPaths"})
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

// A PlantedLinkError is a place a confined command is to be given (a
// readWritePaths entry, an allowed path, the temp directory) that is
// reached through a symlink lying where confined commands may write: an
// earlier command may have made it, so that this one is granted what it
// points to, outside the sandbox. The command is not run.
type PlantedLinkError struct {
	Key   string // the place's config key (or what it is)
	Path  string // the place, absolute
	Link  string // the symlink met on the way to it
	Where string // the writable place that holds the link, and what it is
}

func (e *PlantedLinkError) Error() string {
	return fmt.Sprintf("%s: %s is reached through the symlink %s, which lies in %s, where commands may write: a command may have made it to be granted what it points to; remove that symlink (rm), or give the path it leads to",
		e.Key, e.Path, e.Link, e.Where)
}

// resolveGranted is the real path of the place w that a confined command
// is to be given, resolved once: the rule is set on what was checked. A
// symlink met on the way that lies strictly below a place commands may
// write is a *PlantedLinkError.
func (s *Sandbox) resolveGranted(c confinement, w writable) (string, error) {
	entries := resolutionEntries(s.files.Absolute(w.path))
	for _, e := range entries[:len(entries)-1] { // the symlinks followed
		if in, ok := c.under(e, false); ok {
			return "", &PlantedLinkError{Key: w.what, Path: s.files.Absolute(w.path), Link: e,
				Where: in.path + " (" + in.what + ")"}
		}
	}
	return entries[len(entries)-1], nil
}

// A Helper is a command ws runs itself, unconfined: a hook, a background
// callback, an upload filter, the embedder.
type Helper struct {
	Key  string // its config key, as errors name it
	Argv []string
	// CommandEnv is set for a helper that runs with a command's
	// environment (Env(nil)), as the background callbacks do; the others
	// run with the host's.
	CommandEnv bool
}

// Trusted is what ws itself reads or runs unconfined, which an isolated
// command must not be able to rewrite.
type Trusted struct {
	ConfigFile string // the config's path as given ("": none)
	StateDir   string // "": none
	Helpers    []Helper
	// Dir is where the helpers' relative program names resolve (the
	// workspace base).
	Dir string
}

// An ExposedError is a trusted file, directory or PATH directory that an
// isolated command could write: what it is, where it lies, what a command
// could do with it and how to fix the setup.
type ExposedError struct {
	Key string // the helper's config key; "" for the config file and the state directory
	Msg string
}

func (e *ExposedError) Error() string {
	if e.Key == "" {
		return e.Msg
	}
	return e.Key + ": " + e.Msg
}

// Check refuses, when commands run isolated, a config file, helper
// program or state directory of t a command could rewrite: the first one
// found, in that order, is an *ExposedError; an allowed path reached
// through a symlink a command could have made is a *PlantedLinkError. Without isolation (or with
// the sandbox disabled) everything is accepted.
func (s *Sandbox) Check(t Trusted) error {
	iso := s.cfg.Isolation
	if s.cfg.Disabled || (iso != "landlock" && iso != "bwrap") {
		return nil
	}
	c := s.confinementOf()
	fail := func(key, subject, entry string, in writable, risk, fix string) error {
		return &ExposedError{Key: key, Msg: fmt.Sprintf(
			"%s %s lies in %s (%s), which commands may write under sandbox.isolation %q: %s; %s",
			subject, entry, in.path, in.what, iso, risk, fix)}
	}
	const runs = "a command could rewrite it, and ws would then run it unconfined"
	if t.ConfigFile != "" {
		abs, err := filepath.Abs(t.ConfigFile)
		if err == nil {
			if e, in, ok := c.exposed(abs); ok {
				return fail("", "the config file", e, in,
					"a command could rewrite it (switch the isolation off, add a hook) and the next ws call would follow it unconfined", "keep the config file outside the workspace, readWritePaths and the temp directory")
			}
		}
	}
	// The file tools follow an allowed path as they found it when the
	// workspace opened: one reached through a symlink a command could
	// have made would have ws itself, unconfined, read and write what it
	// points to.
	paths, _ := s.files.AllowedRoots()
	for _, p := range paths {
		if _, err := s.resolveGranted(c, writable{p, "filesystem.allowedPaths"}); err != nil {
			return err
		}
	}
	if t.StateDir != "" {
		if e, in, ok := c.exposed(t.StateDir); ok {
			return fail("", "the state directory", e, in,
				"a command could forge its records, and ws would act on them unconfined (ws kill signals the processes they name)", "give --state-dir (WS_STATE_DIR) outside the workspace, readWritePaths and the temp directory")
		}
	}
	for _, h := range t.Helpers {
		if len(h.Argv) == 0 {
			continue
		}
		// A helper finds its programs through its environment's PATH;
		// without a host environment, through a command's (its default
		// PATH).
		env := s.hostEnv
		if h.CommandEnv || env == nil {
			env = s.Env(nil)
		}
		for _, p := range cmdfiles.Of(h.Argv, t.Dir, env) {
			if p.Dir {
				if in, ok := c.under(p.Path, true); ok {
					return fail(h.Key, "the PATH directory searched for \""+p.Name+"\",", p.Path, in,
						"a command could place a program of that name there, and ws would then run it unconfined",
						"give the program's full path, or take that directory out of PATH")
				}
				continue
			}
			if e, in, ok := c.exposed(p.Path); ok {
				return fail(h.Key, "the program", e, in, runs, "move it (and the files it runs) outside the workspace, readWritePaths and the temp directory")
			}
		}
	}
	return nil
}
