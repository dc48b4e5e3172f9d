package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/landlock"
	"github.com/wstools/ws/pkg/procstate"
)

// TestMain lets the test binary act as the background supervisor, as the ws
// binary does with `ws __supervise DIR`.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "__landlock" {
		// The Landlock launcher, as `ws __landlock` is.
		err := landlock.Exec(os.Args[2:], os.Environ())
		fmt.Fprintln(os.Stderr, "landlock launcher:", err)
		os.Exit(125)
	}
	if os.Getenv("WS_TEST_SUPERVISOR") == "1" && len(os.Args) == 3 && os.Args[1] == "__supervise" {
		os.Exit(procstate.Supervise(os.Args[2], os.NewFile(3, "ready")))
	}
	os.Exit(m.Run())
}

// must stops the test at an error.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// newTestWorkspace makes a workspace in a temporary directory holding the
// given files ("dir/" entries are directories).
func newTestWorkspace(t testing.TB, cfg *config.Config, files ...string) (*Workspace, string) {
	t.Helper()
	tmp := t.TempDir()
	root := filepath.Join(tmp, "root")
	for _, f := range append([]string{""}, files...) {
		p := filepath.Join(root, f)
		if f == "" || strings.HasSuffix(f, "/") {
			must(t, os.MkdirAll(p, 0o755))
			continue
		}
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte("content of "+f+"\n"), 0o644))
	}
	w, err := New(Options{Root: root, Home: filepath.Join(tmp, "home"), Config: cfg, StateDir: filepath.Join(tmp, "state")})
	must(t, err)
	t.Cleanup(func() { w.Close() })
	return w, root
}

// withSupervisor makes a workspace able to start background processes by
// re-executing this test binary.
func withSupervisor(t *testing.T, w *Workspace) {
	w.superv = []string{os.Args[0], os.Args[0], "__supervise"}
	w.hostEnv = append(os.Environ(), "WS_TEST_SUPERVISOR=1", "GORACE=atexit_sleep_ms=0")
	// Before the temporary directories go, let the supervisors finish.
	t.Cleanup(func() {
		entries, _ := w.procStore().List(w.fs.RealBase())
		deadline := time.Now().Add(10 * time.Second)
		for _, e := range entries {
			for e.Record.SupervisorRunning() && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
		}
	})
}

// killSupervisor SIGKILLs the supervisor of background process pid and
// waits until it is gone, leaving the command running on its own.
func killSupervisor(t *testing.T, w *Workspace, pid string) {
	t.Helper()
	e, err := w.processOf(pid)
	must(t, err)
	must(t, syscall.Kill(e.Record.SupervisorPID, syscall.SIGKILL))
	for e.Record.SupervisorRunning() {
		time.Sleep(10 * time.Millisecond)
	}
}

// newSupervisedWorkspace is newTestWorkspace (cfg may be nil, no files) for
// a test that starts background processes.
func newSupervisedWorkspace(t *testing.T, cfg *config.Config) *Workspace {
	t.Helper()
	w, _ := newTestWorkspace(t, cfg)
	withSupervisor(t, w)
	return w
}

// reopen opens the workspace of w0 again, as another ws process would (it
// may be called from other goroutines: a failure is reported, and nil
// returned). It is closed when the test ends.
func reopen(t *testing.T, w0 *Workspace) *Workspace {
	w, err := New(Options{Root: w0.base, Config: w0.cfg, StateDir: w0.stateDir})
	if err != nil {
		t.Error(err)
		return nil
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// inReopened calls f from n goroutines at once, each with its number i and
// the workspace of w0 opened again (see reopen), and waits for them all.
func inReopened(t *testing.T, w0 *Workspace, n int, f func(i int, w *Workspace)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if w := reopen(t, w0); w != nil {
				f(i, w)
			}
		})
	}
	wg.Wait()
}
