package workspace

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/landlock"
	"github.com/wstools/ws/pkg/procstate"
	"github.com/wstools/ws/pkg/sandbox"
	"github.com/wstools/ws/pkg/statefile"
	"golang.org/x/sys/unix"
)

func f64(f float64) *float64 { return &f }

// startBackground starts req's command as a background process of w.
func startBackground(t *testing.T, w *Workspace, req ExecRequest) *ExecResult {
	t.Helper()
	req.Background = boolp(true)
	res, err := w.Exec(context.Background(), req)
	must(t, err)
	return res
}

// startRunning starts req's command as a background process of w and
// waits until its output holds up, the sign that it runs; it returns its
// pid as the tools take it. Its process group is killed when the test
// ends.
func startRunning(t *testing.T, w *Workspace, req ExecRequest, up string) string {
	t.Helper()
	res := startBackground(t, w, req)
	t.Cleanup(func() { syscall.Kill(-res.PID, syscall.SIGKILL) })
	pid := strconv.Itoa(res.PID)
	waitOutput(t, w, pid, up)
	return pid
}

// pidIn is the pid a test command wrote to the file name in w's root, 0
// while there is none.
func pidIn(w *Workspace, name string) int {
	data, _ := os.ReadFile(filepath.Join(w.base, name))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return pid
}

func TestExecText(t *testing.T) {
	tests := []struct {
		out, err string
		code     int
		want     string
	}{
		{"hi\n", "", 0, "hi\n"},
		{"", "oops\n", 0, "stderr:\noops\n"},
		{"", "", 0, "(no output)"},
		{"", "", 1, "Exit code: 1"},
		{"out\n", "err\n", 3, "stdout:\nout\n\n\nstderr:\nerr\n\nExit code: 3"},
		{"abc", "", 2, "abc\n\nExit code: 2"},
		{"abc\n\n", "", 2, "abc\n\nExit code: 2"},
		{"start\n", "\nProcess timed out after 1000ms", 124, "stdout:\nstart\n\n\nstderr:\n\nProcess timed out after 1000ms\n\nExit code: 124"},
	}
	for _, tt := range tests {
		if got := execText(tt.out, tt.err, tt.code); got != tt.want {
			t.Errorf("execText(%q, %q, %d) = %q, want %q", tt.out, tt.err, tt.code, got, tt.want)
		}
	}
}

// A kept run's hint names its log file, quoted for a shell where the
// state directory's path needs it; served to a ws on another machine it
// names no file, which is not there.
func TestKeptHint(t *testing.T) {
	tests := []struct {
		dir    string
		stream int
		remote bool
		want   string
	}{
		{"/s/procs/42-7", 0, false, "all of it is kept in /s/procs/42-7/stdout.log (ws ps-output 42 --filter RE searches it)"},
		{"/s/procs/42-7", 1, false, "all of it is kept in /s/procs/42-7/stderr.log (ws ps-output 42 --filter RE searches it)"},
		{"/my state/procs/42-7", 0, false, "all of it is kept in '/my state/procs/42-7/stdout.log' (ws ps-output 42 --filter RE searches it)"},
		{"/s/procs/42-7", 0, true, "all of it is kept: ws ps-output 42 --filter RE searches it, --tail 0 shows it"},
	}
	for _, tt := range tests {
		if got := keptHint(tt.dir, tt.stream, 42, tt.remote); got != tt.want {
			t.Errorf("keptHint(%q, %d, remote %v) = %q, want %q", tt.dir, tt.stream, tt.remote, got, tt.want)
		}
	}
}

