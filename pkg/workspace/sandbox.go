package workspace

import (
	"errors"
	"math"
	"strings"
	"time"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/js"
	"github.com/wstools/ws/pkg/sandbox"
	"github.com/wstools/ws/pkg/schema"
)

// Sandbox defaults.
const (
	defaultTimeout = 300 * time.Second // when sandbox.timeout is not set
	defaultTail    = 200
	defaultExecTok = 2000
)

// sandbox is how commands run in the workspace (pkg/sandbox): built from
// the sandbox config, the roots, the host environment and the launcher as
// they are now.
func (w *Workspace) sandbox() *sandbox.Sandbox {
	return sandbox.New(sandbox.Options{Config: w.cfg.Sandbox, Files: w.fs, ReadOnly: w.readOnly,
		HostEnv: w.hostEnv, Launcher: w.launcher, Warn: w.warn})
}

// sandboxError gives a failure of the sandbox its code: an isolation this
// machine lacks is NOT_AVAILABLE, an unusable working directory the code
// of its cause, a place reached through a symlink a command may have made
// EACCES. Other errors (the path chokepoint's) are coded already.
func sandboxError(err error) error {
	var u *sandbox.UnavailableError
	var d *sandbox.DirError
	var l *sandbox.PlantedLinkError
	switch {
	case errors.As(err, &l):
		return errs.SandboxLink(l)
	case errors.As(err, &u) && u.Isolation == "bwrap":
		return errs.NoBwrap()
	case errors.As(err, &u):
		return errs.NoLandlock(u.Err)
	case errors.As(err, &d) && errors.Is(d.Err, sandbox.ErrNotDir):
		return errs.NotDir(d.Dir, nil)
	case errors.As(err, &d) && errors.Is(d.Err, sandbox.ErrNotMounted):
		return errs.CwdNotInBwrap(d.Dir)
	case errors.As(err, &d):
		return errs.FromOS("cwd", d.Dir, d.Err, true)
	}
	return err
}

// checkConfinement refuses, when commands run isolated, a config file,
// helper program or state directory a command could rewrite (see
// sandbox.Check): the helpers are every command the config has ws run
// itself. configFile is the config's path as given ("": none).
func (w *Workspace) checkConfinement(configFile string) error {
	c := w.cfg
	cb := c.Sandbox.BackgroundProcesses
	helpers := []sandbox.Helper{
		{Key: "tools.hooks.beforeToolCall", Argv: c.Tools.BeforeToolCall},
		{Key: "tools.hooks.afterToolCall", Argv: c.Tools.AfterToolCall},
		{Key: "sandbox.backgroundProcesses.onStdout", Argv: cb.OnStdout, CommandEnv: true},
		{Key: "sandbox.backgroundProcesses.onStderr", Argv: cb.OnStderr, CommandEnv: true},
		{Key: "sandbox.backgroundProcesses.onExit", Argv: cb.OnExit, CommandEnv: true},
		{Key: "upload.filterCommand", Argv: c.Upload.FilterCommand},
		{Key: "upload.maxSizeCommand", Argv: c.Upload.MaxSizeCommand},
	}
	if c.Embedder != nil {
		helpers = append(helpers, sandbox.Helper{Key: "embedder.command", Argv: c.Embedder.Command})
	}
	err := w.sandbox().Check(sandbox.Trusted{ConfigFile: configFile, StateDir: w.stateDir, Helpers: helpers, Dir: w.base})
	var e *sandbox.ExposedError
	if errors.As(err, &e) {
		return errs.Config(&config.Error{File: configFile, Key: e.Key, Msg: e.Msg})
	}
	return sandboxError(err)
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

// seconds is a non-negative number of seconds as a Duration, to the
// nanosecond; one too long for a Duration is no limit (0), and a positive
// one under a nanosecond is a nanosecond (never no limit).
func seconds(s float64) time.Duration {
	if s >= float64(math.MaxInt64)/float64(time.Second) {
		return 0
	}
	if s > 0 {
		return max(time.Duration(s*float64(time.Second)), 1)
	}
	return 0
}

// toolTokens is the token cap of a sandbox tool.
func (w *Workspace) toolTokens(id string) int {
	return w.cfg.MaxOutputTokens(id, defaultExecTok)
}

// The phrases of execute_command's texts that name the default timeouts;
// tellExecTimeouts and offerExecTimeouts replace them when the config sets
// others (a test checks that the texts still hold them).
const (
	foregroundTimeoutPhrase = "Commands stop after the timeout (300 s by default)."
	backgroundTimeoutPhrase = "(no timeout unless you give one)"
	timeoutDefaultPhrase    = "Default: the sandbox timeout (300 s); none for background commands."
)

// configuredTimeouts are the config's foreground and background timeouts
// in words ("600 s", "none"); "" for one the config leaves at its default.
func (w *Workspace) configuredTimeouts() (fg, bg string) {
	words := func(s *float64) string {
		switch {
		case s == nil:
			return ""
		case seconds(*s) == 0:
			return "none"
		}
		return js.FormatNumber(*s) + " s"
	}
	return words(w.cfg.Sandbox.Timeout), words(w.cfg.Sandbox.BackgroundTimeout)
}

// tellExecTimeouts states in execute_command's description the timeouts
// the config sets, where they differ from the defaults it names.
func (w *Workspace) tellExecTimeouts(s string) string {
	fg, bg := w.configuredTimeouts()
	switch fg {
	case "":
	case "none":
		s = strings.Replace(s, foregroundTimeoutPhrase, "Commands have no timeout unless you give one.", 1)
	default:
		s = strings.Replace(s, foregroundTimeoutPhrase, "Commands stop after the timeout ("+fg+" by default).", 1)
	}
	if bg != "" && bg != "none" {
		s = strings.Replace(s, backgroundTimeoutPhrase, "(or the timeout, "+bg+" by default)", 1)
	}
	return s
}

// offerExecTimeouts states the configured defaults in the description of
// execute_command's timeout parameter.
func (w *Workspace) offerExecTimeouts(p schema.Params) schema.Params {
	fg, bg := w.configuredTimeouts()
	if fg == "" && bg == "" {
		return p
	}
	if fg == "" {
		fg = "the sandbox timeout (300 s)"
	}
	if bg == "" {
		bg = "none"
	}
	say := "Default: " + fg + "; " + bg + " for background commands."
	if fg == "none" && bg == "none" {
		say = "Default: none, for background commands too."
	}
	desc := strings.Replace(p.Desc("timeout"), timeoutDefaultPhrase, say, 1)
	return p.WithDesc("timeout", desc)
}
