package workspace

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/errs"
)

// A background command started while ws destroy runs is either stopped by
// destroy or recorded in the state that comes after it. Before, a start
// whose record was made after destroy had listed the processes (here:
// while destroy waits out the grace period of one that ignores TERM) lost
// its record with the state directory and ran on, out of reach of ws ps,
// ws kill and any later destroy.
func TestDestroyRacingStart(t *testing.T) {
	w := newSupervisedWorkspace(t, nil)
	ctx := context.Background()
	startRunning(t, w, ExecRequest{Command: "trap '' TERM; echo up; while :; do sleep 0.05; done"}, "up\n")
	done := make(chan error, 1)
	go func() {
		_, err := w.Destroy(ctx, DestroyRequest{})
		done <- err
	}()
	// Destroy lists the processes at once, then spends the 2 s grace
	// period on the slow one: start another meanwhile.
	time.Sleep(500 * time.Millisecond)
	w2 := reopen(t, w)
	withSupervisor(t, w2)
	res, err := w2.Exec(ctx, ExecRequest{Command: "exec sleep 30", Background: boolp(true)})
	must(t, <-done)
	if err != nil {
		return // refused: nothing runs
	}
	t.Cleanup(func() { syscall.Kill(-res.PID, syscall.SIGKILL) })
	if syscall.Kill(res.PID, 0) != nil {
		return // destroy stopped it
	}
	if _, err := reopen(t, w).processOf(strconv.Itoa(res.PID)); err != nil {
		t.Fatalf("process %d started during destroy runs without a record: %v", res.PID, err)
	}
}

// An entry that a ws running beside destroy adds after destroy listed the
// state directory (here: history, which a write made meanwhile) is removed
// with the rest. Before, the directory's removal failed with a raw
// "directory not empty", and only a second destroy removed it.
func TestDestroyRemovesWhatCameMeanwhile(t *testing.T) {
	w, _ := newTestWorkspace(t, nil)
	for _, d := range []string{"reads/x", "history/ab/cd"} {
		must(t, os.MkdirAll(filepath.Join(w.stateDir, d), 0o700))
	}
	must(t, w.removeState([]string{"reads"})) // history came after the listing
	if _, err := os.Stat(w.stateDir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("state directory left: %v", err)
	}
	// One that destroy would not remove is still refused, and left.
	must(t, os.MkdirAll(filepath.Join(w.stateDir, "reads"), 0o700))
	must(t, os.WriteFile(filepath.Join(w.stateDir, "notes.txt"), nil, 0o600))
	err := w.removeState([]string{"reads"})
	if errs.CodeOf(err) != errs.InvalidArgument {
		t.Fatalf("a foreign entry: got %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.stateDir, "notes.txt")); err != nil {
		t.Fatal(err)
	}
}
