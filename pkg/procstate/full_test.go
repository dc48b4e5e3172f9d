package procstate

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/internal/testfs"
	"github.com/wstools/ws/pkg/statefile"
	"golang.org/x/sys/unix"
)

// A background command whose output fills the state directory's file
// system still has its exit recorded: the supervisor writes it into room
// it kept when it made the record. Before, the exit could not be written,
// and ws said the process was gone without an exit code because its
// supervisor was killed. (It needs a small file system of its own: a
// tmpfs, which only root may mount.)
func TestExitOnFullStateDir(t *testing.T) {
	state := t.TempDir()
	testfs.SmallFS(t, state, "256k")
	root := t.TempDir()
	store := Open(state)
	script := "seq 1 200000; echo done >&2; exit 7"
	e := startSpec(t, store, Spec{
		Argv: statefile.Strings([]string{"/bin/sh", "-c", script}),
		Env:  statefile.Strings([]string{"PATH=" + os.Getenv("PATH")}),
		Dir:  statefile.String(root), Command: statefile.String(script), Root: statefile.String(root),
		LogCap: DefaultLogCap, GraceMs: 500,
	})
	for deadline := time.Now().Add(20 * time.Second); e.Record.SupervisorRunning(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(e.Record.SupervisorPID, syscall.SIGKILL)
			t.Fatal("the supervisor is still there after 20 s")
		}
	}
	var st unix.Statfs_t
	if unix.Statfs(state, &st) == nil && st.Bavail > 0 {
		t.Logf("the state directory kept %d free blocks: the output did not fill it", st.Bavail)
	}
	e, err := store.Load(e.Record.ID)
	if err != nil {
		t.Fatal(err)
	}
	if e.Exit == nil || e.Exit.ExitCode != 7 {
		t.Fatalf("exit %+v, want exit code 7", e.Exit)
	}
	if e.Exit.LostBytes <= 0 {
		t.Errorf("exit %+v: no count of the output that could not be written", e.Exit)
	}
}
