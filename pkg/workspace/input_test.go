package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/runner"
)

// waitOutput polls a process's whole output until it contains want (a
// generous limit: the machine may be busy).
func waitOutput(t *testing.T, w *Workspace, pid, want string) string {
	t.Helper()
	var got string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		r, err := reopen(t, w).ProcessOutput(context.Background(), ProcessOutputRequest{PID: pid, Tail: intp(0)})
		must(t, err)
		if got = r.Text(); strings.Contains(got, want) {
			return got
		}
	}
	t.Fatalf("output of %s never held %q; last: %q", pid, want, got)
	return ""
}

// TestStdinPipe drives a background process through its stdin pipe:
// lines sent one at a time are read as they come, eof ends its input,
// and input to an ended process, to one without a pipe, or with no
// background at all, is refused.
func TestStdinPipe(t *testing.T) {
	w := newSupervisedWorkspace(t, nil)
	ctx := context.Background()
	res := startBackground(t, w, ExecRequest{Command: `while read line || [ -n "$line" ]; do echo "got $line"; done; echo done; exit 5`, StdinPipe: boolp(true)})
	pid := strconv.Itoa(res.PID)
	for _, s := range []string{"one", "two"} {
		r, err := w.SendInput(ctx, SendInputRequest{PID: pid, Input: s + "\n"})
		must(t, err)
		if r.Text() != "Sent 4 bytes to process "+pid+"." {
			t.Errorf("send: %q", r.Text())
		}
		waitOutput(t, w, pid, "got "+s+"\n")
	}
	// Text without a newline, then eof: the last line still arrives.
	r, err := w.SendInput(ctx, SendInputRequest{PID: pid, Input: "three", EOF: boolp(true)})
	must(t, err)
	if r.Text() != "Sent 5 bytes to process "+pid+" and closed its stdin." || !r.Closed {
		t.Errorf("send with eof: %q", r.Text())
	}
	out, err := w.ProcessOutput(ctx, ProcessOutputRequest{PID: pid, WaitTimeout: f64(20)})
	must(t, err)
	if out.Text() != "got one\ngot two\ngot three\ndone\n\n\nExit code: 5" {
		t.Errorf("after eof: %q", out.Text())
	}
	_, err = w.SendInput(ctx, SendInputRequest{PID: pid, Input: "x\n"})
	if err == nil || err.Error() != "the stdin of process "+pid+" is closed (the process has exited, exit code 5)" {
		t.Errorf("send to an ended process: %v", err)
	}

	// Without a pipe.
	res = startBackground(t, w, ExecRequest{Command: "sleep 30"})
	pid = strconv.Itoa(res.PID)
	_, err = w.SendInput(ctx, SendInputRequest{PID: pid, Input: "x"})
	if err == nil || err.Error() != "process "+pid+" has no stdin pipe: start it with stdinPipe=true or tty=true (and background=true) to send it input" {
		t.Errorf("send without a pipe: %v", err)
	}
	_, err = w.SendInput(WithDialect(ctx, CLIFlags), SendInputRequest{PID: pid, EOF: boolp(true)})
	if err == nil || !strings.Contains(err.Error(), "start it with ws exec --background --stdin-pipe") {
		t.Errorf("eof without a pipe: %v", err)
	}
	_, err = w.Kill(ctx, KillRequest{PID: pid})
	must(t, err)
	if _, err := w.SendInput(ctx, SendInputRequest{PID: "999999", Input: "x"}); err == nil || err.Error() != "No background process found with PID 999999." {
		t.Errorf("unknown pid: %v", err)
	}
	_, err = w.Exec(ctx, ExecRequest{Command: "cat", StdinPipe: boolp(true)})
	if errs.CodeOf(err) != errs.InvalidArgument || err.Error() != "stdinPipe: needs background=true" {
		t.Errorf("stdinPipe in the foreground: %v", err)
	}
}

// TestStdinPipeEOFAlone closes the stdin of a process that waits for it,
// and eof twice is not an error. A process that never reads does not
// hold the sender: its stdin still closes.
func TestStdinPipeEOFAlone(t *testing.T) {
	w := newSupervisedWorkspace(t, nil)
	ctx := context.Background()
	res := startBackground(t, w, ExecRequest{Command: "cat; echo eof", StdinPipe: boolp(true)})
	pid := strconv.Itoa(res.PID)
	for range 2 {
		r, err := w.SendInput(ctx, SendInputRequest{PID: pid, EOF: boolp(true)})
		if err != nil && !strings.Contains(err.Error(), "has exited") {
			t.Fatal(err)
		}
		if err == nil && r.Text() != "Closed the stdin of process "+pid+"." {
			t.Errorf("eof: %q", r.Text())
		}
	}
	out, err := w.ProcessOutput(ctx, ProcessOutputRequest{PID: pid, WaitTimeout: f64(20)})
	must(t, err)
	if out.Text() != "eof\n\n\nExit code: 0" {
		t.Errorf("after eof: %q", out.Text())
	}
}

