package sandbox

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/config"
)

func TestResolutionEntries(t *testing.T) {
	real := tree(t, "out/c.json", "in/link -> ../out/c.json", "out/hop -> /in/link")
	got := resolutionEntries(filepath.Join(real, "out", "hop"))
	want := []string{filepath.Join(real, "out", "hop"), filepath.Join(real, "in", "link"), filepath.Join(real, "out", "c.json")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entries %q, want %q", got, want)
	}
	if got := resolutionEntries(filepath.Join(real, "none", "x")); !reflect.DeepEqual(got, []string{filepath.Join(real, "none", "x")}) {
		t.Errorf("missing path: %q", got)
	}
}

// TestCheck: with isolation on, a config file, state directory or helper
// program a command could rewrite is refused; the same outside every
// writable place, or with isolation off, is accepted.
func TestCheck(t *testing.T) {
	tmp := tree(t, "root/policy.sh", "root/bin/jq", "safe/policy.sh", "safe/bin/jq", "cmdtmp/", "rw/h.py",
		"root/link.sh -> /safe/policy.sh", "safe/in.sh -> /root/policy.sh")
	root := filepath.Join(tmp, "root")
	safe := filepath.Join(tmp, "safe")     // written by nobody but the user
	cmdTmp := filepath.Join(tmp, "cmdtmp") // the commands' TMPDIR
	rw := filepath.Join(tmp, "rw")
	env := []string{"PATH=" + filepath.Join(safe, "bin") + ":/usr/bin:/bin", "TMPDIR=" + cmdTmp, "HOME=" + safe}
	state := filepath.Join(safe, "state")
	sh := func(s string) []string { return []string{"/bin/sh", "-c", s} }
	hook := func(argv []string) []Helper { return []Helper{{Key: "hook", Argv: argv}} }
	callback := func(argv []string) []Helper { return []Helper{{Key: "callback", Argv: argv, CommandEnv: true}} }
	withRW := func(c *config.Sandbox) { c.NativeSandbox.ReadWritePaths = []string{rw} }

	for _, tc := range []struct {
		name       string
		isolation  string
		readOnly   bool
		configFile string
		stateDir   string
		edit       func(c *config.Sandbox)
		helpers    []Helper
		env        []string
		key        string // the ExposedError's Key
		want       string // "" = accepted
	}{
		{name: "nothing exposed", isolation: "landlock", configFile: filepath.Join(safe, "c.json"),
			helpers: []Helper{{Key: "a", Argv: sh("sh -c 'echo hi'")}, {Key: "b", Argv: []string{filepath.Join(safe, "policy.sh")}},
				{Key: "c", Argv: sh("~/policy.sh --x; jq . >" + cmdTmp + "/log"), CommandEnv: true}}},
		{name: "config in the workspace", isolation: "landlock", configFile: filepath.Join(root, "c.json"),
			want: "the config file " + filepath.Join(root, "c.json") + " lies in " + root + " (the workspace), which commands may write under sandbox.isolation \"landlock\": a command could rewrite it (switch the isolation off, add a hook) and the next ws call would follow it unconfined; keep the config file outside the workspace, readWritePaths and the temp directory"},
		{name: "config in the temp dir", isolation: "landlock", configFile: filepath.Join(cmdTmp, "c.json"),
			want: "(the commands' temp directory"},
		{name: "config in the temp dir, bwrap", isolation: "bwrap", configFile: filepath.Join(cmdTmp, "c.json")},
		{name: "config in the workspace, bwrap", isolation: "bwrap", configFile: filepath.Join(root, "c.json"),
			want: `under sandbox.isolation "bwrap"`},
		{name: "config in the workspace, read-only bwrap", isolation: "bwrap", readOnly: true, configFile: filepath.Join(root, "c.json")},
		{name: "config in the workspace, read-only landlock", isolation: "landlock", readOnly: true, configFile: filepath.Join(root, "c.json")},
		{name: "config in a readOnlyPath inside readWritePaths, bwrap", isolation: "bwrap", configFile: filepath.Join(rw, "ro", "c.json"),
			edit: func(c *config.Sandbox) {
				c.NativeSandbox.ReadWritePaths = []string{rw}
				c.NativeSandbox.ReadOnlyPaths = []string{filepath.Join(rw, "ro")}
			}},
		{name: "config in a readWritePath", isolation: "landlock", configFile: filepath.Join(rw, "c.json"), edit: withRW,
			want: "(sandbox.nativeSandbox.readWritePaths)"},
		{name: "config through a symlink in the workspace", isolation: "landlock", configFile: filepath.Join(root, "link.sh"),
			want: "the config file " + filepath.Join(root, "link.sh")},
		{name: "config outside linking inside", isolation: "landlock", configFile: filepath.Join(safe, "in.sh"),
			want: "the config file " + filepath.Join(root, "policy.sh")},
		{name: "isolation off", isolation: "none", configFile: filepath.Join(root, "c.json"), stateDir: filepath.Join(cmdTmp, "st")},
		{name: "sandbox disabled", isolation: "landlock", configFile: filepath.Join(root, "c.json"),
			edit: func(c *config.Sandbox) { c.Disabled = true }},
		{name: "state dir in the temp dir", isolation: "landlock", stateDir: filepath.Join(cmdTmp, "st"),
			want: "the state directory " + filepath.Join(cmdTmp, "st") + " lies in " + cmdTmp + " (the commands' temp directory: TMPDIR, else /tmp), which commands may write under sandbox.isolation \"landlock\": a command could forge its records, and ws would act on them unconfined (ws kill signals the processes they name); give --state-dir (WS_STATE_DIR) outside the workspace, readWritePaths and the temp directory"},
		{name: "config checked before the state dir", isolation: "landlock", configFile: filepath.Join(root, "c.json"), stateDir: filepath.Join(cmdTmp, "st"),
			want: "the config file "},
		{name: "hook script in the workspace", isolation: "landlock", helpers: hook(sh("./policy.sh")), key: "hook",
			want: "the program " + filepath.Join(root, "policy.sh") + " lies in " + root + " (the workspace), which commands may write under sandbox.isolation \"landlock\": a command could rewrite it, and ws would then run it unconfined; move it (and the files it runs) outside the workspace, readWritePaths and the temp directory"},
		{name: "hook script given to sh", isolation: "bwrap", helpers: hook([]string{"sh", "policy.sh"}), key: "hook",
			want: "the program " + filepath.Join(root, "policy.sh")},
		{name: "first exposed helper reported", isolation: "landlock", key: "second",
			helpers: []Helper{{Key: "first", Argv: []string{filepath.Join(safe, "policy.sh")}}, {Key: "empty"},
				{Key: "second", Argv: []string{"./policy.sh"}}, {Key: "third", Argv: []string{"./link.sh"}}},
			want: "the program " + filepath.Join(root, "policy.sh")},
		{name: "callback after cd and a wrapper", isolation: "landlock",
			helpers: callback(sh("cd x && env A=1 " + rw + "/h.py")),
			want:    "", // rw is not writable here
		},
		{name: "callback after cd and a wrapper, in a readWritePath", isolation: "landlock", edit: withRW,
			helpers: callback(sh("cd x && env A=1 " + rw + "/h.py")), key: "callback",
			want: "the program " + filepath.Join(rw, "h.py")},
		{name: "script in a readWritePath", isolation: "landlock", edit: withRW,
			helpers: hook([]string{"python3", rw + "/h.py"}), key: "hook",
			want: "the program " + filepath.Join(rw, "h.py")},
		{name: "helper through a symlink into the workspace", isolation: "landlock",
			helpers: hook([]string{filepath.Join(safe, "in.sh")}), key: "hook",
			want: "the program " + filepath.Join(root, "policy.sh")},
		{name: "PATH dir in the workspace before the program", isolation: "landlock",
			env:     []string{"PATH=" + filepath.Join(root, "bin") + ":/usr/bin", "TMPDIR=" + cmdTmp},
			helpers: hook(sh("cat | tr a b")), key: "hook",
			want: `the PATH directory searched for "cat", ` + filepath.Join(root, "bin") + " lies in " + root + " (the workspace), which commands may write under sandbox.isolation \"landlock\": a command could place a program of that name there, and ws would then run it unconfined; give the program's full path, or take that directory out of PATH"},
		{name: "PATH dir in the workspace after the program", isolation: "landlock",
			env:     []string{"PATH=/usr/bin:/bin:" + filepath.Join(root, "bin"), "TMPDIR=" + cmdTmp},
			helpers: hook(sh("cat | tr a b"))},
		{name: "callback's PATH is a command's: sandbox.env", isolation: "landlock",
			edit:    func(c *config.Sandbox) { c.Env = map[string]string{"PATH": filepath.Join(root, "bin") + ":/usr/bin"} },
			helpers: callback(sh("cat")), key: "callback",
			want: `the PATH directory searched for "cat", ` + filepath.Join(root, "bin")},
		{name: "hook's PATH is the host's, not sandbox.env", isolation: "landlock",
			edit:    func(c *config.Sandbox) { c.Env = map[string]string{"PATH": filepath.Join(root, "bin") + ":/usr/bin"} },
			helpers: hook(sh("cat"))},
		{name: "unresolvable word skipped", isolation: "landlock", helpers: hook(sh(`"$HOOK" x`))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.Default().Sandbox
			cfg.Isolation = tc.isolation
			if tc.edit != nil {
				tc.edit(&cfg)
			}
			e := env
			if tc.env != nil {
				e = tc.env
			}
			sd := state
			if tc.stateDir != "" {
				sd = tc.stateDir
			}
			s := New(Options{Config: cfg, Files: testFiles(t, root, safe), ReadOnly: tc.readOnly, HostEnv: e})
			err := s.Check(Trusted{ConfigFile: tc.configFile, StateDir: sd, Helpers: tc.helpers, Dir: root})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var x *ExposedError
			if !errors.As(err, &x) {
				t.Fatalf("err %v, want an *ExposedError with %q", err, tc.want)
			}
			if x.Key != tc.key || !strings.Contains(x.Msg, tc.want) {
				t.Fatalf("key %q, msg %q; want key %q and %q", x.Key, x.Msg, tc.key, tc.want)
			}
		})
	}
}
