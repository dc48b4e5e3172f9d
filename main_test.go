package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/wstools/ws/cmd"
	"github.com/wstools/ws/pkg/landlock"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "__landlock" {
		// ws's Landlock launcher re-executes the binary with its own
		// path as argv[0]: act as ws.
		os.Exit(cmd.Main())
	}
	testscript.Main(m, map[string]func(){
		"ws": func() { os.Exit(cmd.Main()) },
	})
}

// TestScript runs every script in testdata/script. Set WS_UPDATE_SCRIPTS=1
// to rewrite their expected output (then review the diff like code).
func TestScript(t *testing.T) {
	// A test run started under nohup would hand its ignored SIGHUP to
	// every command the scripts start, and exec_signal checks what ws
	// does on a hangup; a signal this process handles is back at its
	// default in the commands it starts. (Kept to the end of the
	// process: the scripts run in parallel after this function returns.)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
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
			if cond == "landlock" { // the kernel offers Landlock
				_, err := landlock.ABI()
				return err == nil, nil
			}
			if cond == "python3" { // python3 is installed; required with WS_REQUIRE_PYTHON=1 (CI)
				_, err := exec.LookPath("python3")
				if err != nil && os.Getenv("WS_REQUIRE_PYTHON") == "1" {
					return false, fmt.Errorf("python3 is needed (WS_REQUIRE_PYTHON=1): %v", err)
				}
				return err == nil, nil
			}
			if cond == "bwrap" { // bubblewrap is installed and can make its namespaces here
				return exec.Command("bwrap", "--ro-bind", "/", "/", "--unshare-pid", "--unshare-net", "true").Run() == nil, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode":    cmdExitcode,
			"settime":     cmdSettime,
			"embedserver": cmdEmbedServer,
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

// cmdEmbedServer starts an OpenAI-compatible embeddings endpoint on
// 127.0.0.1 for the rest of the script, puts its URL in $EMBED_URL and
// writes it in place of "$EMBED_URL" in each CONFIG file. A text's vector
// counts its words (runs of letters, lower-cased) into -dim buckets
// (default 8) by their FNV-1a hash, so texts that share words are similar.
// Each request is logged to LOG as "model: N texts". The first -fail
// requests are answered 429.
//
//	usage: embedserver [-dim N] [-fail N] LOG [CONFIG...]
func cmdEmbedServer(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: embedserver [-dim N] [-fail N] LOG [CONFIG...]"
	dim, fails := 8, 0
	for len(args) >= 2 && (args[0] == "-dim" || args[0] == "-fail") {
		v, err := strconv.Atoi(args[1])
		if err != nil || v < 0 {
			ts.Fatalf(usage)
		}
		if args[0] == "-dim" {
			dim = v
		} else {
			fails = v
		}
		args = args[2:]
	}
	if neg || len(args) < 1 || dim < 1 {
		ts.Fatalf(usage)
	}
	logFile := ts.MkAbs(args[0])
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		n++
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, `{"error":"bad request"}`, 400)
			return
		}
		f, _ := os.OpenFile(logFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if n <= fails {
			fmt.Fprintf(f, "%s: 429\n", req.Model)
			f.Close()
			w.Header().Set("Retry-After", "0")
			http.Error(w, `{"error":{"message":"slow down"}}`, http.StatusTooManyRequests)
			return
		}
		fmt.Fprintf(f, "%s: %d texts\n", req.Model, len(req.Input))
		f.Close()
		type item struct {
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		}
		data := make([]item, len(req.Input))
		for i, text := range req.Input {
			v := make([]float64, dim)
			for _, word := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return r < 'a' || r > 'z' }) {
				h := fnv.New32a()
				h.Write([]byte(word))
				v[h.Sum32()%uint32(dim)]++
			}
			data[i] = item{i, v}
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
	}))
	ts.Defer(srv.Close)
	url := srv.URL + "/v1/embeddings"
	ts.Setenv("EMBED_URL", url)
	for _, c := range args[1:] {
		data, err := os.ReadFile(ts.MkAbs(c))
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(c), []byte(strings.ReplaceAll(string(data), "$EMBED_URL", url)), 0o644))
	}
}