// TestSinceLastAndFilter: each thread sees new output once; a filter
// keeps matching lines; waitTimeout alone waits.
func TestSinceLastAndFilter(t *testing.T) {
	w := newSupervisedWorkspace(t, nil)
	ctx := context.Background()
	res := startBackground(t, w, ExecRequest{Command: `echo a1; echo b1; while [ ! -e go ]; do sleep 0.02; done; echo a2; echo e2 >&2`})
	pid := strconv.Itoa(res.PID)
	waitOutput(t, w, pid, "b1")
	since := func(w *Workspace, filter string) string {
		t.Helper()
		r, err := w.ProcessOutput(ctx, ProcessOutputRequest{PID: pid, SinceLast: boolp(true), Filter: filter})
		must(t, err)
		return r.Text()
	}
	other, err := New(Options{Root: w.base, Config: w.cfg, StateDir: w.stateDir, Thread: "other"})
	must(t, err)
	t.Cleanup(func() { other.Close() })
	// Plain reads (waitOutput's) do not move the cursor.
	if got := since(w, ""); got != "a1\nb1\n" {
		t.Errorf("first since-last read: %q", got)
	}
	if got := since(w, ""); got != "(no new output yet)" {
		t.Errorf("nothing new: %q", got)
	}
	if got := since(other, "^a"); got != "a1\n" {
		t.Errorf("other thread, filtered: %q", got)
	}
	if got := since(other, ""); got != "(no new output yet)" {
		t.Errorf("other thread again: %q", got)
	}
	must(t, os.WriteFile(filepath.Join(w.base, "go"), nil, 0o644))
	r, err := w.ProcessOutput(ctx, ProcessOutputRequest{PID: pid, WaitTimeout: f64(20), SinceLast: boolp(true)})
	must(t, err)
	if r.Text() != "stdout:\na2\n\n\nstderr:\ne2\n\n\nExit code: 0" || r.State != "exited" {
		t.Errorf("new output after the wait: %q", r.Text())
	}
	if got := since(w, ""); got != "(no new output)\n\nExit code: 0" {
		t.Errorf("nothing new after the end: %q", got)
	}
	if got := since(other, "nomatch"); got != "(no new matching output)\n\nExit code: 0" {
		t.Errorf("no match: %q", got)
	}
	r, err = w.ProcessOutput(ctx, ProcessOutputRequest{PID: pid, Filter: "2$"})
	must(t, err)
	if r.Text() != "stdout:\na2\n\n\nstderr:\ne2\n\n\nExit code: 0" {
		t.Errorf("filter of everything: %q", r.Text())
	}
	_, err = w.ProcessOutput(ctx, ProcessOutputRequest{PID: pid, Filter: "("})
	if errs.CodeOf(err) != errs.InvalidPattern || !strings.HasPrefix(err.Error(), "filter is not a valid regular expression: ") {
		t.Errorf("bad filter: %v", err)
	}
}

