package procstate

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRunForegroundSession: a command runs in a process group of its own,
// in ws's session; with NoTerminal (a confined command) in a session of
// its own as well, so it has no controlling terminal to push input into.
func TestRunForegroundSession(t *testing.T) {
	// The shell prints its pid, its process group and its session
	// (fields 1, 5 and 6 of /proc/self/stat; sh's name has no spaces).
	argv := []string{"/bin/sh", "-c", "read -r pid comm state ppid pgrp sid rest < /proc/$$/stat; echo $pid $pgrp $sid"}
	own, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Skip(err)
	}
	wsSession := strings.Fields(string(own))[5]
	for _, tc := range []struct {
		name       string
		noTerminal bool
		newSession bool
	}{
		{name: "default", noTerminal: false, newSession: false},
		{name: "NoTerminal", noTerminal: true, newSession: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := RunForeground(context.Background(), Foreground{Argv: argv, Dir: "/", NoTerminal: tc.noTerminal})
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("run: %v %+v", err, res)
			}
			f := strings.Fields(string(res.Stdout))
			if len(f) != 3 {
				t.Fatalf("output %q", res.Stdout)
			}
			pid, _ := strconv.Atoi(f[0])
			if f[1] != f[0] {
				t.Errorf("process group %s, want the shell's own (%d)", f[1], pid)
			}
			if tc.newSession && f[2] != f[0] {
				t.Errorf("session %s, want the shell's own (%d)", f[2], pid)
			}
			if !tc.newSession && f[2] != wsSession {
				t.Errorf("session %s, want ws's (%s)", f[2], wsSession)
			}
		})
	}
}

// TestCopyPipeKeepsWhatIsLeft: once a read deadline is set (the command is
// gone, and someone else holds the pipe), the copy takes what is in the
// pipe and stops; it used to be closed, and what a slow reader had not
// read yet was lost.
func TestCopyPipeKeepsWhatIsLeft(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close() // held open: a leftover process
	data := strings.Repeat("x", 40000) + "end\n"
	if _, err := w.Write([]byte(data)); err != nil {
		t.Fatal(err)
	}
	var c capture
	if err := r.SetReadDeadline(time.Now()); err != nil {
		t.Fatal(err)
	}
	copyPipe(&c, r) // returns: the deadline has passed
	if got, _ := c.bytes(); string(got) != data {
		t.Fatalf("kept %d bytes, want %d", len(got), len(data))
	}
}

// TestStreamCopyCatchUp: a supervisor that records a command's end after
// a catch-up finds in the log everything that was in the pipe, however
// slow the copy (here: held up in seen), and the copy goes on after it.
func TestStreamCopyCatchUp(t *testing.T) {
	dir := t.TempDir()
	l, err := CreateLog(dir, "out.log", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	hold := make(chan struct{})
	first := true
	c := newStreamCopy(l, r, func(p []byte) {
		if first {
			first = false
			<-hold
		}
	})
	go c.run()
	w.Write([]byte("one\n"))
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if b, _, _ := ReadLog(dir, "out.log"); string(b) == "one\n" || time.Now().After(deadline) {
			break
		}
	}
	w.Write([]byte("two\n")) // in the pipe while the copy is held up
	caught := make(chan struct{})
	go func() { c.catchUp(nil); close(caught) }()
	close(hold)
	<-caught
	if b, _, _ := ReadLog(dir, "out.log"); string(b) != "one\ntwo\n" {
		t.Fatalf("logged at the catch-up: %q", b)
	}
	w.Write([]byte("three\n"))
	w.Close()
	<-c.done
	if b, _, _ := ReadLog(dir, "out.log"); string(b) != "one\ntwo\nthree\n" {
		t.Fatalf("logged at the end: %q", b)
	}
}

// TestRunForegroundStoppedGetsItsSignal: a command that a signal stopped
// (kill -STOP) is continued after the TERM that stops it, as a shell's
// kill continues a stopped job, so its handler runs; the TERM waited
// while it was stopped, and the KILL after the grace period ended it
// (exit 137).
func TestRunForegroundStoppedGetsItsSignal(t *testing.T) {
	pidFile := t.TempDir() + "/pid"
	argv := []string{"/bin/sh", "-c", `trap 'exit 5' TERM; echo $$ > "$1"; kill -STOP $$; exit 0`, "sh", pidFile}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		defer cancel()
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			b, _ := os.ReadFile(pidFile)
			if pid := strings.TrimSpace(string(b)); pid != "" {
				if st, err := readStat(pid); err == nil && st.state == 'T' {
					return
				}
			}
		}
	}()
	res, err := RunForeground(ctx, Foreground{Argv: argv, Dir: "/"})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 5 {
		t.Errorf("exit code %d, want 5 (the TERM handler's)", res.ExitCode)
	}
}
