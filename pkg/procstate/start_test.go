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
// started, even a child in a process group of its own (as the supervisor
// starts the command), and Start says so instead of waiting for ever.
func TestStartBounded(t *testing.T) {
	defer func(d time.Duration) { startTimeout = d }(startTimeout)
	startTimeout = 300 * time.Millisecond
	dir := t.TempDir()
	t0 := time.Now()
	// The command line is the program, then its argv from argv[0]. The
	// shell starts a child that moves to a process group of its own (perl
	// is in every Debian base), writes both pids where the test can find
	// them, then sleeps holding fd 3 (the report pipe) open.
	script := `perl -e 'setpgrp(0, 0); sleep 30' & echo $! >"$0/child.pid"; echo $$ >"$0/sh.pid"; sleep 30`
	_, err := Start([]string{"/bin/sh", "sh", "-c", script}, nil, dir)
	if err == nil || !strings.Contains(err.Error(), "did not report within 300ms") {
		t.Fatalf("Start: %v, want the bound's error", err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Fatalf("Start took %v", d)
	}
	sh, child := readPid(t, dir+"/sh.pid"), readPid(t, dir+"/child.pid")
	for _, pid := range []int{sh, child} {
		deadline := time.Now().Add(5 * time.Second)
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d of the stuck supervisor is still running", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// alive: the process exists and is not a zombie.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	st, err := readStat(strconv.Itoa(pid))
	return err == nil && !st.zombie()
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