// TestFollow streams output as it comes until the process exits, and
// stops at the wait's end while it runs.
func TestFollow(t *testing.T) {
	w := newSupervisedWorkspace(t, nil)
	ctx := context.Background()
	res := startBackground(t, w, ExecRequest{Command: `echo old1; echo old2; while [ ! -e go ]; do sleep 0.02; done; printf 'new '; echo line; echo err >&2; exit 3`})
	pid := strconv.Itoa(res.PID)
	waitOutput(t, w, pid, "old2")
	var mu sync.Mutex
	var got []string
	emit := func(c FollowChunk) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, c.Stream+":"+string(c.Data))
		if strings.Contains(string(c.Data), "old2") {
			os.WriteFile(filepath.Join(w.base, "go"), nil, 0o644)
		}
		return nil
	}
	r, err := w.Follow(ctx, ProcessOutputRequest{PID: pid, Tail: intp(1)}, emit)
	must(t, err)
	all := strings.Join(got, "|")
	if r.Text() != "Exit code: 3" || !strings.HasPrefix(all, "stdout:old2\n|") || strings.Contains(all, "old1") ||
		!strings.Contains(all, "stderr:err\n") || !strings.Contains(strings.ReplaceAll(all, "|stdout:", ""), "new line\n") {
		t.Errorf("follow: %q then %q", all, r.Text())
	}
	// Following moved this thread's cursor: nothing is new for sinceLast.
	since, err := w.ProcessOutput(ctx, ProcessOutputRequest{PID: pid, SinceLast: boolp(true)})
	must(t, err)
	if since.Text() != "(no new output)\n\nExit code: 3" {
		t.Errorf("since-last after follow: %q", since.Text())
	}
	// A filter passes on whole matching lines only.
	got = nil
	_, err = w.Follow(ctx, ProcessOutputRequest{PID: pid, Tail: intp(0), Filter: "^new"}, emit)
	must(t, err)
	if strings.Join(got, "|") != "stdout:new line\n" {
		t.Errorf("filtered follow: %q", got)
	}
	// A running process: the wait runs out.
	res = startBackground(t, w, ExecRequest{Command: "echo tick; sleep 30"})
	got = nil
	r, err = w.Follow(ctx, ProcessOutputRequest{PID: strconv.Itoa(res.PID), WaitTimeout: f64(0.5)}, emit)
	must(t, err)
	if !r.StillRunning || r.Text() != "[still running after following 0.5s]" {
		t.Errorf("follow with a wait: %q %v", r.Text(), got)
	}
	w.Kill(ctx, KillRequest{PID: strconv.Itoa(res.PID)})
}

// TestKillSignals: TERM (default), INT and KILL stop a process, each
// reported by its status; other signals are only delivered.
func TestKillSignals(t *testing.T) {
	w := newSupervisedWorkspace(t, nil)
	ctx := context.Background()
	tests := []struct {
		signal string
		code   int
	}{{"", 143}, {"INT", 130}, {"sigkill", 137}, {"9", 137}, {"SIGTERM", 143}}
	for _, tt := range tests {
		// exec: the shell is the process, so its death is the status.
		res := startBackground(t, w, ExecRequest{Command: "echo up; exec sleep 30"})
		pid := strconv.Itoa(res.PID)
		waitOutput(t, w, pid, "up")
		r, err := w.Kill(ctx, KillRequest{PID: pid, Signal: tt.signal})
		must(t, err)
		if r.ExitCode == nil || *r.ExitCode != tt.code || !strings.HasSuffix(r.Text(), "Exit code: "+strconv.Itoa(tt.code)) {
			t.Errorf("kill --signal %q: %q", tt.signal, r.Text())
		}
	}
	res := startBackground(t, w, ExecRequest{Command: `trap 'echo hup' HUP; trap 'echo usr1' USR1; echo up; while :; do sleep 0.05; done`})
	pid := strconv.Itoa(res.PID)
	waitOutput(t, w, pid, "up")
	for _, sig := range []string{"HUP", "usr1"} {
		r, err := w.Kill(ctx, KillRequest{PID: pid, Signal: sig})
		must(t, err)
		want := "Sent SIG" + strings.ToUpper(sig) + " to process " + pid + " (and its process group)."
		if r.Text() != want || r.State != "running" {
			t.Errorf("signal %s: %q %s", sig, r.Text(), r.State)
		}
		waitOutput(t, w, pid, strings.ToLower(sig)+"\n")
	}
	for _, bad := range []string{"NOPE", "0", "65", "-1"} {
		if _, err := w.Kill(ctx, KillRequest{PID: pid, Signal: bad}); errs.CodeOf(err) != errs.InvalidArgument {
			t.Errorf("signal %q: %v", bad, err)
		}
	}
	r, err := w.Kill(ctx, KillRequest{PID: pid})
	must(t, err)
	if r.State != "killed" {
		t.Errorf("final kill: %s", r.State)
	}
}

