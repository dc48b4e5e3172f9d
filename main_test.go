package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/wstools/ws/cmd"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"ws": func() { os.Exit(cmd.Main()) },
	})
}

// TestScript runs every script in testdata/script. Set WS_UPDATE_SCRIPTS=1
// to rewrite their expected output (then review the diff like code).
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       os.Getenv("WS_UPDATE_SCRIPTS") == "1",
		Setup: func(env *testscript.Env) error {
			env.Setenv("WS_STATE_DIR", filepath.Join(env.WorkDir, ".state"))
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			env.Setenv("XDG_STATE_HOME", "")
			env.Setenv("WS_ROOT", "")
			env.Setenv("WS_CONFIG", "")
			env.Setenv("WS_THREAD", "")
			env.Setenv("WS_TEST_NOW", "2030-01-02T03:04:05Z")
			env.Setenv("TZ", "UTC")
			env.Setenv("WS_FORCE_TTY", "0") // never ask on the developer's terminal
			// A race-enabled ws would sleep a second on every exit.
			env.Setenv("GORACE", "atexit_sleep_ms=0")
			return os.MkdirAll(filepath.Join(env.WorkDir, "home"), 0o755)
		},
		// [root]: the tests run as root (CI does), so they can act as
		// another user with setpriv.
		Condition: func(cond string) (bool, error) {
			if cond == "root" {
				return os.Geteuid() == 0, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode": cmdExitcode,
			"settime":  cmdSettime,
		},
	})
}

// cmdExitcode runs a program and requires a particular exit status; its
// stdout and stderr are kept for the commands that follow, like exec's.
//
//	usage: exitcode N program [args...]
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("usage: exitcode N program [args...]: %v", err)
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		got = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("%v", err)
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// cmdSettime sets a file's modification (and access) time without
// following a final symlink's target changes in between.
//
//	usage: settime FILE RFC3339-TIME
func cmdSettime(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: settime FILE RFC3339-TIME")
	}
	t, err := time.Parse(time.RFC3339Nano, args[1])
	if err != nil {
		ts.Fatalf("usage: settime FILE RFC3339-TIME: %v", err)
	}
	ts.Check(os.Chtimes(ts.MkAbs(args[0]), t, t))
}
