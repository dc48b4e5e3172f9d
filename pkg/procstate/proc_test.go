package procstate

import (
	"os"
	"os/exec"
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