// TestExecStdin gives a foreground command input, from a file or any
// reader.
func TestExecStdin(t *testing.T) {
	w := newSupervisedWorkspace(t, nil)
	ctx := context.Background()
	res, err := w.Exec(ctx, ExecRequest{Command: "tr a-z A-Z", Stdin: strings.NewReader("hello\n")})
	must(t, err)
	if res.Text() != "HELLO\n" {
		t.Errorf("reader: %q", res.Text())
	}
	path := filepath.Join(t.TempDir(), "in")
	must(t, os.WriteFile(path, []byte("x\ny\n"), 0o644))
	f, err := os.Open(path)
	must(t, err)
	defer f.Close()
	res, err = w.Exec(ctx, ExecRequest{Command: "wc -l", Stdin: f})
	must(t, err)
	if strings.TrimSpace(res.Text()) != "2" {
		t.Errorf("file: %q", res.Text())
	}
	// A command that reads nothing does not wait for a reader that never ends.
	pr, pw, err := os.Pipe()
	must(t, err)
	defer pw.Close()
	defer pr.Close()
	res, err = w.Exec(ctx, ExecRequest{Command: "echo no read", Stdin: struct{ *os.File }{pr}})
	must(t, err)
	if res.Text() != "no read\n" {
		t.Errorf("unread: %q", res.Text())
	}
	_, err = w.Exec(ctx, ExecRequest{Command: "cat", Stdin: bytes.NewReader(nil), Background: boolp(true)})
	if errs.CodeOf(err) != errs.InvalidArgument {
		t.Errorf("stdin in the background: %v", err)
	}
}

// TestExecSignalCause: a context cancelled by a signal to ws passes that
// signal on, so the command's status is the shell's 130 for INT.
func TestExecSignalCause(t *testing.T) {
	w := newSupervisedWorkspace(t, nil)
	for _, tt := range []struct {
		cause error
		code  int
	}{{&runner.SignalError{Signal: syscall.SIGINT}, 130}, {&runner.SignalError{Signal: syscall.SIGTERM}, 143}, {errors.New("stop"), 143}} {
		ctx, cancel := context.WithCancelCause(context.Background())
		time.AfterFunc(300*time.Millisecond, func() { cancel(tt.cause) })
		res, err := w.Exec(ctx, ExecRequest{Command: "exec sleep 30"})
		must(t, err)
		if *res.ExitCode != tt.code {
			t.Errorf("cause %v: exit %d, want %d", tt.cause, *res.ExitCode, tt.code)
		}
	}
}

// TestFollowDropped: output dropped over the cap before it could be
// followed is said so, filter or not.
func TestFollowDropped(t *testing.T) {
	cfg := config.Default()
	cfg.Sandbox.BackgroundOutputBytes = 1000
	w := newSupervisedWorkspace(t, cfg)
	res := startBackground(t, w, ExecRequest{Command: "seq 1 2000"})
	pid := strconv.Itoa(res.PID)
	_, err := w.ProcessOutput(context.Background(), ProcessOutputRequest{PID: pid, WaitTimeout: f64(20)})
	must(t, err)
	var got []string
	_, err = w.Follow(context.Background(), ProcessOutputRequest{PID: pid, Tail: intp(0), Filter: "^1999$"}, func(c FollowChunk) error {
		got = append(got, string(c.Data))
		return nil
	})
	must(t, err)
	if len(got) != 1 || !strings.HasPrefix(got[0], "[") || !strings.Contains(got[0], " bytes of output were dropped (over the per-stream cap)]\n") ||
		!strings.HasSuffix(got[0], "]\n1999\n") {
		t.Errorf("follow of a capped log: %q", got)
	}
}

// TestFollowReadsWhatIsNew: following a quiet process that has already
// written a large log reads only the end of it for --tail and then only
// what is new at each poll, not the whole log (it once read both logs in
// full every 100 ms: hundreds of MB for a 50 MB log).
func TestFollowReadsWhatIsNew(t *testing.T) {
	w := newSupervisedWorkspace(t, nil)
	ctx := context.Background()
	res := startBackground(t, w, ExecRequest{Command: `head -c 20000000 /dev/zero | tr '\0' a | fold -w 100; echo; echo done; sleep 30`})
	pid := strconv.Itoa(res.PID)
	defer w.Kill(ctx, KillRequest{PID: pid})
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		r, err := w.ProcessOutput(ctx, ProcessOutputRequest{PID: pid, Tail: intp(1)})
		must(t, err)
		if strings.Contains(r.Text(), "done") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the 20 MB log was not written in time: %q", r.Text())
		}
	}
	var got []string
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := w.Follow(ctx, ProcessOutputRequest{PID: pid, Tail: intp(1), WaitTimeout: f64(1)}, func(c FollowChunk) error {
		got = append(got, c.Stream+":"+string(c.Data))
		return nil
	})
	runtime.ReadMemStats(&after)
	must(t, err)
	if !r.StillRunning || strings.Join(got, "|") != "stdout:done\n" {
		t.Errorf("follow of a quiet process: %q then %q", got, r.Text())
	}
	// About ten polls of a 20 MB log: reading it once would allocate
	// 20 MB; the tail window and the polls need well under 4 MB.
	if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
		t.Errorf("following allocated %d bytes; want under 4 MiB (the log is read again)", n)
	}
}

