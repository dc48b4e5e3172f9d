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

	// One reaper for every child: the command and any orphan handed to us.
	exited := make(chan syscall.WaitStatus, 1)
	noChildren := make(chan struct{})
	go func() {
		for {
			var ws syscall.WaitStatus
			wpid, err := syscall.Wait4(-1, &ws, 0, nil)
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				close(noChildren)
				return
			}
			if wpid == pid {
				exited <- ws
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
	var status syscall.WaitStatus
	timedOut, killed := false, false
	select {
	case status = <-exited:
	case <-timer:
		timedOut = true
		status = stopTree(pid, grace, exited)
	case <-sigs:
		killed = true
		status = stopTree(pid, grace, exited)
	}
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
		errLog.Write([]byte("\nProcess timed out after " + jsNumber(float64(spec.TimeoutMs)) + "ms"))
	case status.Signaled():
		x.Signal = int(status.Signal())
		x.ExitCode = 128 + x.Signal
	default:
		x.ExitCode = status.ExitStatus()
	}
	_ = store.WriteExit(rec.ID, x)

	// Stay until the rest of the tree is gone, reaping it; a later TERM
	// (ws kill of what is left) still stops it.
	for {
		select {
		case <-noChildren:
			<-drained
			outLog.Close()
			errLog.Close()
			return 0
		case <-sigs:
			go stopTree(pid, grace, nil)
		}
	}
}

// stopTree sends TERM to the command's group and to every other descendant
// of the supervisor, then KILL after the grace period if the command is
// still there, and returns the command's wait status (when exited is set).
func stopTree(pgid int, grace time.Duration, exited <-chan syscall.WaitStatus) syscall.WaitStatus {
	signalTree(pgid, syscall.SIGTERM)
	if exited == nil {
		time.Sleep(grace)
		signalTree(pgid, syscall.SIGKILL)
		return 0
	}
	select {
	case st := <-exited:
		if groupAlive(pgid) || len(descendants(os.Getpid())) > 0 {
			go func() { time.Sleep(grace); signalTree(pgid, syscall.SIGKILL) }()
		}
		return st
	case <-time.After(grace):
	}
	signalTree(pgid, syscall.SIGKILL)
	return <-exited
}

func signalTree(pgid int, sig syscall.Signal) {
	signalGroup(pgid, sig)
	for _, p := range descendants(os.Getpid()) {
		_ = syscall.Kill(p, sig)
	}
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
