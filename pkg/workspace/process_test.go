package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/procstate"
)

// A wait or a follow whose process record is removed meanwhile (ws
// destroy, or ws ps --prune once the process ended) ends with one clear
// error that says so, without the state directory's path; before, it was
// the raw "state directory: open …/record.json: no such file or
// directory". Nothing of the record is made again (a follow's cursor used
// to create the record's directory anew).
func TestOutputOfRemovedRecord(t *testing.T) {
	for _, follow := range []bool{false, true} {
		t.Run(map[bool]string{false: "wait", true: "follow"}[follow], func(t *testing.T) {
			w := newSupervisedWorkspace(t, nil)
			res := startBackground(t, w, ExecRequest{Command: "echo hi; exec sleep 30"})
			pid := strconv.Itoa(res.PID)
			waitOutput(t, w, pid, "hi\n")
			e, err := w.processOf(pid)
			must(t, err)
			t.Cleanup(func() {
				syscall.Kill(-e.Record.PGID, syscall.SIGKILL)
				syscall.Kill(e.Record.SupervisorPID, syscall.SIGKILL)
			})
			done := make(chan error, 1)
			go func() {
				var err error
				if follow {
					_, err = w.Follow(context.Background(), ProcessOutputRequest{PID: pid, SinceLast: boolp(true)},
						func(FollowChunk) error { return nil })
				} else {
					_, err = w.ProcessOutput(context.Background(), ProcessOutputRequest{PID: pid, Wait: boolp(true)})
				}
				done <- err
			}()
			time.Sleep(300 * time.Millisecond)
			dir := w.procStore().Dir(e.Record.ID)
			must(t, os.RemoveAll(dir))
			select {
			case err = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("the wait did not end when the record was removed")
			}
			want := "the record of process " + pid + " was removed while ws was reading it (by ws destroy, or ws ps --prune), so its output and exit code are gone"
			var we *errs.Error
			if !errors.As(err, &we) || we.Code != errs.RecordRemoved || err.Error() != want {
				t.Fatalf("got %v (%s), want %s %q", err, errs.CodeOf(err), errs.RecordRemoved, want)
			}
			if strings.Contains(err.Error(), w.stateDir) {
				t.Errorf("the message names the state directory: %q", err)
			}
			// Give a late cursor write its chance: the directory stays gone.
			time.Sleep(200 * time.Millisecond)
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the record directory came back: %v", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "seen")); err == nil {
				t.Error("a cursor was written into the removed record")
			}
		})
	}
}

// A timeout under a millisecond is kept (a background one was whole
// milliseconds in its spec, so 0.4 ms became 0, no timeout at all), and
// a positive one under a nanosecond is a nanosecond, never none.
func TestSubMillisecondTimeout(t *testing.T) {
	w := newSupervisedWorkspace(t, nil)
	ctx := context.Background()
	for _, tt := range []struct {
		secs float64
		ms   string
	}{{0.0004, "0.4"}, {1e-12, "0.000001"}} {
		res := startBackground(t, w, ExecRequest{Command: "sleep 5", Timeout: f64(tt.secs)})
		out, err := w.ProcessOutput(ctx, ProcessOutputRequest{PID: strconv.Itoa(res.PID), Wait: boolp(true), WaitTimeout: f64(10)})
		must(t, err)
		want := "stderr:\n\nProcess timed out after " + tt.ms + "ms\n\nExit code: 124"
		if out.Text() != want || out.State != "timed_out" {
			t.Errorf("background --timeout %v: %q (%s), want %q", tt.secs, out.Text(), out.State, want)
		}
		fg, err := w.Exec(ctx, ExecRequest{Command: "sleep 5", Timeout: f64(tt.secs)})
		must(t, err)
		if fg.ExitCode == nil || *fg.ExitCode != 124 || !strings.Contains(fg.Text(), "Process timed out after "+tt.ms+"ms") {
			t.Errorf("foreground --timeout %v: %q", tt.secs, fg.Text())
		}
	}
}