// TestSendInputTimeout: a send to a process that does not read its stdin
// fails after the timeout (not never), with TIMEOUT and the number of
// bytes that went in, naming the setting in the caller's terms; what went
// in before is still read once the process reads.
func TestSendInputTimeout(t *testing.T) {
	w := newSupervisedWorkspace(t, nil)
	ctx := context.Background()
	res := startBackground(t, w, ExecRequest{Command: `while [ ! -e go ]; do sleep 0.02; done; wc -c`, StdinPipe: boolp(true)})
	pid := strconv.Itoa(res.PID)
	defer w.Kill(ctx, KillRequest{PID: pid})
	big := strings.Repeat("x", 4<<20)
	sent := 0
	for _, tt := range []struct {
		ctx  context.Context
		flag string
	}{{ctx, "set timeout"}, {WithDialect(ctx, CLIFlags), "set --timeout"}} {
		start := time.Now()
		_, err := w.SendInput(tt.ctx, SendInputRequest{PID: pid, Input: big, Timeout: f64(0.3)})
		msg := fmt.Sprint(err)
		if errs.CodeOf(err) != errs.Timeout || !strings.HasPrefix(msg, "process "+pid+" took no input for 0.3s: ") ||
			!strings.Contains(msg, " bytes went in and the rest was not sent (is it reading its stdin?); "+tt.flag+" to wait longer, 0 for no limit") {
			t.Errorf("send to a process that does not read: %v", err)
		}
		n := -1
		fmt.Sscanf(strings.TrimPrefix(msg, "process "+pid+" took no input for 0.3s: "), "%d", &n)
		if n < 0 || n >= len(big) {
			t.Errorf("bytes that went in: %d", n)
		}
		sent += n
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("the send took %v", d)
		}
	}
	// The timeout is a parameter of the tool (a ws tool: offered with wsTools).
	cfg := config.Default()
	cfg.Tools.WSTools = true
	w.cfg = cfg
	_, _, err := w.Call(ctx, SendInput, []byte(`{"pid":"`+pid+`","input":"y","timeout":0.2}`))
	if errs.CodeOf(err) != errs.Timeout || !strings.Contains(err.Error(), ": 0 bytes went in") {
		t.Errorf("send_input with a timeout, pipes full: %v", err)
	}
	// Once the process reads, it gets exactly what the errors counted.
	must(t, os.WriteFile(filepath.Join(w.base, "go"), nil, 0o644))
	_, err = w.SendInput(ctx, SendInputRequest{PID: pid, EOF: boolp(true)})
	must(t, err)
	out, err := w.ProcessOutput(ctx, ProcessOutputRequest{PID: pid, WaitTimeout: f64(20)})
	must(t, err)
	if got := strings.TrimSpace(strings.Split(out.Text(), "\n")[0]); got != strconv.Itoa(sent) {
		t.Errorf("the process read %q bytes; the errors counted %d", got, sent)
	}
}

// kill signals each process of the command's group once: a second TERM
// or INT is what many programs take as "stop now, skip the clean-up".
// (The supervisor also signals the descendants that left the group; it
// signalled the group's members a second time.)
func TestKillSignalsOnce(t *testing.T) {
	w := newSupervisedWorkspace(t, nil)
	for _, sig := range []string{"TERM", "INT"} {
		res := startBackground(t, w, ExecRequest{Command: `exec perl -e '$| = 1; $n = 0; $SIG{` + sig +
			`} = sub { $n++; print "got $n\n" }; print "up\n"; sleep 1 while 1'`})
		pid := strconv.Itoa(res.PID)
		waitOutput(t, w, pid, "up\n")
		r, err := w.Kill(context.Background(), KillRequest{PID: pid, Signal: sig})
		must(t, err)
		if !strings.Contains(r.Text(), "got 1\n") || strings.Contains(r.Text(), "got 2") {
			t.Errorf("kill --signal %s: %q, want the signal handled once", sig, r.Text())
		}
	}
}

