package procstate

import (
	"os"
	"testing"
	"time"
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
	start := time.Now()
	for i := 0; i < 5000; i++ {
		s.chunk("stdout", chunk)
	}
	// A write that blocked would never return; the bound only has to be
	// finite and beyond what copying 160 MB takes under -race on a busy
	// machine (1 s was not, at load 10).
	if d := time.Since(start); d > 15*time.Second {
		t.Fatalf("5000 chunks took %v with nobody reading", d)
	}
	s.mu.Lock()
	dropped := s.droppedOut
	s.mu.Unlock()
	if dropped == 0 || dropped%int64(len(chunk)) != 0 {
		t.Errorf("dropped %d bytes, want a positive multiple of %d", dropped, len(chunk))
	}
	start = time.Now()
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
