package procstate

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// runOnTerminal is the body of the test binary run as `__foreground
// SCRIPT` on a terminal: ws exec --stdin, as run from a shell prompt. It
// writes the command's exit code and output to fd 3.
func runOnTerminal(script string) int {
	res, err := RunForeground(context.Background(), Foreground{Argv: []string{"/bin/sh", "-c", script}, Dir: "/", Stdin: os.Stdin})
	out := os.NewFile(3, "result")
	if err != nil {
		fmt.Fprintln(out, "error", err)
		return 1
	}
	fmt.Fprintf(out, "exit %d: %s", res.ExitCode, res.Stdout)
	return 0
}

// jobShell is the body of the test binary run as `__shell fg|bg SCRIPT`:
// a shell with job control, on its terminal, that runs `__foreground
// SCRIPT` as its foreground job, or in the background (&). When the job
// stops it says "stopped" on fd 3 (the job's result pipe too) and, once
// told to on fd 4, does what fg does: gives the job the terminal and
// continues it; then it waits for its end.
func jobShell(mode, script string) int {
	signal.Ignore(syscall.SIGTTOU) // tcsetpgrp from the background
	job := exec.Command(os.Args[0], "__foreground", script)
	job.Stdin, job.Stdout, job.Stderr = os.Stdin, os.Stdout, os.Stderr
	job.ExtraFiles = []*os.File{os.NewFile(3, "result")}
	fg := os.NewFile(4, "fg")
	job.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Foreground: mode == "fg", Ctty: 0}
	if err := job.Start(); err != nil {
		return 1
	}
	pid := job.Process.Pid
	for {
		var st syscall.WaitStatus
		_, err := syscall.Wait4(pid, &st, syscall.WUNTRACED, nil)
		switch {
		case err == syscall.EINTR:
		case err != nil || !st.Stopped():
			return 0
		default:
			fmt.Fprintln(job.ExtraFiles[0], "stopped")
			if _, err := fg.Read(make([]byte, 1)); err != nil {
				return 1
			}
			_ = unix.IoctlSetPointerInt(0, unix.TIOCSPGRP, pid)
			_ = syscall.Kill(-pid, syscall.SIGCONT)
		}
	}
}

// A command on ws's terminal that ^Z stops stops ws too, as a job of a
// shell stops: the shell that runs ws gets the terminal back, and fg (the
// terminal given to ws again, and SIGCONT) hands the terminal to the
// command again and continues it. Before, ws went on waiting for the
// stopped command, which kept the terminal: the shell never came back,
// and ^C reached only the stopped command, so the terminal stayed stuck.
// Likewise when ws runs in the background (ws exec --stdin -- cat &): the
// command that reads the terminal stops, so ws stops, and fg gives the
// command the terminal (before: fg left it stopped, and ws waiting).
func TestForegroundSuspend(t *testing.T) {
	for _, mode := range []string{"fg", "bg"} {
		t.Run(mode, func(t *testing.T) { testSuspend(t, mode) })
	}
}

func testSuspend(t *testing.T, mode string) {
	master, slave, err := openPTY(TTYCols, TTYRows)
	if err != nil {
		t.Skip(err)
	}
	defer master.Close()
	resR, resW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer resR.Close()
	sh := exec.Command(os.Args[0], "__shell", mode, `read x; echo "got $x"`)
	sh.Env = append(os.Environ(), "WS_TEST_FOREGROUND=1")
	sh.Stdin, sh.Stdout, sh.Stderr = slave, slave, slave
	fgR, fgW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer fgW.Close()
	sh.ExtraFiles = []*os.File{resW, fgR}
	// The shell leads a session whose controlling terminal is the pty.
	sh.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	resW.Close()
	fgR.Close()
	defer func() {
		// The session's jobs: the shell, ws, the command.
		eachProcess(func(pid int, st statFields) {
			if st.sid == sh.Process.Pid {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		})
		sh.Wait()
	}()
	var mu sync.Mutex
	var screen bytes.Buffer
	go collect(master, &mu, &screen, nil)
	var results bytes.Buffer
	resultsDone := make(chan struct{})
	go collect(resR, &mu, &results, resultsDone)
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if ok() {
				return
			}
			if time.Now().After(deadline) {
				mu.Lock()
				defer mu.Unlock()
				t.Fatalf("%s: not within 10 s; the terminal shows %q, the results %q", what, screen.String(), results.String())
			}
		}
	}
	fg := func() int {
		pgrp, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPGRP)
		if err != nil {
			t.Fatal(err)
		}
		return pgrp
	}
	// The shell's job is ws, whose command then gets the terminal (or,
	// in the background, stops as it reads it).
	var ws int
	waitFor("ws starts", func() bool {
		eachProcess(func(pid int, st statFields) {
			// (not the short-lived child that Go's first start of a
			// process may fork, to probe for pidfd support)
			cl, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			if st.ppid == sh.Process.Pid && bytes.Contains(cl, []byte("__foreground")) {
				ws = pid
			}
		})
		return ws != 0
	})
	if mode == "fg" {
		waitFor("the command gets the terminal", func() bool { p := fg(); return p != ws && p != sh.Process.Pid && p != 0 })
		master.Write([]byte{0x1a}) // ^Z
	}
	waitFor("the shell sees its job stop", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return strings.HasPrefix(results.String(), "stopped\n")
	})
	if p, want := fg(), map[string]int{"fg": ws, "bg": sh.Process.Pid}[mode]; p != want {
		t.Errorf("the terminal's foreground job is %d once ws stopped, want %d", p, want)
	}
	fgW.Write([]byte{'\n'}) // fg
	waitFor("the command has the terminal again", func() bool { return fg() != ws && stateOf(ws) != 'T' })
	master.Write([]byte("typed\n"))
	<-resultsDone
	if got, want := results.String(), "stopped\nexit 0: got typed\n"; got != want {
		t.Errorf("results %q, want %q", got, want)
	}
}

// stateOf is the state letter of process pid (/proc/PID/stat), 0 if gone.
func stateOf(pid int) byte {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 || i+2 >= len(data) {
		return 0
	}
	return data[i+2]
}

// collect copies what r gives into b, under mu, until r fails; then it
// closes done, when there is one.
func collect(r io.Reader, mu *sync.Mutex, b *bytes.Buffer, done chan<- struct{}) {
	if done != nil {
		defer close(done)
	}
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		mu.Lock()
		b.Write(buf[:n])
		mu.Unlock()
		if err != nil {
			return
		}
	}
}