// kill --signal KILL while another kill (or the timeout) waits out the
// grace period after TERM: the KILL is sent at once, not when the grace
// ends (here a minute, well past what the KILL waits for).
func TestKillNowDuringGrace(t *testing.T) {
	defer func(g time.Duration) { backgroundGrace = g }(backgroundGrace)
	backgroundGrace = time.Minute
	w := newSupervisedWorkspace(t, nil)
	pid := startRunning(t, w, ExecRequest{Command: `trap 'echo got TERM' TERM; echo up; while :; do sleep 0.05; done`}, "up\n")
	term := make(chan struct{})
	go func() {
		defer close(term)
		if w2 := reopen(t, w); w2 != nil {
			w2.Kill(context.Background(), KillRequest{PID: pid})
		}
	}()
	waitOutput(t, w, pid, "got TERM")
	r, err := w.Kill(context.Background(), KillRequest{PID: pid, Signal: "KILL"})
	must(t, err)
	if r.ExitCode == nil || *r.ExitCode != 137 {
		t.Errorf("kill --signal KILL during the grace: %q, want it killed, exit code 137", r.Text())
	}
	<-term
}

// TestTTY drives a command on a terminal: send types into it (echoed),
// eof sends ^D without closing anything (cat ends its input at the
// start of a line, and a second cat reads on), kill stops it, the data
// says tty, and tty without background is refused in both dialects.
func TestTTY(t *testing.T) {
	w := newSupervisedWorkspace(t, nil)
	ctx := context.Background()
	res := startBackground(t, w, ExecRequest{Command: `test -t 0 && echo on a tty; cat; echo first done; cat; echo second done`, TTY: boolp(true)})
	pid := strconv.Itoa(res.PID)
	waitOutput(t, w, pid, "on a tty\n")
	r, err := w.SendInput(ctx, SendInputRequest{PID: pid, Input: "hello\n", EOF: boolp(true)})
	must(t, err)
	if r.Text() != "Sent 6 bytes to process "+pid+", then EOF (^D) to its terminal." || r.Closed || !r.TTY || r.Bytes != 6 {
		t.Errorf("send with eof: %q %+v", r.Text(), r)
	}
	// The line twice: the terminal's echo, then cat's copy.
	waitOutput(t, w, pid, "hello\nhello\nfirst done\n")
	r, err = w.SendInput(ctx, SendInputRequest{PID: pid, Input: "again\n"})
	must(t, err)
	if r.Text() != "Sent 6 bytes to process "+pid+"." {
		t.Errorf("send after eof: %q", r.Text())
	}
	waitOutput(t, w, pid, "again\nagain\n")
	r, err = w.SendInput(ctx, SendInputRequest{PID: pid, EOF: boolp(true)})
	must(t, err)
	if r.Text() != "Sent EOF (^D) to the terminal of process "+pid+"." || r.Bytes != 0 {
		t.Errorf("eof alone: %q", r.Text())
	}
	out, err := w.ProcessOutput(ctx, ProcessOutputRequest{PID: pid, WaitTimeout: f64(20)})
	must(t, err)
	if want := "on a tty\nhello\nhello\nfirst done\nagain\nagain\nsecond done\n\n\nExit code: 0"; out.Text() != want || !out.TTY || len(out.Stderr) != 0 {
		t.Errorf("output %q (tty %v, stderr %q), want %q", out.Text(), out.TTY, out.Stderr, want)
	}

	pid = startRunning(t, w, ExecRequest{Command: "echo up; exec sleep 30", TTY: boolp(true)}, "up\n")
	k, err := w.Kill(ctx, KillRequest{PID: pid})
	must(t, err)
	if want := "Process " + pid + " has been killed.\n\n--- terminal (last output) ---\nup\n\n\nExit code: 143"; k.Text() != want {
		t.Errorf("kill: %q, want %q", k.Text(), want)
	}

	_, err = w.Exec(ctx, ExecRequest{Command: "cat", TTY: boolp(true)})
	if errs.CodeOf(err) != errs.InvalidArgument || err.Error() != "tty: needs background=true" {
		t.Errorf("tty in the foreground: %v", err)
	}
	_, err = w.Exec(WithDialect(ctx, CLIFlags), ExecRequest{Command: "cat", TTY: boolp(true)})
	if errs.CodeOf(err) != errs.InvalidArgument || !strings.HasPrefix(err.Error(), "--tty: needs --background") {
		t.Errorf("--tty in the foreground: %v", err)
	}
}
