package procstate

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"testing"
	"time"
)

func TestSame(t *testing.T) {
	self := os.Getpid()
	start, err := StartTime(self)
	if err != nil {
		t.Fatal(err)
	}
	if !Same(self, start, BootID()) {
		t.Fatal("this process is not itself")
	}
	if Same(self, start+1, BootID()) {
		t.Fatal("a different start time matched (pid reuse would go unnoticed)")
	}
	if Same(self, start, "another-boot") {
		t.Fatal("a record of another boot matched")
	}

	// A child that has exited but is not reaped yet (a zombie) is gone.
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	childStart, err := StartTime(cmd.Process.Pid)
	if err != nil {
		t.Skip("the child ended before its start time could be read")
	}
	deadline := time.Now().Add(5 * time.Second)
	for Same(cmd.Process.Pid, childStart, BootID()) {
		if time.Now().After(deadline) {
			t.Fatal("an exited, unreaped child still counts as running")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestReadStatAndDescendants(t *testing.T) {
	st, err := readStat(strconv.Itoa(os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	if st.ppid != os.Getppid() || st.zombie() || st.start == 0 {
		t.Errorf("readStat(self) = %+v", st)
	}
	cmd := exec.Command("/bin/sh", "-c", "sleep 5 & sleep 5")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	deadline := time.Now().Add(5 * time.Second)
	for len(liveDescendants(cmd.Process.Pid)) < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	d := liveDescendants(os.Getpid())
	if !slices.Contains(d, cmd.Process.Pid) || len(liveDescendants(cmd.Process.Pid)) != 2 {
		t.Errorf("descendants of the test: %v; of the shell: %v", d, liveDescendants(cmd.Process.Pid))
	}
}
