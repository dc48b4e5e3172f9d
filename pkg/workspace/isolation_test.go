package workspace

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/landlock"
)

// The sandbox isolations (Landlock, bubblewrap) tested against the real
// kernel and the real bwrap binary.

// landlockWorkspace is a workspace whose commands run under Landlock, the
// launcher being this test binary (see TestMain). CI sets
// WS_REQUIRE_LANDLOCK=1 so that a kernel without it fails instead of
// skipping.
func landlockWorkspace(t *testing.T, cfg *config.Config) (*Workspace, string, int) {
	t.Helper()
	abi, err := landlock.ABI()
	if err != nil {
		if os.Getenv("WS_REQUIRE_LANDLOCK") == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	// Set after New: the test's state directory lies in the temp
	// directory, which New would refuse (TestConfinementCheck covers that).
	w, root := newTestWorkspace(t, cfg)
	cfg.Sandbox.Isolation = "landlock"
	w.launcher = []string{os.Args[0], "__landlock"}
	w.hostEnv = []string{"PATH=" + os.Getenv("PATH"), "TMPDIR=" + t.TempDir()}
	return w, root, abi
}

// bwrapWorkspace is a workspace whose commands run under bubblewrap. It
// skips when bwrap is missing or cannot run here with the probe flags; CI
// installs it and sets WS_REQUIRE_BWRAP=1 so that this fails instead.
func bwrapWorkspace(t *testing.T, cfg *config.Config, probe ...string) (*Workspace, string) {
	t.Helper()
	skip := t.Skipf
	if os.Getenv("WS_REQUIRE_BWRAP") == "1" {
		skip = t.Fatalf
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		skip("bubblewrap is not installed")
	}
	if out, err := exec.Command("bwrap", append(append([]string{"--ro-bind", "/", "/"}, probe...), "true")...).CombinedOutput(); err != nil {
		skip("bwrap cannot run here: %s", out)
	}
	cfg.Sandbox.Isolation = "bwrap"
	w, root := newTestWorkspace(t, cfg)
	w.hostEnv = []string{"PATH=" + os.Getenv("PATH")}
	return w, root
}

// reachedServer starts a loopback HTTP server that answers "reached" and
// returns its URL. Without curl to reach it the test skips, or fails when
// the environment variable require (WS_REQUIRE_BWRAP, WS_REQUIRE_LANDLOCK)
// is 1, as CI sets it.
func reachedServer(t *testing.T, require string) string {
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		if os.Getenv(require) == "1" {
			t.Fatalf("curl is not installed (%s=1)", require)
		}
		t.Skip("curl is not installed")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "reached") })}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/"
}

// checkAllowNetwork: with allowNetwork a command reaches the server at url.
func checkAllowNetwork(t *testing.T, w *Workspace, cfg *config.Config, url string) {
	t.Helper()
	cfg.Sandbox.NativeSandbox.AllowNetwork = true
	res, err := w.Exec(context.Background(), ExecRequest{Command: "curl -sS --max-time 5 " + url})
	must(t, err)
	if res.Text() != "reached" {
		t.Errorf("allowNetwork: %q", res.Text())
	}
}

// checkReadOnly runs, in a read-only workspace holding a.txt ("a\n"), a
// command that reads it, then tries to create new.txt and append to a.txt
// (then runs more); only the read may succeed.
func checkReadOnly(t *testing.T, w *Workspace, root, more string) *ExecResult {
	t.Helper()
	must(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644))
	res, err := w.Exec(context.Background(), ExecRequest{Command: "cat a.txt; echo x > new.txt; echo y >> a.txt" + more})
	must(t, err)
	if !strings.Contains(res.Text(), "a\n") {
		t.Errorf("the workspace could not be read: %q", res.Text())
	}
	if _, err := os.Stat(filepath.Join(root, "new.txt")); err == nil {
		t.Error("a command created a file in a read-only workspace")
	}
	if data, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(data) != "a\n" {
		t.Errorf("a command changed a file of a read-only workspace: %q", data)
	}
	return res
}

// checkConfined runs in w a command that writes inside.txt in the
// workspace, outside.txt beside it and a file under /usr, runs more, and
// fetches url; only the first write may succeed, and with denyNet the
// fetch must fail. It returns the command's result.
func checkConfined(t *testing.T, w *Workspace, root, more, url string, denyNet bool) *ExecResult {
	t.Helper()
	outside := filepath.Join(filepath.Dir(root), "outside.txt")
	res, err := w.Exec(context.Background(), ExecRequest{Command: "echo in > inside.txt; echo x > " + outside +
		"; echo x > /usr/ws-isolation-test; " + more + "curl -sS --max-time 5 " + url})
	must(t, err)
	if data, _ := os.ReadFile(filepath.Join(root, "inside.txt")); string(data) != "in\n" {
		t.Errorf("a write inside the workspace failed: %q", res.Text())
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("a write outside the workspace succeeded")
	}
	if _, err := os.Stat("/usr/ws-isolation-test"); err == nil {
		os.Remove("/usr/ws-isolation-test")
		t.Errorf("a write to /usr succeeded")
	}
	if denyNet && (strings.Contains(res.Text(), "reached") || *res.ExitCode == 0) {
		t.Errorf("the network was reachable: %q", res.Text())
	}
	return res
}