// ps-output (and kill) read only the end of a log that the text shows:
// the text is what reading the whole stream gave, and the data holds the
// lines shown (before, the whole kept stream, up to 64 MiB, was read and
// put in the data on every call).
func TestOutputReadsTheTail(t *testing.T) {
	w, _ := newTestWorkspace(t, nil)
	long := strings.Repeat("x", 300<<10) // longer than the first window
	var many strings.Builder
	for i := range 3000 {
		many.WriteString(strconv.Itoa(i) + "\n")
	}
	tests := []struct {
		name, out string
		logCap    int64
		tail      int
		shown     string // the data: the last tail lines
	}{
		{"cut", "a\nb\nc\n", 1 << 20, 2, "b\nc\n"},
		{"no final newline", "a\nb\nc", 1 << 20, 2, "b\nc"},
		{"all", "a\nb\n", 1 << 20, 5, "a\nb\n"},
		{"empty lines", "\n\n\n", 1 << 20, 1, "\n"},
		{"not UTF-8", "caf\xe9\nna\xefve\nend\n", 1 << 20, 2, "na\xefve\nend\n"},
		{"a long line", "first\n" + long + "\nlast\n", 1 << 20, 2, long + "\nlast\n"},
		{"dropped", many.String(), 4000, 3, "2997\n2998\n2999\n"},
		{"many lines", many.String(), 1 << 20, 200, many.String()[len(many.String())-len(strings.Join(strings.Split(many.String(), "\n")[2800:], "\n")):]},
		{"nothing", "", 1 << 20, 200, ""},
	}
	for i, tt := range tests {
		pid := endedWith(t, w, 100+i, tt.logCap, func(l *procstate.Log) { l.Write([]byte(tt.out)) })
		dir := w.procStore().Dir(strconv.Itoa(100+i) + "-1")
		all, dropped, err := procstate.ReadLog(dir, "stdout.log")
		must(t, err)
		hint := tailHint(CLIFlags, false)
		want := cutStream(all, tt.tail, defaultExecTok).text(dropped, cutHints{tail: hint, limit: logHint(dir, "stdout.log")})
		if want == "" {
			want = "(no output)"
		}
		want += "\n\nExit code: 0"
		ctx := WithDialect(context.Background(), CLIFlags)
		res, err := w.ProcessOutput(ctx, ProcessOutputRequest{PID: pid, Tail: intp(tt.tail)})
		must(t, err)
		if res.Text() != want {
			t.Errorf("%s: text\n%q\nwant\n%q", tt.name, res.Text(), want)
		}
		if string(res.Stdout) != tt.shown {
			t.Errorf("%s: data %d bytes %q…, want the %d bytes shown", tt.name, len(res.Stdout), string(res.Stdout)[:min(len(res.Stdout), 40)], len(tt.shown))
		}
	}
}

// A kill whose wait for the exit runs out does not claim the process was
// killed: it says that it may still be running, and how to stop it at
// once. Before, it said "Process N has been killed." with no exit code.
func TestKillNotYetExited(t *testing.T) {
	defer func(g, k time.Duration) { backgroundGrace, killWait = g, k }(backgroundGrace, killWait)
	backgroundGrace, killWait = time.Minute, 300*time.Millisecond
	w := newSupervisedWorkspace(t, nil)
	pid := startRunning(t, w, ExecRequest{Command: `trap 'echo got TERM' TERM; echo up; while :; do sleep 0.05; done`}, "up\n")
	for _, tt := range []struct {
		d    Dialect
		want string
	}{
		{CLIFlags, "Process " + pid + " was sent SIGTERM and has not exited yet: it may still be running (ws ps shows its state; ws kill " + pid + " --signal KILL stops it at once)."},
		{JSONParams, "Process " + pid + " was sent SIGTERM and has not exited yet: it may still be running (its output, read with wait, shows when it ends)."},
	} {
		r, err := w.Kill(WithDialect(context.Background(), tt.d), KillRequest{PID: pid})
		must(t, err)
		if first, _, _ := strings.Cut(r.Text(), "\n"); first != tt.want || r.ExitCode != nil || r.State != "running" {
			t.Errorf("kill that ran out of time: %q (%s), want first line %q", r.Text(), r.State, tt.want)
		}
		if !strings.Contains(r.Text(), "--- stdout (last output) ---\nup\n") {
			t.Errorf("no last output: %q", r.Text())
		}
	}
	r, err := w.Kill(context.Background(), KillRequest{PID: pid, Signal: "KILL"})
	must(t, err)
	if !strings.HasPrefix(r.Text(), "Process "+pid+" has been killed.\n") || r.ExitCode == nil || *r.ExitCode != 137 {
		t.Errorf("kill --signal KILL: %q", r.Text())
	}
}