func TestStripTailPipe(t *testing.T) {
	tests := []struct {
		in, cmd string
		n       int
		ok      bool
	}{
		{"seq 1 10 | tail -3", "seq 1 10", 3, true},
		{"seq 1 10 | tail -n 2", "seq 1 10", 2, true},
		{"seq 1 10 |tail 5  ", "seq 1 10", 5, true},
		{"seq 1 10 | tail -0", "seq 1 10 | tail -0", 0, false},
		{"seq 1 10 | tail -n3", "seq 1 10 | tail -n3", 0, false},
		{"seq 1 10 | tail -f", "seq 1 10 | tail -f", 0, false},
		{"tail -3 file", "tail -3 file", 0, false},
	}
	for _, tt := range tests {
		cmd, n, ok := stripTailPipe(tt.in)
		if cmd != tt.cmd || n != tt.n || ok != tt.ok {
			t.Errorf("stripTailPipe(%q) = %q, %d, %v", tt.in, cmd, n, ok)
		}
	}
	// The hand-written reader is the regexp it replaced, on commands made
	// of the pieces that regexp reads.
	re := regexp.MustCompile(`\|\s*tail\s+(?:-n\s+)?(-?\d+)\s*$`)
	pieces := []string{"|", " ", "\t", "\v", "tail", "-n", "-", "0", "7", "12", "x", "ls", "\n"}
	rng := rand.New(rand.NewSource(1))
	for range 200_000 {
		var b strings.Builder
		for range rng.Intn(9) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		in := b.String()
		want, wantN, wantOK := in, 0, false
		if m := re.FindStringSubmatchIndex(in); m != nil {
			if n, err := strconv.ParseFloat(in[m[2]:m[3]], 64); err == nil && n != 0 {
				want, wantN, wantOK = strings.TrimSpace(in[:m[0]]), int(min(math.Abs(n), 1<<31)), true
			}
		}
		if cmd, n, ok := stripTailPipe(in); cmd != want || n != wantN || ok != wantOK {
			t.Fatalf("stripTailPipe(%q) = %q, %d, %v; the regexp gives %q, %d, %v", in, cmd, n, ok, want, wantN, wantOK)
		}
	}
}

func TestExecForeground(t *testing.T) {
	w, root := newTestWorkspace(t, nil, "src/x")
	w.hostEnv = []string{"PATH=" + os.Getenv("PATH"), "HOME=/home/u", "SECRET_TOKEN=s3cret", "LANG=C.UTF-8"}
	ctx := context.Background()
	run := func(req ExecRequest) *ExecResult {
		t.Helper()
		res, err := w.Exec(ctx, req)
		if err != nil {
			t.Fatalf("%q: %v", req.Command, err)
		}
		return res
	}
	if r := run(ExecRequest{Command: `echo "[$HOME][$SECRET_TOKEN][$LANG][$X]"`, Env: []string{"X=1"}}); r.Text() != "[/home/u][][C.UTF-8][1]\n" {
		t.Errorf("environment: %q", r.Text())
	}
	if r := run(ExecRequest{Command: "pwd", Cwd: "src"}); r.Text() != filepath.Join(root, "src")+"\n" {
		t.Errorf("cwd: %q", r.Text())
	}
	if _, err := w.Exec(ctx, ExecRequest{Command: "pwd", Cwd: "/"}); errs.CodeOf(err) != errs.OutsideWorkspace {
		t.Errorf("cwd outside the workspace: %v", err)
	}
	if r := run(ExecRequest{Command: "kill -TERM $$"}); *r.ExitCode != 143 || r.Text() != "Exit code: 143" {
		t.Errorf("signal death: %d %q", *r.ExitCode, r.Text())
	}
	if r := run(ExecRequest{Command: "seq 1 500"}); !strings.HasPrefix(r.Text(), "[showing last 200 of 500 lines]\n301\n") {
		t.Errorf("default tail: %q", r.Text()[:40])
	}
	if r := run(ExecRequest{Command: "seq 1 5", Tail: intp(-2)}); r.Text() != "[showing last 2 of 5 lines]\n4\n5\n" {
		t.Errorf("tail -2: %q", r.Text())
	}
}

// A child left running with `&` that holds stdout must not hang exec.
func TestExecGrandchildHoldingStdout(t *testing.T) {
	w, _ := newTestWorkspace(t, nil)
	start := time.Now()
	res, err := w.Exec(context.Background(), ExecRequest{Command: "sleep 30 & echo started"})
	must(t, err)
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("exec took %v with a grandchild holding stdout", d)
	}
	if res.Text() != "started\n" || *res.ExitCode != 0 {
		t.Fatalf("got %q (exit %d)", res.Text(), *res.ExitCode)
	}
	// Even a child that ignores TERM is gone once exec returns (KILL after the grace).
	// (The outer shell waits until the child ignores TERM, or the TERM
	// could arrive first.) Its output goes elsewhere: the pipes do not
	// keep ws waiting, only the group does.
	res, err = w.Exec(context.Background(), ExecRequest{
		Command: "sh -c 'trap \"\" TERM; : > ready; exec sleep 30' >/dev/null 2>&1 & echo $! > pid; while [ ! -e ready ]; do :; done; echo ok"})
	must(t, err)
	if pid := pidIn(w, "pid"); pid > 0 && !gone(pid, 2*time.Second) {
		t.Errorf("child %d that ignores TERM survived exec", pid)
	}
}

