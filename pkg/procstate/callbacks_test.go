package procstate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/statefile"
)

// TestEventSinkNeverBlocks: with nobody reading the pipe (a dispatcher
// stuck in a slow callback), the supervisor's output path goes on at once
// and counts what it could not queue.
func TestEventSinkNeverBlocks(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s := newEventSink(w)
	chunk := make([]byte, 32<<10)
	// A write that blocked would never return: the chunks are sent from a
	// goroutine, and the test fails (rather than hanging until the test
	// binary's timeout) when they have not all gone after a bound far
	// beyond what copying 160 MB takes under -race on a busy machine.
	sent := make(chan struct{})
	go func() {
		for i := 0; i < 5000; i++ {
			s.chunk("stdout", chunk)
		}
		close(sent)
	}()
	select {
	case <-sent:
	case <-time.After(2 * time.Minute):
		t.Fatalf("5000 chunks with nobody reading did not go in 2 minutes: the sink blocks")
	}
	s.mu.Lock()
	dropped := s.droppedOut
	s.mu.Unlock()
	if dropped == 0 || dropped%int64(len(chunk)) != 0 {
		t.Errorf("dropped %d bytes, want a positive multiple of %d", dropped, len(chunk))
	}
	start := time.Now()
	s.exit(0)
	s.wait()
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("exit and wait took %v", d)
	}
}

func TestCallbacksStatusFailed(t *testing.T) {
	ok := &CallbacksStatus{OnExit: &CallbackStatus{Runs: 1}}
	if ok.Failed() {
		t.Error("a run without failure counted as failed")
	}
	for _, c := range []*CallbacksStatus{
		{OnExit: &CallbackStatus{Runs: 1, Failures: 1}},
		{OnStdout: &CallbackStatus{Runs: 3, DroppedBytes: 10}},
	} {
		if !c.Failed() {
			t.Errorf("%+v not reported", c)
		}
	}
}

// TestCallbacksKilledAtDrainDeadline: a chunk callback still running when
// the drain time after the process's end runs out is killed (its process
// group) before RunCallbacks returns, never left behind; it is recorded as
// a failed run, and the chunks still queued count as dropped.
func TestCallbacksKilledAtDrainDeadline(t *testing.T) {
	defer func(d time.Duration) { drainAfterExit = d }(drainAfterExit)
	drainAfterExit = time.Second
	dir := t.TempDir()
	marker := fmt.Sprintf("ws-drain-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	spec := Spec{Callbacks: &Callbacks{OnStdout: []string{"/bin/sh", "-c", "sleep 1000 # " + marker}, Dir: statefile.String(dir), Env: []statefile.String{"PATH=/usr/bin:/bin"}}}
	data, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "spec.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	var events bytes.Buffer
	enc := json.NewEncoder(&events)
	code := 0
	for _, e := range []event{{Type: "record", Dir: dir, PID: 1, Command: "x"},
		{Type: "stdout", Data: []byte("1\n")}, {Type: "stdout", Data: []byte("2\n")}, {Type: "stdout", Data: []byte("3\n")},
		{Type: "exit", ExitCode: &code}} {
		if err := enc.Encode(e); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	if st := RunCallbacks(&events); st != 0 {
		t.Fatalf("RunCallbacks = %d", st)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("RunCallbacks took %v with a drain time of %v", d, drainAfterExit)
	}
	if pids := processesWith(t, marker); len(pids) > 0 {
		for _, p := range pids {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		t.Fatalf("callback left running: pids %v", pids)
	}
	var got CallbacksStatus
	data, err = os.ReadFile(filepath.Join(dir, CallbacksFile))
	if err == nil {
		err = json.Unmarshal(data, &got)
	}
	if err != nil {
		t.Fatal(err)
	}
	want := CallbackStatus{Runs: 1, Failures: 1, DroppedBytes: 4, LastError: "killed: still running 1s after the process ended"}
	if !got.Done || got.OnStdout == nil || *got.OnStdout != want {
		t.Fatalf("callbacks.json = %s, want on_stdout %+v and done", data, want)
	}
}

// processesWith lists the processes whose command line holds s.
func processesWith(t *testing.T, s string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && bytes.Contains(cmd, []byte(s)) {
			pids = append(pids, pid)
		}
	}
	return pids
}