// TestLandlockIsolation: a command may write the workspace and the temp
// directory, and nothing else (not /usr, even as root; not a directory
// beside the workspace), and reaches no TCP server unless allowNetwork;
// ws itself stays unconfined.
func TestLandlockIsolation(t *testing.T) {
	url := reachedServer(t, "WS_REQUIRE_LANDLOCK")
	cfg := config.Default()
	w, root, abi := landlockWorkspace(t, cfg)
	res := checkConfined(t, w, root, "echo t > \"$TMPDIR/t\" && cat \"$TMPDIR/t\" > tmp-ok; ls /usr >/dev/null && echo read-ok; ",
		url, abi >= landlock.NetworkABI)
	if data, _ := os.ReadFile(filepath.Join(root, "tmp-ok")); string(data) != "t\n" {
		t.Errorf("the temp directory was not writable: %q", res.Text())
	}
	if !strings.Contains(res.Text(), "read-ok") {
		t.Errorf("the system could not be read: %q", res.Text())
	}
	// ws itself was never confined.
	outside := filepath.Join(filepath.Dir(root), "outside.txt")
	must(t, os.WriteFile(outside, []byte("ws may\n"), 0o644))
	os.Remove(outside)
	checkAllowNetwork(t, w, cfg, url)
}

// TestBwrapIsolation: under bubblewrap a command may write the workspace
// only, and reaches no TCP server unless allowNetwork.
func TestBwrapIsolation(t *testing.T) {
	url := reachedServer(t, "WS_REQUIRE_BWRAP")
	cfg := config.Default()
	w, root := bwrapWorkspace(t, cfg, "--unshare-net")
	checkConfined(t, w, root, "", url, true)
	checkAllowNetwork(t, w, cfg, url)
}

// TestLandlockReadOnly: with filesystem.readOnly the workspace is
// read-only for commands too; readWritePaths stay writable.
func TestLandlockReadOnly(t *testing.T) {
	cfg := config.Default()
	cfg.Filesystem.ReadOnly = true
	extra := t.TempDir()
	cfg.Sandbox.NativeSandbox.ReadWritePaths = []string{extra}
	w, root, _ := landlockWorkspace(t, cfg)
	res := checkReadOnly(t, w, root, "; echo z > "+extra+"/z")
	if data, _ := os.ReadFile(filepath.Join(extra, "z")); string(data) != "z\n" {
		t.Errorf("readWritePaths were not writable: %q", res.Text())
	}
}

// TestBwrapReadOnly: with filesystem.readOnly the workspace is read-only
// for commands under bubblewrap too.
func TestBwrapReadOnly(t *testing.T) {
	cfg := config.Default()
	cfg.Filesystem.ReadOnly = true
	w, root := bwrapWorkspace(t, cfg)
	checkReadOnly(t, w, root, "")
}

// TestLandlockBackground: a background command is confined as well (its
// supervisor, a ws process, is not).
func TestLandlockBackground(t *testing.T) {
	w, root, _ := landlockWorkspace(t, config.Default())
	withSupervisor(t, w)
	w.hostEnv = append(w.hostEnv, "TMPDIR="+t.TempDir())
	outside := filepath.Join(filepath.Dir(root), "bg-outside.txt")
	res := startBackground(t, w, ExecRequest{Command: "echo x > " + outside + "; echo in > bg-inside.txt"})
	out, err := w.ProcessOutput(context.Background(), ProcessOutputRequest{PID: fmt.Sprint(res.PID), Wait: boolp(true)})
	must(t, err)
	if data, _ := os.ReadFile(filepath.Join(root, "bg-inside.txt")); string(data) != "in\n" {
		t.Errorf("the background command could not write the workspace: %q", out.Text())
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("a background command wrote outside the workspace")
	}
}

// TestIsolationUnavailable: isolation asked for where it cannot be had
// (here Landlock without a launcher, or a kernel without it: the sandbox's
// tests cover each cause) is a clear error, and the command does not run
// unconfined, in the foreground or the background.
func TestIsolationUnavailable(t *testing.T) {
	cfg := config.Default()
	w, root := newTestWorkspace(t, cfg)
	withSupervisor(t, w)
	cfg.Sandbox.Isolation = "landlock" // after New, as in landlockWorkspace
	for _, bg := range []bool{false, true} {
		_, err := w.Exec(context.Background(), ExecRequest{Command: "touch ran", Background: boolp(bg)})
		if err == nil || errs.CodeOf(err) != errs.NotAvailable || !strings.HasPrefix(err.Error(), `sandbox isolation "landlock" is not available: `) {
			t.Fatalf("background %v: err %v", bg, err)
		}
	}
	if _, serr := os.Stat(filepath.Join(root, "ran")); serr == nil {
		t.Fatal("the command ran without the isolation it asked for")
	}
}
