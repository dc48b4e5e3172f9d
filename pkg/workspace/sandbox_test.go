package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/errs"
)

// TestCheckConfinement: opening a workspace whose commands run isolated
// refuses a config file, state directory or program of any command the
// config has ws run itself that a command could rewrite, as an
// INVALID_CONFIG error naming the file and the key (the rules themselves
// are pkg/sandbox's TestCheck).
func TestCheckConfinement(t *testing.T) {
	tmp, _ := filepath.EvalSymlinks(t.TempDir())
	root, safe := filepath.Join(tmp, "root"), filepath.Join(tmp, "safe")
	must(t, os.MkdirAll(filepath.Join(root, "bin"), 0o755))
	must(t, os.MkdirAll(safe, 0o755))
	must(t, os.WriteFile(filepath.Join(root, "policy.sh"), []byte("#!/bin/sh\n"), 0o755))
	policy := []string{"./policy.sh"}
	inWS := " lies in " + root + " (the workspace), which commands may write under sandbox.isolation \"landlock\": "
	program := "the program " + filepath.Join(root, "policy.sh") + inWS +
		"a command could rewrite it, and ws would then run it unconfined; move it (and the files it runs) outside the workspace, readWritePaths and the temp directory"
	configFile := filepath.Join(safe, "c.json")
	for _, tc := range []struct {
		name       string
		configFile string
		stateDir   string
		edit       func(c *config.Config)
		want       string // the whole message; "" = accepted
	}{
		{name: "nothing exposed", configFile: configFile},
		{name: "the config file", configFile: filepath.Join(root, "c.json"),
			want: "config " + filepath.Join(root, "c.json") + ": the config file " + filepath.Join(root, "c.json") + inWS +
				"a command could rewrite it (switch the isolation off, add a hook) and the next ws call would follow it unconfined; keep the config file outside the workspace, readWritePaths and the temp directory"},
		{name: "the state directory", stateDir: filepath.Join(root, ".state"),
			want: "config: the state directory " + filepath.Join(root, ".state") + inWS +
				"a command could forge its records, and ws would act on them unconfined (ws kill signals the processes they name); give --state-dir (WS_STATE_DIR) outside the workspace, readWritePaths and the temp directory"},
		{name: "beforeToolCall", configFile: configFile, edit: func(c *config.Config) { c.Tools.BeforeToolCall = policy },
			want: "config " + configFile + ": tools.hooks.beforeToolCall: " + program},
		{name: "afterToolCall", edit: func(c *config.Config) { c.Tools.AfterToolCall = policy },
			want: "config: tools.hooks.afterToolCall: " + program},
		{name: "onStdout", edit: func(c *config.Config) { c.Sandbox.BackgroundProcesses.OnStdout = policy },
			want: "config: sandbox.backgroundProcesses.onStdout: " + program},
		{name: "onStderr", edit: func(c *config.Config) { c.Sandbox.BackgroundProcesses.OnStderr = policy },
			want: "config: sandbox.backgroundProcesses.onStderr: " + program},
		{name: "onExit", edit: func(c *config.Config) { c.Sandbox.BackgroundProcesses.OnExit = policy },
			want: "config: sandbox.backgroundProcesses.onExit: " + program},
		{name: "filterCommand", edit: func(c *config.Config) { c.Upload.FilterCommand = policy },
			want: "config: upload.filterCommand: " + program},
		{name: "maxSizeCommand", edit: func(c *config.Config) { c.Upload.MaxSizeCommand = policy },
			want: "config: upload.maxSizeCommand: " + program},
		{name: "embedder", edit: func(c *config.Config) { c.Embedder = &config.Embedder{Command: policy} },
			want: "config: embedder.command: " + program},
		{name: "a callback searches a command's PATH (sandbox.env)",
			edit: func(c *config.Config) {
				c.Sandbox.Env = map[string]string{"PATH": filepath.Join(root, "bin") + ":/usr/bin:/bin"}
				c.Sandbox.BackgroundProcesses.OnExit = []string{"cat"}
			},
			want: `config: sandbox.backgroundProcesses.onExit: the PATH directory searched for "cat", ` + filepath.Join(root, "bin") + inWS +
				"a command could place a program of that name there, and ws would then run it unconfined; give the program's full path, or take that directory out of PATH"},
		{name: "a hook searches the host's",
			edit: func(c *config.Config) {
				c.Sandbox.Env = map[string]string{"PATH": filepath.Join(root, "bin") + ":/usr/bin:/bin"}
				c.Tools.BeforeToolCall = []string{"cat"}
			}},
		{name: "without isolation", configFile: filepath.Join(root, "c.json"),
			edit: func(c *config.Config) { c.Sandbox.Isolation = "none"; c.Tools.BeforeToolCall = policy }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.Sandbox.Isolation = "landlock"
			if tc.edit != nil {
				tc.edit(cfg)
			}
			sd := filepath.Join(safe, "state")
			if tc.stateDir != "" {
				sd = tc.stateDir
			}
			w, err := New(Options{Root: root, Home: safe, Config: cfg, ConfigFile: tc.configFile, StateDir: sd,
				HostEnv: []string{"PATH=/usr/bin:/bin", "TMPDIR=" + filepath.Join(safe, "tmp")}})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				w.Close()
				return
			}
			if err == nil {
				w.Close()
				t.Fatalf("accepted, want %q", tc.want)
			}
			if errs.CodeOf(err) != errs.InvalidConfig || err.Error() != tc.want {
				t.Fatalf("%s: %q\nwant INVALID_CONFIG: %q", errs.CodeOf(err), err, tc.want)
			}
		})
	}
}