// A timeout stops the whole group: nothing the command started survives.
func TestExecTimeoutLeavesNoSurvivor(t *testing.T) {
	w, _ := newTestWorkspace(t, nil)
	start := time.Now()
	res, err := w.Exec(context.Background(), ExecRequest{
		Command: "trap '' TERM; (sleep 30 & echo $! > child; wait) & echo $$ > shell; sleep 30", Timeout: f64(0.3)})
	must(t, err)
	if *res.ExitCode != 124 || !res.TimedOut {
		t.Fatalf("exit %d timed out %v", *res.ExitCode, res.TimedOut)
	}
	if !strings.Contains(res.Text(), "Process timed out after 300ms\n\nExit code: 124") {
		t.Fatalf("text %q", res.Text())
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Fatalf("took %v", d)
	}
	for _, f := range []string{"shell", "child"} {
		pid := pidIn(w, f)
		if pid <= 0 {
			t.Fatalf("no pid in %s", f)
		}
		if !gone(pid, 2*time.Second) {
			t.Errorf("%s process %d survived the timeout", f, pid)
		}
	}
}

func TestBackgroundLifecycle(t *testing.T) {
	w := newSupervisedWorkspace(t, nil)
	ctx := context.Background()
	res := startBackground(t, w, ExecRequest{Command: "echo bgstart; sleep 0.3; echo bgend; exit 7"})
	if res.Text() != fmt.Sprintf("Started background process (PID: %d)", res.PID) {
		t.Fatalf("start text %q", res.Text())
	}
	pid := strconv.Itoa(res.PID)
	out, err := w.ProcessOutput(ctx, ProcessOutputRequest{PID: pid, Wait: boolp(true)})
	must(t, err)
	if out.Text() != "bgstart\nbgend\n\n\nExit code: 7" {
		t.Fatalf("wait: %q", out.Text())
	}
	// Read again: the record stays, the exit code is still shown.
	out, err = w.ProcessOutput(ctx, ProcessOutputRequest{PID: pid})
	must(t, err)
	if out.Text() != "bgstart\nbgend\n\n\nExit code: 7" || out.State != "exited" {
		t.Fatalf("second read: %q %s", out.Text(), out.State)
	}
	if _, err := w.Kill(ctx, KillRequest{PID: pid}); err == nil || err.Error() != "Process "+pid+" was not found or had already exited." {
		t.Fatalf("kill of an exited process: %v", err)
	}
	// A silent process that exited shows its exit code (Mastra: "(no output yet)").
	res = startBackground(t, w, ExecRequest{Command: "true"})
	out, err = w.ProcessOutput(ctx, ProcessOutputRequest{PID: strconv.Itoa(res.PID), Wait: boolp(true)})
	must(t, err)
	if out.Text() != "(no output)\n\nExit code: 0" {
		t.Fatalf("silent: %q", out.Text())
	}
	// Wait with a timeout on a long process.
	res = startBackground(t, w, ExecRequest{Command: "echo s1; echo e1 1>&2; sleep 30"})
	pid = strconv.Itoa(res.PID)
	out, err = w.ProcessOutput(ctx, ProcessOutputRequest{PID: pid, Wait: boolp(true), WaitTimeout: f64(0.2)})
	must(t, err)
	if !strings.HasSuffix(out.Text(), "\n\n[still running after waiting 0.2s; call again to keep waiting]") {
		t.Fatalf("wait timeout: %q", out.Text())
	}
	// The short wait may end before the shell has written anything: the
	// kill's report of the last output is checked once both lines are in.
	waitOutput(t, w, pid, "s1\n")
	waitOutput(t, w, pid, "e1\n")
	k, err := w.Kill(ctx, KillRequest{PID: pid})
	must(t, err)
	want := "Process " + pid + " has been killed.\n\n--- stdout (last output) ---\ns1\n\n\n--- stderr (last output) ---\ne1\n\n\nExit code: 143"
	if k.Text() != want {
		t.Fatalf("kill:\n%q\nwant\n%q", k.Text(), want)
	}
	if procstate.GroupAlive(res.PID) {
		t.Fatal("process group still alive after kill")
	}
	ps, err := w.PS(ctx, PSRequest{Prune: boolp(true)})
	must(t, err)
	if len(ps.Pruned) != 3 || len(ps.Processes) != 0 {
		t.Fatalf("prune: %+v", ps)
	}
	if _, err := w.ProcessOutput(ctx, ProcessOutputRequest{PID: pid}); err == nil {
		t.Fatal("a pruned record still answers")
	}
}

