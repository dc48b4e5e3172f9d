package procstate

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/statefile"
)

// TestMain lets the test binary act as the background supervisor, as the
// ws binary does with `ws __supervise DIR`.
func TestMain(m *testing.M) {
	if os.Getenv("WS_TEST_SUPERVISOR") == "1" && len(os.Args) == 3 && os.Args[1] == "__supervise" {
		os.Exit(Supervise(os.Args[2], os.NewFile(3, "ready")))
	}
	if os.Getenv("WS_TEST_FOREGROUND") == "1" && len(os.Args) == 3 && os.Args[1] == "__foreground" {
		os.Exit(runOnTerminal(os.Args[2]))
	}
	if os.Getenv("WS_TEST_FOREGROUND") == "1" && len(os.Args) == 4 && os.Args[1] == "__shell" {
		os.Exit(jobShell(os.Args[2], os.Args[3]))
	}
	os.Exit(m.Run())
}

// supervised is a background command started under a real supervisor
// (this test binary re-executed).
type supervised struct {
	t     *testing.T
	store *Store
	root  string
	pid   int
	rec   Record
}

// superviseCmd starts `sh -c script` in the background, on a terminal
// with tty (and a stdin pipe, so that both can be sent to). The
// supervisor is stopped, and waited for, when the test ends.
func superviseCmd(t *testing.T, script string, tty bool) *supervised {
	t.Helper()
	state, root := t.TempDir(), t.TempDir()
	store := Open(state)
	e := startSpec(t, store, Spec{
		Argv:    statefile.Strings([]string{"/bin/sh", "-c", script}),
		Env:     statefile.Strings([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "TERM=dumb", "PYTHONSTARTUP=", "PYTHON_BASIC_REPL=1"}),
		Dir:     statefile.String(root),
		Command: statefile.String(script), Root: statefile.String(root),
		LogCap: DefaultLogCap, GraceMs: 500, Stdin: !tty, TTY: tty,
	})
	s := &supervised{t: t, store: store, root: root, pid: e.Record.PID, rec: e.Record}
	t.Cleanup(func() {
		if s.rec.SupervisorRunning() {
			_ = syscall.Kill(s.rec.SupervisorPID, SignalKillNow)
		}
		for deadline := time.Now().Add(10 * time.Second); s.rec.SupervisorRunning() && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
	})
	return s
}

// startSpec starts spec under a real supervisor (this test binary
// re-executed), recorded in store, and returns its record.
func startSpec(t *testing.T, store *Store, spec Spec) *Entry {
	t.Helper()
	dir, err := store.NewDir()
	if err != nil {
		t.Fatal(err)
	}
	if err := statefile.WriteJSON(filepath.Join(dir, "spec.json"), spec); err != nil {
		t.Fatal(err)
	}
	superv := []string{os.Args[0], os.Args[0], "__supervise"}
	pid, err := Start(superv, append(os.Environ(), "WS_TEST_SUPERVISOR=1", "GORACE=atexit_sleep_ms=0"), dir)
	if err != nil {
		t.Fatal(err)
	}
	e, err := store.Find(string(spec.Root), pid)
	if err != nil || e == nil {
		t.Fatalf("no record of %d: %v", pid, err)
	}
	return e
}

func (s *supervised) dir() string { return s.store.Dir(s.rec.ID) }

// output is the stdout log as it is now.
func (s *supervised) output() string {
	b, _, err := ReadLog(s.dir(), "stdout.log")
	if err != nil {
		s.t.Fatal(err)
	}
	return string(b)
}

// waitOutput waits until the stdout log holds want, and returns it.
func (s *supervised) waitOutput(want string) string {
	s.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		out := s.output()
		if strings.Contains(out, want) {
			return out
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("no %q in the output: %q", want, out)
		}
	}
}

// waitExit waits for the exit record.
func (s *supervised) waitExit() *Exit {
	s.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		e, err := s.store.Load(s.rec.ID)
		if err != nil {
			s.t.Fatal(err)
		}
		if e.Exit != nil {
			return e.Exit
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("process %d has not exited; output %q", s.pid, s.output())
		}
	}
}

func (s *supervised) send(text string) {
	s.t.Helper()
	if _, err := SendInput(context.Background(), s.dir(), strings.NewReader(text), 10*time.Second); err != nil {
		s.t.Fatalf("send %q: %v", text, err)
	}
}

// TestTTYIsATerminal: on a terminal the command's three streams are one,
// all of its output in the stdout log, stderr's log empty; without one
// they are not terminals.
func TestTTYIsATerminal(t *testing.T) {
	const script = `if test -t 0 && test -t 1 && test -t 2; then echo tty; else echo notty; fi; echo err >&2`
	for _, tty := range []bool{true, false} {
		s := superviseCmd(t, script, tty)
		if x := s.waitExit(); x.ExitCode != 0 {
			t.Fatalf("tty=%v: exit %d", tty, x.ExitCode)
		}
		stderr, _, _ := ReadLog(s.dir(), "stderr.log")
		want, wantErr := "tty\nerr\n", ""
		if !tty {
			want, wantErr = "notty\n", "err\n"
		}
		if out := s.output(); out != want || string(stderr) != wantErr {
			t.Errorf("tty=%v: stdout %q, stderr %q; want %q, %q", tty, out, stderr, want, wantErr)
		}
		if e, _ := s.store.Load(s.rec.ID); e.Record.TTY != tty {
			t.Errorf("tty=%v: the record says tty=%v", tty, e.Record.TTY)
		}
	}
}

