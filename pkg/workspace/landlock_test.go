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

// TestLandlockIsolation: a command may write the workspace and the temp
// directory, and nothing else (not /usr, even as root; not a directory
// beside the workspace), and reaches no TCP server unless allowNetwork;
// ws itself stays unconfined.
func TestLandlockIsolation(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "reached") })}
	go srv.Serve(ln)
	defer srv.Close()
	url := "http://" + ln.Addr().String() + "/"

	cfg := config.Default()
	w, root, abi := landlockWorkspace(t, cfg)
	outside := filepath.Join(filepath.Dir(root), "outside.txt")
	ctx := context.Background()
	res, err := w.Exec(ctx, ExecRequest{Command: "echo in > inside.txt && echo t > \"$TMPDIR/t\" && cat \"$TMPDIR/t\" > tmp-ok; " +
		"echo x > " + outside + "; echo x > /usr/ws-landlock-test; ls /usr >/dev/null && echo read-ok; curl -sS --max-time 5 " + url})
	must(t, err)
	if data, _ := os.ReadFile(filepath.Join(root, "inside.txt")); string(data) != "in\n" {
		t.Errorf("a write inside the workspace failed: %q", res.Text())
	}
	if data, _ := os.ReadFile(filepath.Join(root, "tmp-ok")); string(data) != "t\n" {
		t.Errorf("the temp directory was not writable: %q", res.Text())
	}
	if !strings.Contains(res.Text(), "read-ok") {
		t.Errorf("the system could not be read: %q", res.Text())
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("a write outside the workspace succeeded")
	}
	if _, err := os.Stat("/usr/ws-landlock-test"); err == nil {
		os.Remove("/usr/ws-landlock-test")
		t.Errorf("a write to /usr succeeded")
	}
	if abi >= landlock.NetworkABI && (strings.Contains(res.Text(), "reached") || *res.ExitCode == 0) {
		t.Errorf("the network was reachable: %q", res.Text())
	}
	// ws itself was never confined.
	must(t, os.WriteFile(outside, []byte("ws may\n"), 0o644))
	os.Remove(outside)

	cfg.Sandbox.NativeSandbox.AllowNetwork = true
	res, err = w.Exec(ctx, ExecRequest{Command: "curl -sS --max-time 5 " + url})
	must(t, err)
	if res.Text() != "reached" {
		t.Errorf("allowNetwork: %q", res.Text())
	}
}

// TestLandlockReadOnly: with filesystem.readOnly the workspace is
// read-only for commands too; readWritePaths stay writable.
func TestLandlockReadOnly(t *testing.T) {
	cfg := config.Default()
	cfg.Filesystem.ReadOnly = true
	extra := t.TempDir()
	cfg.Sandbox.NativeSandbox.ReadWritePaths = []string{extra}
	w, root, _ := landlockWorkspace(t, cfg)
	must(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644))
	res, err := w.Exec(context.Background(), ExecRequest{Command: "cat a.txt; echo x > new.txt; echo y >> a.txt; echo z > " + extra + "/z"})
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
	if data, _ := os.ReadFile(filepath.Join(extra, "z")); string(data) != "z\n" {
		t.Errorf("readWritePaths were not writable: %q", res.Text())
	}
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

// TestLandlockMissing: isolation asked for on a kernel without Landlock is
// a clear error, and the command does not run unconfined.
func TestLandlockMissing(t *testing.T) {
	saved := landlockABI
	landlockABI = func() (int, error) { return 0, fmt.Errorf("%w (function not implemented)", landlock.ErrUnavailable) }
	defer func() { landlockABI = saved }()
	cfg := config.Default()
	w, root := newTestWorkspace(t, cfg)
	cfg.Sandbox.Isolation = "landlock" // after New, as in landlockWorkspace
	_, err := w.Exec(context.Background(), ExecRequest{Command: "touch ran"})
	if err == nil || errs.CodeOf(err) != errs.NotAvailable || !strings.Contains(err.Error(), `sandbox isolation "landlock" is not available: this kernel offers no Landlock`) {
		t.Fatalf("err %v", err)
	}
	if _, serr := os.Stat(filepath.Join(root, "ran")); serr == nil {
		t.Fatal("the command ran without the isolation it asked for")
	}
}

// TestBwrapReadOnly: with filesystem.readOnly the workspace is read-only
// for commands under bubblewrap too.
func TestBwrapReadOnly(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		if os.Getenv("WS_REQUIRE_BWRAP") == "1" {
			t.Fatal("bubblewrap is not installed")
		}
		t.Skip("bubblewrap is not installed")
	}
	if out, err := exec.Command("bwrap", "--ro-bind", "/", "/", "true").CombinedOutput(); err != nil {
		t.Skipf("bwrap cannot run here: %s", out)
	}
	cfg := config.Default()
	cfg.Sandbox.Isolation = "bwrap"
	cfg.Filesystem.ReadOnly = true
	w, root := newTestWorkspace(t, cfg)
	w.hostEnv = []string{"PATH=" + os.Getenv("PATH")}
	must(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644))
	res, err := w.Exec(context.Background(), ExecRequest{Command: "cat a.txt; echo x > new.txt; echo y >> a.txt"})
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
}

// TestLandlockOldABINetwork: on a kernel whose Landlock cannot deny the
// network (ABI < 4) the command runs, and a warning says it has the network.
func TestLandlockOldABINetwork(t *testing.T) {
	w, _, _ := landlockWorkspace(t, config.Default())
	saved := landlockABI
	landlockABI = func() (int, error) { return 3, nil }
	defer func() { landlockABI = saved }()
	var warnings []string
	w.warnf = func(msg string) { warnings = append(warnings, msg) }
	res, err := w.Exec(context.Background(), ExecRequest{Command: "echo ran"})
	must(t, err)
	if res.Text() != "ran\n" {
		t.Errorf("output %q", res.Text())
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "(ABI 3) cannot deny network access") {
		t.Errorf("warnings %q", warnings)
	}
}