func TestBackgroundTimeoutAndCap(t *testing.T) {
	cfg := config.Default()
	cfg.Sandbox.BackgroundOutputBytes = 1000
	w := newSupervisedWorkspace(t, cfg)
	ctx := context.Background()
	res := startBackground(t, w, ExecRequest{Command: "seq 1 2000"})
	out, err := w.ProcessOutput(ctx, ProcessOutputRequest{PID: strconv.Itoa(res.PID), Wait: boolp(true), Tail: intp(0)})
	must(t, err)
	if !strings.HasPrefix(out.Text(), "[") || !strings.Contains(out.Text(), "bytes of earlier output were dropped") ||
		!strings.HasSuffix(out.Text(), "\n1999\n2000\n\n\nExit code: 0") || len(out.Stdout) > 1000 {
		t.Fatalf("capped output (%d bytes kept): %q", len(out.Stdout), out.Text())
	}
	res = startBackground(t, w, ExecRequest{Command: "echo x; sleep 30", Timeout: f64(0.3)})
	out, err = w.ProcessOutput(ctx, ProcessOutputRequest{PID: strconv.Itoa(res.PID), Wait: boolp(true)})
	must(t, err)
	if out.Text() != "stdout:\nx\n\n\nstderr:\n\nProcess timed out after 300ms\n\nExit code: 124" || out.State != "timed_out" {
		t.Fatalf("background timeout: %q %s", out.Text(), out.State)
	}
}

// Twenty background starts at once are all recorded.
func TestBackgroundConcurrentStarts(t *testing.T) {
	w0, _ := newTestWorkspace(t, nil)
	pids := make(chan int, 20)
	inReopened(t, w0, 20, func(_ int, w *Workspace) {
		withSupervisor(t, w)
		res, err := w.Exec(context.Background(), ExecRequest{Command: "sleep 0.5", Background: boolp(true)})
		if err != nil {
			t.Error(err)
			return
		}
		pids <- res.PID
	})
	close(pids)
	ps, err := w0.PS(context.Background(), PSRequest{})
	must(t, err)
	seen := map[int]bool{}
	for _, p := range ps.Processes {
		seen[p.PID] = true
	}
	n := 0
	for pid := range pids {
		n++
		if !seen[pid] {
			t.Errorf("pid %d was not recorded", pid)
		}
	}
	if n != 20 || len(ps.Processes) != 20 {
		t.Fatalf("%d started, %d recorded", n, len(ps.Processes))
	}
}

// kill refuses a recorded pid whose start time no longer matches: the pid
// now belongs to another process, which must not be signalled.
func TestKillRefusesReusedPID(t *testing.T) {
	w := newSupervisedWorkspace(t, nil)
	victim := exec.Command("sleep", "30")
	must(t, victim.Start())
	defer victim.Process.Kill()
	start, err := procstate.StartTime(victim.Process.Pid)
	must(t, err)
	store := w.procStore()
	dir, err := store.NewDir()
	must(t, err)
	rec := &procstate.Record{PID: victim.Process.Pid, PGID: victim.Process.Pid, StartTime: start + 1, BootID: procstate.BootID(),
		Command: "sleep 30", Root: statefile.String(w.fs.RealBase()), StartedAt: time.Now()}
	must(t, store.Commit(dir, rec))
	_, err = w.Kill(context.Background(), KillRequest{PID: strconv.Itoa(victim.Process.Pid)})
	if err == nil || errs.CodeOf(err) != errs.ENOENT {
		t.Fatalf("kill of a reused pid: %v", err)
	}
	if victim.ProcessState != nil || syscall.Kill(victim.Process.Pid, 0) != nil {
		t.Fatal("the unrelated process was signalled")
	}
	// Another workspace's record is not ours to kill either.
	rec2 := *rec
	rec2.StartTime, rec2.Root = start, "/elsewhere"
	dir, _ = store.NewDir()
	must(t, store.Commit(dir, &rec2))
	if _, err := w.Kill(context.Background(), KillRequest{PID: strconv.Itoa(victim.Process.Pid)}); err == nil {
		t.Fatal("killed a process recorded by another workspace")
	}
}

