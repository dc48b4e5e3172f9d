package workspace

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/errs"
)

func TestResolutionEntries(t *testing.T) {
	d := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(d, "in"), 0o755))
	must(t, os.MkdirAll(filepath.Join(d, "out"), 0o755))
	must(t, os.WriteFile(filepath.Join(d, "out", "c.json"), nil, 0o644))
	must(t, os.Symlink("../out/c.json", filepath.Join(d, "in", "link")))
	must(t, os.Symlink(filepath.Join(d, "in", "link"), filepath.Join(d, "out", "hop")))
	real, _ := filepath.EvalSymlinks(d)
	got := resolutionEntries(filepath.Join(d, "out", "hop"))
	want := []string{filepath.Join(real, "out", "hop"), filepath.Join(real, "in", "link"), filepath.Join(real, "out", "c.json")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entries %q, want %q", got, want)
	}
	if got := resolutionEntries(filepath.Join(d, "none", "x")); !reflect.DeepEqual(got, []string{filepath.Join(real, "none", "x")}) {
		t.Errorf("missing path: %q", got)
	}
}

// TestConfinementCheck: with isolation on, a config file, state directory
// or helper program a command could rewrite is refused when the workspace
// opens; the same outside every writable place, or with isolation off, is
// accepted.
func TestConfinementCheck(t *testing.T) {
	tmp, _ := filepath.EvalSymlinks(t.TempDir())
	root := filepath.Join(tmp, "root")
	safe := filepath.Join(tmp, "safe")     // written by nobody but the user
	cmdTmp := filepath.Join(tmp, "cmdtmp") // the commands' TMPDIR
	rw := filepath.Join(tmp, "rw")
	for _, d := range []string{root, safe, cmdTmp, rw, filepath.Join(root, "bin"), filepath.Join(safe, "bin")} {
		must(t, os.MkdirAll(d, 0o755))
	}
	for _, f := range []string{filepath.Join(root, "policy.sh"), filepath.Join(safe, "policy.sh"),
		filepath.Join(root, "bin", "jq"), filepath.Join(safe, "bin", "jq"), filepath.Join(rw, "h.py")} {
		must(t, os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755))
	}
	must(t, os.Symlink(filepath.Join(safe, "policy.sh"), filepath.Join(root, "link.sh")))
	must(t, os.Symlink(filepath.Join(root, "policy.sh"), filepath.Join(safe, "in.sh")))
	env := []string{"PATH=" + filepath.Join(safe, "bin") + ":/usr/bin:/bin", "TMPDIR=" + cmdTmp, "HOME=" + safe}
	state := filepath.Join(safe, "state")
	sh := func(s string) []string { return []string{"/bin/sh", "-c", s} }

	for _, tc := range []struct {
		name       string
		isolation  string
		configFile string
		stateDir   string
		edit       func(c *config.Config)
		env        []string
		want       string // "" = accepted
	}{
		{name: "nothing exposed", isolation: "landlock", configFile: filepath.Join(safe, "c.json"),
			edit: func(c *config.Config) {
				c.Tools.BeforeToolCall = sh("sh -c 'echo hi'")
				c.Tools.AfterToolCall = []string{filepath.Join(safe, "policy.sh")}
				c.Sandbox.BackgroundProcesses.OnExit = sh("~/policy.sh --x; jq . >" + cmdTmp + "/log")
			}},
		{name: "config in the workspace", isolation: "landlock", configFile: filepath.Join(root, "c.json"),
			want: "the config file " + filepath.Join(root, "c.json") + " lies in " + root + " (the workspace)"},
		{name: "config in the temp dir", isolation: "landlock", configFile: filepath.Join(cmdTmp, "c.json"),
			want: "(the commands' temp directory"},
		{name: "config in the temp dir, bwrap", isolation: "bwrap", configFile: filepath.Join(cmdTmp, "c.json")},
		{name: "config in the workspace, bwrap", isolation: "bwrap", configFile: filepath.Join(root, "c.json"),
			want: `under sandbox.isolation "bwrap"`},
		{name: "config in the workspace, read-only bwrap", isolation: "bwrap", configFile: filepath.Join(root, "c.json"),
			edit: func(c *config.Config) { c.Filesystem.ReadOnly = true }},
		{name: "config in a readOnlyPath inside readWritePaths, bwrap", isolation: "bwrap", configFile: filepath.Join(rw, "ro", "c.json"),
			edit: func(c *config.Config) {
				c.Sandbox.NativeSandbox.ReadWritePaths = []string{rw}
				c.Sandbox.NativeSandbox.ReadOnlyPaths = []string{filepath.Join(rw, "ro")}
			}},
		{name: "config in a readWritePath", isolation: "landlock", configFile: filepath.Join(rw, "c.json"),
			edit: func(c *config.Config) { c.Sandbox.NativeSandbox.ReadWritePaths = []string{rw} },
			want: "(sandbox.nativeSandbox.readWritePaths)"},
		{name: "config through a symlink in the workspace", isolation: "landlock", configFile: filepath.Join(root, "link.sh"),
			want: "the config file " + filepath.Join(root, "link.sh")},
		{name: "config outside linking inside", isolation: "landlock", configFile: filepath.Join(safe, "in.sh"),
			want: "the config file " + filepath.Join(root, "policy.sh")},
		{name: "isolation off", isolation: "none", configFile: filepath.Join(root, "c.json"), stateDir: filepath.Join(cmdTmp, "st")},
		{name: "sandbox disabled", isolation: "landlock", configFile: filepath.Join(root, "c.json"),
			edit: func(c *config.Config) { c.Sandbox.Disabled = true }},
		{name: "state dir in the temp dir", isolation: "landlock", stateDir: filepath.Join(cmdTmp, "st"),
			want: "the state directory " + filepath.Join(cmdTmp, "st") + " lies in"},
		{name: "hook script in the workspace", isolation: "landlock", edit: func(c *config.Config) { c.Tools.BeforeToolCall = sh("./policy.sh") },
			want: "tools.hooks.beforeToolCall: the program " + filepath.Join(root, "policy.sh")},
		{name: "hook script given to sh", isolation: "bwrap", edit: func(c *config.Config) { c.Tools.AfterToolCall = []string{"sh", "policy.sh"} },
			want: "tools.hooks.afterToolCall: the program " + filepath.Join(root, "policy.sh")},
		{name: "callback after cd and a wrapper", isolation: "landlock",
			edit: func(c *config.Config) { c.Sandbox.BackgroundProcesses.OnStdout = sh("cd x && env A=1 " + rw + "/h.py") },
			want: "", // rw is not writable here
		},
		{name: "callback after cd and a wrapper, in a readWritePath", isolation: "landlock",
			edit: func(c *config.Config) {
				c.Sandbox.NativeSandbox.ReadWritePaths = []string{rw}
				c.Sandbox.BackgroundProcesses.OnStdout = sh("cd x && env A=1 " + rw + "/h.py")
			},
			want: "sandbox.backgroundProcesses.onStdout: the program " + filepath.Join(rw, "h.py")},
		{name: "embedder script in a readWritePath", isolation: "landlock",
			edit: func(c *config.Config) {
				c.Sandbox.NativeSandbox.ReadWritePaths = []string{rw}
				c.Embedder = &config.Embedder{Command: []string{"python3", rw + "/h.py"}}
			},
			want: "embedder.command: the program " + filepath.Join(rw, "h.py")},
		{name: "upload filter through a symlink into the workspace", isolation: "landlock",
			edit: func(c *config.Config) { c.Upload.FilterCommand = []string{filepath.Join(safe, "in.sh")} },
			want: "upload.filterCommand: the program " + filepath.Join(root, "policy.sh")},
		{name: "PATH dir in the workspace before the program", isolation: "landlock",
			env:  []string{"PATH=" + filepath.Join(root, "bin") + ":/usr/bin", "TMPDIR=" + cmdTmp},
			edit: func(c *config.Config) { c.Tools.BeforeToolCall = sh("cat | tr a b") },
			want: `the PATH directory searched for "cat", ` + filepath.Join(root, "bin")},
		{name: "PATH dir in the workspace after the program", isolation: "landlock",
			env:  []string{"PATH=/usr/bin:/bin:" + filepath.Join(root, "bin"), "TMPDIR=" + cmdTmp},
			edit: func(c *config.Config) { c.Tools.BeforeToolCall = sh("cat | tr a b") }},
		{name: "unresolvable word skipped", isolation: "landlock",
			edit: func(c *config.Config) { c.Tools.BeforeToolCall = sh(`"$HOOK" x`) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.Sandbox.Isolation = tc.isolation
			if tc.edit != nil {
				tc.edit(cfg)
			}
			e := env
			if tc.env != nil {
				e = tc.env
			}
			sd := state
			if tc.stateDir != "" {
				sd = tc.stateDir
			}
			w, err := New(Options{Root: root, Home: safe, Config: cfg, ConfigFile: tc.configFile, StateDir: sd, HostEnv: e})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				w.Close()
				return
			}
			if err == nil {
				w.Close()
				t.Fatalf("accepted, want an error with %q", tc.want)
			}
			if errs.CodeOf(err) != errs.InvalidConfig || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "unconfined") {
				t.Fatalf("err %v (%s), want %q", err, errs.CodeOf(err), tc.want)
			}
		})
	}
}
