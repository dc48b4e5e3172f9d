package workspace

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/internal/testfs"
)

// Output that the supervisor could not write because the state
// directory's file system was full is not lost without a word: the
// output says how much is missing before the exit code, which is
// recorded. Before, the output just stopped short, and the process was
// said to be gone because its supervisor was killed. (It needs a tmpfs of
// its own, which only root may mount.)
func TestOutputOnFullStateDir(t *testing.T) {
	w := newSupervisedWorkspace(t, nil)
	must(t, os.MkdirAll(w.stateDir, 0o700))
	testfs.SmallFS(t, w.stateDir, "256k")
	res := startBackground(t, w, ExecRequest{Command: "seq 1 200000; echo end >&2; exit 3"})
	pid := strconv.Itoa(res.PID)
	out, err := w.ProcessOutput(context.Background(), ProcessOutputRequest{PID: pid, Wait: boolp(true), WaitTimeout: f64(30), Tail: intp(1)})
	must(t, err)
	text := out.Text()
	if out.State != "exited" || !strings.HasSuffix(text, "\n\nExit code: 3") {
		t.Fatalf("output %q (%s), want the exit code 3", text, out.State)
	}
	if !strings.Contains(text, " bytes of output could not be kept: the state directory's file system was full]\n\nExit code: 3") {
		t.Errorf("output %q, want the notice of output not kept before the exit code", text)
	}
	// The supervisor is done once the exit is recorded and its logs closed.
	for e, _ := w.processOf(pid); e != nil && e.Record.SupervisorRunning(); time.Sleep(10 * time.Millisecond) {
	}
}
