package workspace

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/wstools/ws/pkg/js"
	"github.com/wstools/ws/pkg/procstate"
	"golang.org/x/sys/unix"
)

// superviseSpec is what `ws exec --background` hands its supervisor, in
// spec.json of the new record directory.
type superviseSpec struct {
	Argv      []string `json:"argv"`
	Env       []string `json:"env"`
	Dir       string   `json:"dir"`
	Command   string   `json:"command"`
	Root      string   `json:"root"`
	Thread    string   `json:"thread,omitempty"`
	TimeoutMs int64    `json:"timeout_ms"`
	LogCap    int64    `json:"log_cap"`
	GraceMs   int64    `json:"grace_ms"`
}

// startBackground starts the command under a supervisor (ws re-executing
// itself) in a new session, and returns as soon as the supervisor reports
// the command's pid. ws's own stdout and stderr are never passed on, so
// `$(ws exec --background …)` returns at once.
func (w *Workspace) startBackground(ctx context.Context, req ExecRequest, cwd string) (*ExecResult, error) {
	if len(w.superv) == 0 {
		return nil, &Error{Code: NotAvailable, Message: "Sandbox does not support processes"}
	}
	argv, err := w.shellArgv(req.Command, cwd)
	if err != nil {
		return nil, err
	}
	store := procstate.Open(w.stateDir)
	dir, err := store.NewDir()
	if err != nil {
		return nil, stateError(err)
	}
	spec := superviseSpec{
		Argv: argv, Env: w.commandEnv(req.Env), Dir: cwd, Command: req.Command, Root: w.roots[0].real,
		Thread: w.thread, TimeoutMs: w.commandTimeout(req.Timeout).Milliseconds(),
		LogCap: procstate.DefaultLogCap, GraceMs: killGrace.Milliseconds(),
	}
	if n := w.cfg.Sandbox.BackgroundOutputBytes; n > 0 {
		spec.LogCap = n
	}
	if err := procstate.WriteJSON(filepath.Join(dir, "spec.json"), spec); err != nil {
		os.RemoveAll(dir)
		return nil, stateError(err)
	}
	readyR, readyW, err := os.Pipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, stateError(err)
	}
	defer readyR.Close()
	cmd := exec.Command(w.superv[0])
	cmd.Args = append(append([]string{}, w.superv[1:]...), dir)
	cmd.Env = w.hostEnv
	cmd.Dir = "/"
	cmd.ExtraFiles = []*os.File{readyW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	readyW.Close()
	if err != nil {
		os.RemoveAll(dir)
		return nil, &Error{Code: EIO, Message: "cannot start the process supervisor: " + err.Error(), Err: err}
	}
	go cmd.Wait() // reap it if ws lives on (ws mcp); otherwise init does
	line, _ := bufio.NewReader(readyR).ReadString('\n')
	line = strings.TrimSpace(line)
	pid, perr := strconv.Atoi(strings.TrimPrefix(line, "ok "))
	if !strings.HasPrefix(line, "ok ") || perr != nil {
		msg := strings.TrimPrefix(line, "error ")
		if msg == "" {
			msg = "the process supervisor exited without starting the command"
		}
		os.RemoveAll(dir)
		return nil, &Error{Code: EIO, Message: "Error: " + msg}
	}
	return &ExecResult{
		Command: req.Command, Cwd: cwd, Background: true, PID: pid,
		text: fmt.Sprintf("Started background process (PID: %d)", pid),
	}, nil
}