// Without its supervisor (killed), kill signals the group itself: a
// process that ignores TERM gets KILL after the grace period, and the
// exit recorded is KILL's, 137 (before, always 128+TERM).
func TestKillWithoutSupervisorRecordsKill(t *testing.T) {
	w := newSupervisedWorkspace(t, nil)
	ctx := context.Background()
	for _, tt := range []struct {
		command string
		code    int
		signal  syscall.Signal
	}{
		{`trap '' TERM; echo up; while :; do sleep 0.05; done`, 137, syscall.SIGKILL},
		{`echo up; exec sleep 30`, 143, syscall.SIGTERM},
	} {
		pid := startRunning(t, w, ExecRequest{Command: tt.command}, "up\n")
		killSupervisor(t, w, pid)
		r, err := w.Kill(ctx, KillRequest{PID: pid})
		must(t, err)
		if r.ExitCode == nil || *r.ExitCode != tt.code || !strings.HasSuffix(r.Text(), "Exit code: "+strconv.Itoa(tt.code)) {
			t.Errorf("%s: kill without a supervisor: %q, want exit code %d", tt.command, r.Text(), tt.code)
		}
		if e, err := w.processOf(pid); err != nil || e.Exit == nil || e.Exit.Signal != int(tt.signal) {
			t.Errorf("%s: recorded %+v %v, want signal %d", tt.command, e.Exit, err, tt.signal)
		}
	}
}

// A send to a process whose supervisor was killed (nobody relays its
// input any more) says so; before, it blamed an eof or the process.
func TestSendSupervisorGone(t *testing.T) {
	w := newSupervisedWorkspace(t, nil)
	pid := startRunning(t, w, ExecRequest{Command: "echo up; exec sleep 30", StdinPipe: boolp(true)}, "up\n")
	killSupervisor(t, w, pid)
	for _, eof := range []bool{false, true} {
		_, err := w.SendInput(context.Background(), SendInputRequest{PID: pid, Input: "hi", EOF: boolp(eof)})
		if want := "the stdin of process " + pid + " is closed (its supervisor is gone: it was killed, so nothing passes input on)"; err == nil || err.Error() != want {
			t.Errorf("send (eof %v) after the supervisor was killed: %v, want %q", eof, err, want)
		}
	}
}

// The token limit's notice names a log's one file, or once it has
// rotated its two parts, older first.
func TestLogHint(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "stdout.log"), []byte("x\n"), 0o600))
	if got, want := logHint(dir, "stdout.log"), "all of it is in "+filepath.Join(dir, "stdout.log"); got != want {
		t.Errorf("one part: %q, want %q", got, want)
	}
	must(t, os.WriteFile(filepath.Join(dir, "stdout.log.1"), []byte("x\n"), 0o600))
	if got, want := logHint(dir, "stdout.log"), "what is kept of it is in "+filepath.Join(dir, "stdout.log.1")+", then "+filepath.Join(dir, "stdout.log"); got != want {
		t.Errorf("rotated: %q, want %q", got, want)
	}
}