// kill reaches descendants that left the process group (setsid): the
// supervisor is their subreaper and stops its whole tree.
func TestKillReachesEscapedDescendants(t *testing.T) {
	w := newSupervisedWorkspace(t, nil)
	ctx := context.Background()
	res := startBackground(t, w, ExecRequest{Command: "setsid sleep 30 & echo $! > escaped; sleep 30"})
	var pid int
	for deadline := time.Now().Add(5 * time.Second); pid == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		pid = pidIn(w, "escaped")
	}
	if pid == 0 {
		t.Fatal("the escaped child never wrote its pid")
	}
	if _, err := w.Kill(ctx, KillRequest{PID: strconv.Itoa(res.PID)}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			return
		}
	}
	t.Fatalf("the descendant %d that left the group survived kill", pid)
}

// gone waits until pid has exited (a zombie waiting to be reaped counts as
// exited: it runs nothing).
func gone(pid int, within time.Duration) bool {
	for deadline := time.Now().Add(within); ; time.Sleep(10 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			return true
		}
		if st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); strings.Contains(string(st), ") Z ") {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// startLeftover starts command in the background, waits for it to exit
// and returns its PID, its output and the PID of the process it left
// running, which it writes to the file "left"; that process is killed
// when the test ends.
func startLeftover(t *testing.T, w *Workspace, command string) (string, *ProcessOutputResult, int) {
	t.Helper()
	pid := strconv.Itoa(startBackground(t, w, ExecRequest{Command: command}).PID)
	out, err := w.ProcessOutput(context.Background(), ProcessOutputRequest{PID: pid, Wait: boolp(true)})
	must(t, err)
	left := pidIn(w, "left")
	if left == 0 || gone(left, 0) {
		t.Fatalf("the leftover process %d is not running", left)
	}
	t.Cleanup(func() { syscall.Kill(left, syscall.SIGKILL) })
	return pid, out, left
}

// A command that exited but left a process running (which keeps its
// supervisor around): kill stops the leftovers and says so.
func TestKillLeftovers(t *testing.T) {
	w := newSupervisedWorkspace(t, nil)
	ctx := context.Background()
	pid, out, left := startLeftover(t, w, "setsid sleep 30 > /dev/null 2>&1 & echo $! > left; exit 3")
	if !strings.HasSuffix(out.Text(), "Exit code: 3") {
		t.Fatalf("wait: %q", out.Text())
	}
	ps, err := w.PS(ctx, PSRequest{})
	must(t, err)
	if len(ps.Processes) != 1 || !ps.Processes[0].Leftovers || !strings.Contains(ps.Text(), "\texited*\t3\t") {
		t.Fatalf("ps: %q", ps.Text())
	}
	k, err := w.Kill(ctx, KillRequest{PID: pid})
	must(t, err)
	if k.Text() != "Process "+pid+" had already exited (exit code 3); the processes it left running have been stopped." {
		t.Fatalf("kill: %q", k.Text())
	}
	if !gone(left, 5*time.Second) {
		t.Fatalf("leftover %d survived", left)
	}
	if _, err := w.Kill(ctx, KillRequest{PID: pid}); err == nil {
		t.Fatal("a second kill found something to stop")
	}
}

// TestSandboxError: the sandbox's failures get their codes and Mastra-style
// messages; the chokepoint's errors pass as they are.
func TestSandboxError(t *testing.T) {
	escape := errs.Escape("access", "../x", nil)
	for _, tc := range []struct {
		name string
		err  error
		code errs.Code
		msg  string
	}{
		{name: "no bubblewrap", err: &sandbox.UnavailableError{Isolation: "bwrap", Err: exec.ErrNotFound}, code: errs.NotAvailable,
			msg: `sandbox isolation "bwrap" needs bubblewrap, but bwrap was not found; install the bubblewrap package or set sandbox.isolation to "none"`},
		{name: "no Landlock", err: &sandbox.UnavailableError{Isolation: "landlock", Err: fmt.Errorf("%w (function not implemented)", landlock.ErrUnavailable)},
			code: errs.NotAvailable,
			msg:  `sandbox isolation "landlock" is not available: this kernel offers no Landlock (function not implemented); use a kernel with Landlock enabled (Linux 5.13 or later, "landlock" in the lsm= boot list) or set sandbox.isolation to "bwrap" or "none"`},
		{name: "cwd not a directory", err: &sandbox.DirError{Dir: "a.txt", Err: sandbox.ErrNotDir}, code: errs.ENOTDIR,
			msg: "Path is not a directory: a.txt"},
		{name: "cwd missing", err: &sandbox.DirError{Dir: "none", Err: syscall.ENOENT}, code: errs.ENOENT,
			msg: "Directory not found: none"},
		{name: "the chokepoint's", err: escape, code: errs.CodeOf(escape), msg: escape.Error()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := sandboxError(tc.err)
			if errs.CodeOf(err) != tc.code || err.Error() != tc.msg {
				t.Errorf("%s: %q, want %s: %q", errs.CodeOf(err), err, tc.code, tc.msg)
			}
		})
	}
}

