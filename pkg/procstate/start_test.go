package procstate

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStartBounded: a supervisor that never reports (here a shell that
// holds the report pipe and sleeps) is stopped at the bound, with what it
// started, and Start says so instead of waiting for ever.
func TestStartBounded(t *testing.T) {
	defer func(d time.Duration) { startTimeout = d }(startTimeout)
	startTimeout = 300 * time.Millisecond
	dir := t.TempDir()
	t0 := time.Now()
	// The command line is the program, then its argv from argv[0]. The
	// shell writes its pid where the test can find it, then sleeps holding
	// fd 3 (the report pipe) open.
	_, err := Start([]string{"/bin/sh", "sh", "-c", `echo $$ >"$0/sh.pid"; exec sleep 30`}, nil, dir)
	if err == nil || !strings.Contains(err.Error(), "did not report within 300ms") {
		t.Fatalf("Start: %v, want the bound's error", err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Fatalf("Start took %v", d)
	}
	pid := readPid(t, dir+"/sh.pid")
	// The supervisor's group was killed: the sleep is gone (reaped by
	// Start's Wait) within a moment.
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the stuck supervisor %d is still running", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}