// Supervise is the body of `ws __supervise DIR`: it starts the command
// described in DIR/spec.json, tells the starter its pid on ready (fd 3),
// captures its output into capped logs, enforces the timeout, answers a
// TERM (from ws kill) by stopping the whole process tree, records how the
// command ended in exit.json, and stays until every descendant is reaped:
// it is a child subreaper, so orphans of the command are its to reap.
// It returns the supervisor's own exit status.
func Supervise(dir string, ready io.WriteCloser) int {
	reply := func(format string, args ...any) {
		if ready != nil {
			fmt.Fprintf(ready, format+"\n", args...)
			ready.Close()
			ready = nil
		}
	}
	var spec superviseSpec
	data, err := os.ReadFile(filepath.Join(dir, "spec.json"))
	if err == nil {
		err = json.Unmarshal(data, &spec)
	}
	if err != nil || len(spec.Argv) == 0 {
		reply("error cannot read the process spec: %v", err)
		return 1
	}
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	// Signals for the supervisor mean "stop the command"; they must not be
	// lost before the handler is in place.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)

	outLog, err := procstate.CreateLog(dir, "stdout.log", spec.LogCap)
	if err != nil {
		reply("error %v", err)
		return 1
	}
	errLog, err := procstate.CreateLog(dir, "stderr.log", spec.LogCap)
	if err != nil {
		reply("error %v", err)
		return 1
	}
	outR, outW, _ := os.Pipe()
	errR, errW, _ := os.Pipe()
	devnull, _ := os.Open(os.DevNull)
	proc, err := os.StartProcess(spec.Argv[0], spec.Argv, &os.ProcAttr{
		Dir: spec.Dir, Env: spec.Env, Files: []*os.File{devnull, outW, errW},
		Sys: &syscall.SysProcAttr{Setpgid: true},
	})
	devnull.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		reply("error %v", err)
		return 1
	}
	pid := proc.Pid
	start, _ := procstate.StartTime(pid)
	self, _ := procstate.StartTime(os.Getpid())
	rec := &procstate.Record{
		PID: pid, PGID: pid, StartTime: start, BootID: procstate.BootID(), Command: spec.Command, Cwd: spec.Dir,
		Root: spec.Root, Thread: spec.Thread, StartedAt: time.Now().UTC(), TimeoutMs: spec.TimeoutMs,
		SupervisorPID: os.Getpid(), SupervisorStart: self,
	}
	store := procstate.Open(filepath.Dir(filepath.Dir(dir)))
	if err := store.Commit(dir, rec); err != nil {
		syscall.Kill(-pid, syscall.SIGKILL)
		reply("error cannot record the process: %v", err)
		return 1
	}
	dir = store.Dir(rec.ID)
	outLog.MoveTo(dir)
	errLog.MoveTo(dir)
	reply("ok %d", pid)

	var copies sync.WaitGroup
	copies.Add(2)
	go func() { defer copies.Done(); io.Copy(outLog, outR) }()
	go func() { defer copies.Done(); io.Copy(errLog, errR) }()

	// The reaper first only notices that the command ended (WNOWAIT): while
	// it is an unreaped zombie its pid, and so its process group id, cannot
	// be taken by another process, and signals to the group stay ours. It
	// reaps it when told to, then every orphan handed to the supervisor.
	ended := make(chan struct{})
	reap := make(chan struct{})
	leader := make(chan syscall.WaitStatus, 1)
	noChildren := make(chan struct{})
	go func() {
		var info unix.Siginfo
		for unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil) == unix.EINTR {
		}
		close(ended)
		<-reap
		var ws syscall.WaitStatus
		for {
			if _, err := syscall.Wait4(pid, &ws, 0, nil); err != syscall.EINTR {
				break
			}
		}
		leader <- ws
		for {
			var ows syscall.WaitStatus
			_, err := syscall.Wait4(-1, &ows, 0, nil)
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				close(noChildren)
				return
			}
		}
	}()

	var timer <-chan time.Time
	if spec.TimeoutMs > 0 {
		t := time.NewTimer(time.Duration(spec.TimeoutMs) * time.Millisecond)
		defer t.Stop()
		timer = t.C
	}
	grace := time.Duration(spec.GraceMs) * time.Millisecond
	timedOut, killed := false, false
	select {
	case <-ended:
	case <-timer:
		timedOut, timer = true, nil
	case <-sigs:
		killed = true
	}
	if timedOut || killed {
		stopGroupAndTree(pid, grace, ended)
	}
	close(reap)
	status := <-leader
	// What the command wrote before it ended is still in the pipes: let the
	// copies drain it, but do not wait on a descendant that keeps them open.
	drained := make(chan struct{})
	go func() { copies.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(250 * time.Millisecond):
	}
	x := &procstate.Exit{EndedAt: time.Now().UTC(), TimedOut: timedOut, Killed: killed}
	switch {
	case timedOut:
		x.ExitCode = 124
		errLog.Write([]byte("\nProcess timed out after " + js.FormatNumber(float64(spec.TimeoutMs)) + "ms"))
	case status.Signaled():
		x.Signal = int(status.Signal())
		x.ExitCode = 128 + x.Signal
	default:
		x.ExitCode = status.ExitStatus()
	}
	_ = store.WriteExit(rec.ID, x)

	// Stay until what the command left running is gone, reaping it. A TERM
	// (ws kill of the leftovers) or the timeout still stops it; the group
	// id is no longer ours, so only our own descendants are signalled.
	for {
		select {
		case <-noChildren:
			<-drained
			outLog.Close()
			errLog.Close()
			return 0
		case <-sigs:
			go stopDescendants(grace)
		case <-timer:
			timer = nil
			go stopDescendants(grace)
		}
	}
}

// stopGroupAndTree stops a running command: TERM to its process group and
// to every other descendant of the supervisor, then, if anything is left
// after the grace period, KILL. The command's pid stays unreaped until this
// returns (see the reaper), so the group id cannot have been reused.
func stopGroupAndTree(pgid int, grace time.Duration, ended <-chan struct{}) {
	signalGroup(pgid, syscall.SIGTERM)
	signalDescendants(syscall.SIGTERM)
	deadline := time.After(grace)
	select {
	case <-ended:
	case <-deadline:
		signalGroup(pgid, syscall.SIGKILL)
		signalDescendants(syscall.SIGKILL)
		<-ended
		return
	}
	// The command is gone; give what it left the rest of the grace period.
	for tick := time.NewTicker(20 * time.Millisecond); ; {
		select {
		case <-deadline:
			tick.Stop()
			signalGroup(pgid, syscall.SIGKILL)
			signalDescendants(syscall.SIGKILL)
			return
		case <-tick.C:
			if len(liveDescendants()) == 0 {
				tick.Stop()
				return
			}
		}
	}
}

// stopDescendants stops what an ended command left running: TERM to every
// descendant of the supervisor, KILL to those left after the grace period.
func stopDescendants(grace time.Duration) {
	signalDescendants(syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) && len(liveDescendants()) > 0 {
		time.Sleep(20 * time.Millisecond)
	}
	signalDescendants(syscall.SIGKILL)
}

func signalDescendants(sig syscall.Signal) {
	for _, p := range liveDescendants() {
		_ = syscall.Kill(p, sig)
	}
}

// liveDescendants are the supervisor's descendants that have not exited
// (zombies waiting to be reaped are left out).
func liveDescendants() []int {
	var out []int
	for _, p := range descendants(os.Getpid()) {
		if st, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/stat"); err == nil {
			if i := strings.LastIndexByte(string(st), ')'); i >= 0 && i+2 < len(st) && st[i+2] == 'Z' {
				continue
			}
		}
		out = append(out, p)
	}
	return out
}

// descendants lists the processes below pid, by scanning /proc for parent
// links.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(data), ')')
		f := strings.Fields(string(data[i+1:]))
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], p)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}