// The timeout of a background command also stops what it left running
// after its shell ended.
func TestBackgroundTimeoutStopsLeftovers(t *testing.T) {
	w := newSupervisedWorkspace(t, nil)
	res := startBackground(t, w, ExecRequest{Command: "sleep 30 > /dev/null 2>&1 & echo $! > left; echo hi", Timeout: f64(0.5)})
	out, err := w.ProcessOutput(context.Background(), ProcessOutputRequest{PID: strconv.Itoa(res.PID), Wait: boolp(true)})
	must(t, err)
	if out.Text() != "hi\n\n\nExit code: 0" {
		t.Fatalf("output %q", out.Text())
	}
	left := pidIn(w, "left")
	if left == 0 {
		t.Fatal("no pid of the leftover")
	}
	if !gone(left, 5*time.Second) {
		t.Fatalf("leftover %d outlived the timeout", left)
	}
}

// A background command gets stdin, stdout and stderr and no other file
// descriptor: neither the pipe its supervisor reports its pid on (fd 3:
// a command writing there wrote into that report) nor a file that the
// caller of ws left open without close-on-exec (a caller reading such a
// pipe to its end would wait for the command). The supervisor lets go of
// the caller's pipe too, so its reader sees the end at once.
func TestBackgroundInheritsNoDescriptors(t *testing.T) {
	w := newSupervisedWorkspace(t, nil)
	var p [2]int
	must(t, unix.Pipe2(p[:], 0)) // not close-on-exec, as a caller's pipe may be
	r := os.NewFile(uintptr(p[0]), "r")
	defer r.Close()
	syscall.CloseOnExec(p[0])
	res := startBackground(t, w, ExecRequest{Command: "ls /proc/$$/fd; sleep 30"})
	unix.Close(p[1])
	pid := strconv.Itoa(res.PID)
	defer w.Kill(context.Background(), KillRequest{PID: pid})
	got := waitOutput(t, w, pid, "2\n")
	if got != "0\n1\n2\n" {
		t.Errorf("the command's descriptors: %q, want 0, 1 and 2", got)
	}
	// Every writer of the pipe is gone: the read ends at once.
	done := make(chan error, 1)
	go func() { _, err := r.Read(make([]byte, 1)); done <- err }()
	select {
	case err := <-done:
		if err != io.EOF {
			t.Errorf("read of the caller's pipe: %v, want EOF", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("the background process still holds the caller's pipe")
	}
}

// A process whose supervisor was killed ends with no exit recorded:
// ps-output says so (before, its output read as a running process's,
// so a model waited on it again and again), and calls it ended.
func TestProcessOutputLost(t *testing.T) {
	w := newSupervisedWorkspace(t, nil)
	res := startBackground(t, w, ExecRequest{Command: "echo hi; exec sleep 0.3"})
	pid := strconv.Itoa(res.PID)
	waitOutput(t, w, pid, "hi\n")
	killSupervisor(t, w, pid)
	want := "hi\n\n\n" + "[the process is gone without an exit code: its supervisor was killed]"
	out, err := w.ProcessOutput(context.Background(), ProcessOutputRequest{PID: pid, Wait: boolp(true)})
	must(t, err)
	if out.Text() != want || out.State != "lost" {
		t.Errorf("wait: %q (%s), want %q", out.Text(), out.State, want)
	}
	out, err = w.ProcessOutput(context.Background(), ProcessOutputRequest{PID: pid, Tail: intp(1)})
	must(t, err)
	if out.Text() != want || out.State != "lost" {
		t.Errorf("read again: %q (%s), want %q", out.Text(), out.State, want)
	}
	out, err = w.ProcessOutput(context.Background(), ProcessOutputRequest{PID: pid, Filter: "nothing"})
	must(t, err)
	if want := "(no matching output)\n\n[the process is gone without an exit code: its supervisor was killed]"; out.Text() != want {
		t.Errorf("filtered: %q, want %q", out.Text(), want)
	}
}

// ps --prune keeps the record of an exited command whose leftovers still
// run: without it neither kill nor destroy could reach them (before, they
// ran on untracked under their supervisor).
func TestPruneKeepsLeftovers(t *testing.T) {
	w := newSupervisedWorkspace(t, nil)
	ctx := context.Background()
	pid, _, left := startLeftover(t, w, "sleep 30 > /dev/null 2>&1 & echo $! > left; echo hi")
	ps, err := w.PS(ctx, PSRequest{Prune: boolp(true)})
	must(t, err)
	if len(ps.Pruned) != 0 || len(ps.Processes) != 1 || !ps.Processes[0].Leftovers {
		t.Fatalf("prune with a leftover running: %+v", ps)
	}
	if _, err := w.Kill(ctx, KillRequest{PID: pid}); err != nil {
		t.Fatalf("kill of the leftovers after a prune: %v", err)
	}
	if !gone(left, 5*time.Second) {
		t.Fatalf("leftover %d still runs", left)
	}
	ps, err = w.PS(ctx, PSRequest{Prune: boolp(true)})
	must(t, err)
	if len(ps.Pruned) != 1 || len(ps.Processes) != 0 {
		t.Fatalf("prune once they are stopped: %+v", ps)
	}
}

// A background start waits for ws destroy (which holds the start lock
// while it stops the workspace's processes) at most
// tools.writeLockTimeoutMs, and an interrupted one gives up at once:
// either way it starts nothing. Before, it waited as long as the lock was
// held, without a word, and a ws interrupted meanwhile still started the
// process once the lock was let go.
func TestBackgroundStartWaitBounded(t *testing.T) {
	cfg := config.Default()
	cfg.Tools.WriteLockTimeoutMs = 50
	w := newSupervisedWorkspace(t, cfg)
	held, err := w.procStore().LockOutStarts()
	must(t, err)
	released := false
	release := func() {
		if !released {
			released = true
			held.Release()
		}
	}
	defer release()
	start := func(ctx context.Context) error {
		t.Helper()
		done := make(chan error, 1)
		go func() {
			res, err := w.Exec(ctx, ExecRequest{Command: "true", Background: boolp(true)})
			if err == nil {
				syscall.Kill(-res.PID, syscall.SIGKILL)
			}
			done <- err
		}()
		select {
		case err := <-done:
			return err
		case <-time.After(20 * time.Second):
			release() // let it go on, to end the test
			t.Fatal("the start still waits for the start lock after 20s")
			return nil
		}
	}
	if err := start(context.Background()); errs.CodeOf(err) != errs.LockTimeout {
		t.Errorf("start while destroy holds the lock: %v, want LOCK_TIMEOUT", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cfg.Tools.WriteLockTimeoutMs = 60_000
	if err := start(ctx); errs.CodeOf(err) != errs.Timeout {
		t.Errorf("interrupted start: %v, want TIMEOUT (interrupted)", err)
	}
	if all, _ := w.procStore().All(); len(all) != 0 {
		t.Errorf("%d processes were started", len(all))
	}
	release()
	if err := start(context.Background()); err != nil {
		t.Errorf("start once the lock is let go: %v", err)
	}
}