// TestTTYWindowSize: the terminal is 80 columns by 24 rows, and the
// command's own session leader with it as controlling terminal.
func TestTTYWindowSize(t *testing.T) {
	// The session id is field 6 of /proc/PID/stat (the name, "(sh)", has
	// no space).
	s := superviseCmd(t, `stty size; tty; cut -d' ' -f6 /proc/$$/stat; echo $$`, true)
	s.waitExit()
	lines := strings.Split(strings.TrimSuffix(s.output(), "\n"), "\n")
	if len(lines) != 4 || lines[0] != "24 80" {
		t.Fatalf("output %q, want 24 80 first", s.output())
	}
	if !strings.HasPrefix(lines[1], "/dev/pts/") || lines[2] != lines[3] {
		t.Errorf("terminal %q, session %s of shell %s: want a pts, and the shell's own session", lines[1], lines[2], lines[3])
	}
}

// TestTTYLineEnds: the terminal's CR LF line ends are logged as LF, a CR
// LF written by the program too; a CR that redraws a line stays.
func TestTTYLineEnds(t *testing.T) {
	s := superviseCmd(t, `printf 'one\ntwo\r\n50%%\r100%%\nend\r'`, true)
	s.waitExit()
	if out, want := s.output(), "one\ntwo\n50%\r100%\nend\r"; out != want {
		t.Errorf("output %q, want %q", out, want)
	}
}

// TestLineEndsChunks: a line end split between reads is translated too.
func TestLineEndsChunks(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{[]string{"a\r", "\nb"}, "a\nb"},
		{[]string{"a\r\r", "\r\n"}, "a\n"},
		{[]string{"a\r", "b\r\n"}, "a\rb\n"},
		{[]string{"\r", "", "\n\r"}, "\n\r"},
		{[]string{"x\ry\r\nz"}, "x\ry\nz"},
	} {
		var l lineEnds
		var got []byte
		for _, p := range c.in {
			got = append(got, l.translate([]byte(p))...)
		}
		got = append(got, l.flush()...)
		if string(got) != c.want {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
}

// TestTTYPython: python3 -i on a terminal shows its prompt on its
// stdout (on a pipe the prompt goes to stderr), answers what is sent (echoed, as a terminal does), and
// exits 0 at the terminal's end of file.
func TestTTYPython(t *testing.T) {
	s := superviseCmd(t, `exec python3 -i -q`, true)
	s.waitOutput(">>> ")
	s.send("print(6*7)\n")
	// The ^D once python waits again (its prompt shows): readline reads
	// a line raw, then sets the terminal cooked while the line runs, and
	// a ^D that comes then is the cooked mode's end of file, lost to it.
	out := s.waitOutput("42\n>>> ")
	if !strings.Contains(out, "print(6*7)\n42\n") {
		t.Errorf("output %q: want the echoed line, then 42", out)
	}
	s.send(EOFChar)
	if x := s.waitExit(); x.ExitCode != 0 {
		t.Fatalf("python3 exited %d at ^D; output %q", x.ExitCode, s.output())
	}

}

// TestTTYKill: TERM to the supervisor (ws kill) stops a command on a
// terminal, and the whole group with it; the end is recorded as 143.
func TestTTYKill(t *testing.T) {
	s := superviseCmd(t, `sleep 60 & echo "child $!"; wait`, true)
	out := s.waitOutput("\n")
	child, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(out), "child "))
	if err != nil {
		t.Fatalf("output %q", out)
	}
	if err := syscall.Kill(s.rec.SupervisorPID, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if x := s.waitExit(); x.ExitCode != 143 || !x.Killed {
		t.Fatalf("exit %+v, want 143, killed", x)
	}
	for deadline := time.Now().Add(10 * time.Second); alive(child) || alive(s.pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the shell (%v) or its sleep (%v) still runs", alive(s.pid), alive(child))
		}
	}
}

// TestTTYLeftover: a command that exits leaving a process that holds the
// terminal (it ignores the hangup) has its end recorded at once; the
// supervisor stays to reap what is left, and a TERM stops it.
func TestTTYLeftover(t *testing.T) {
	s := superviseCmd(t, `trap '' HUP; sleep 60 & echo started`, true)
	s.waitOutput("started\n")
	t0 := time.Now()
	if x := s.waitExit(); x.ExitCode != 0 {
		t.Fatalf("exit %d", x.ExitCode)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("the exit was recorded after %v", d)
	}
	if !s.rec.SupervisorRunning() {
		t.Fatal("the supervisor left before the sleep ended")
	}
	if err := syscall.Kill(s.rec.SupervisorPID, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); s.rec.SupervisorRunning(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the supervisor did not end after the leftover was stopped")
		}
	}
}
