package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/errs"
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

// An edit that fails because the disk is full says so in one error and
// warns of nothing: the history could not keep the change either, but
// there is no change undo could miss. Before, the warning "the change of
// f.txt is not kept for undo" came first, for a change that was never
// made. The same edit with room left is made and kept for undo.
func TestEditOnFullDiskWarnsOfNoUnkeptChange(t *testing.T) {
	w, root := newTestWorkspace(t, nil)
	testfs.SmallFS(t, root, "256k")
	w.stateDir = filepath.Join(root, ".state") // history on the full disk too
	var warnings []string
	w.warnf = func(msg string) { warnings = append(warnings, msg) }
	content := "first\n" + strings.Repeat("a line of text\n", 2000)
	must(t, os.WriteFile(filepath.Join(root, "f.txt"), []byte(content), 0o644))
	filler, err := os.Create(filepath.Join(root, "filler"))
	must(t, err)
	for block := make([]byte, 4096); ; {
		if _, err := filler.Write(block); err != nil {
			break
		}
	}
	must(t, filler.Close())
	ctx := context.Background()
	_, err = w.Edit(ctx, EditRequest{Path: "f.txt", OldString: "first\n", NewString: "the first line\n"})
	if errs.CodeOf(err) != errs.ENOSPC {
		t.Fatalf("edit on a full disk: %v, want ENOSPC", err)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings of a failed edit: %q, want none", warnings)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "f.txt")); string(data) != content {
		t.Errorf("f.txt changed by a failed edit")
	}
	must(t, os.Remove(filepath.Join(root, "filler")))
	if _, err := w.Edit(ctx, EditRequest{Path: "f.txt", OldString: "first\n", NewString: "the first line\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Undo(ctx, UndoRequest{}); err != nil || len(warnings) > 0 {
		t.Fatalf("undo of the edit made with room: %v, warnings %q", err, warnings)
	}
}
