package workspace

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/js"
	"github.com/wstools/ws/pkg/procstate"
	"github.com/wstools/ws/pkg/tokens"
)

// ExecRequest is the input of exec (mastra_workspace_execute_command).
type ExecRequest struct {
	Command    string   `json:"command" desc:"Shell command line, run with /bin/sh -c in the workspace root (or cwd)."`
	Timeout    *float64 `json:"timeout,omitempty" coerce:"number" min:"0" null:"true" desc:"Seconds before the command is stopped (TERM, then KILL 2 s later); 0 means no limit. Default: the sandbox timeout (300 s)."`
	Cwd        string   `json:"cwd,omitempty" null:"true" desc:"Working directory, relative to the workspace root or absolute inside it."`
	Tail       *int     `json:"tail,omitempty" coerce:"number" null:"true" desc:"Show only the last N lines of each stream (default 200; 0 shows all). A trailing '| tail -N' in the command is applied the same way."`
	Background *bool    `json:"background,omitempty" desc:"Start the command in the background and return its PID at once; read its output later with get_process_output."`
	Env        []string `json:"env,omitempty" desc:"Extra environment variables for this command, each NAME=value."`
}

// ExecResult is the outcome of a command.
type ExecResult struct {
	Command    string `json:"command"`
	Cwd        string `json:"cwd"`
	Background bool   `json:"background"`
	PID        int    `json:"pid,omitempty"`
	ExitCode   int    `json:"exit_code"`
	Signal     int    `json:"signal,omitempty"`
	TimedOut   bool   `json:"timed_out"`
	Stdout     Bytes  `json:"stdout"`
	Stderr     Bytes  `json:"stderr"`
	DurationMs int64  `json:"duration_ms"`
	text       string
}

// Text is the tool's output as the model sees it (ANSI sequences removed).
func (r *ExecResult) Text() string { return r.text }

// ExitStatus is the status `ws exec` exits with: the command's own.
func (r *ExecResult) ExitStatus() int {
	if r.Background {
		return 0
	}
	return r.ExitCode
}

// tailPipe matches a trailing `| tail -N` or `| tail -n N`, which Mastra
// strips from the command and applies to the captured output instead.
var tailPipe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\|\s*tail\s+(?:-n\s+)?(-?\d+)\s*$`) })

func stripTailPipe(command string) (string, int, bool) {
	m := tailPipe().FindStringSubmatchIndex(command)
	if m == nil {
		return command, 0, false
	}
	n, err := strconv.ParseFloat(command[m[2]:m[3]], 64)
	if err != nil || n == 0 {
		return command, 0, false
	}
	if n < 0 {
		n = -n
	}
	return strings.TrimSpace(command[:m[0]]), int(min(n, 1<<31)), true
}

// tailOf is a tail parameter as Mastra reads it: absent → 200, negative →
// its absolute value, 0 → everything.
func tailOf(p *int) int {
	if p == nil {
		return defaultTail
	}
	if *p < 0 {
		return -*p
	}
	return *p
}

// Exec runs a shell command: in the foreground, returning its output and
// exit status, or in the background under a supervisor.
func (w *Workspace) Exec(ctx context.Context, req ExecRequest) (*ExecResult, error) {
	if err := w.sandboxAvailable(); err != nil {
		return nil, err
	}
	if req.Command == "" {
		return nil, Errorf(InvalidArgument, "Error: the command is empty")
	}
	cwd, err := w.commandCwd(req.Cwd)
	if err != nil {
		return nil, err
	}
	for _, kv := range req.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return nil, Errorf(InvalidArgument, "env: %q is not NAME=value", kv)
		}
	}
	if req.Background != nil && *req.Background {
		return w.startBackground(ctx, req, cwd)
	}
	command, tail := req.Command, tailOf(req.Tail)
	if c, n, ok := stripTailPipe(command); ok {
		command, tail = c, n
	}
	argv, err := w.shellArgv(command, cwd)
	if err != nil {
		return nil, err
	}
	timeout := w.commandTimeout(req.Timeout)
	start := w.now()
	run, err := runForeground(ctx, argv, w.commandEnv(req.Env), cwd, timeout)
	if err != nil {
		return nil, &Error{Code: EIO, Message: "Error: " + err.Error(), Err: err}
	}
	res := &ExecResult{
		Command: req.Command, Cwd: cwd, ExitCode: run.exitCode, Signal: run.signal, TimedOut: run.timedOut,
		Stdout: run.stdout, Stderr: run.stderr, DurationMs: w.now().Sub(start).Milliseconds(),
	}
	stderr := run.stderr
	if run.timedOut {
		stderr = append(stderr, "\nProcess timed out after "+js.FormatNumber(float64(timeout)/float64(time.Millisecond))+"ms"...)
	}
	limit := w.toolTokens(config.ExecuteCommand)
	out := streamText(run.stdout, run.dropped[0], tail, limit, false)
	errText := streamText(stderr, run.dropped[1], tail, limit, false)
	res.text = tokens.StripANSI(execText(out, errText, run.exitCode))
	return res, nil
}

// streamText prepares one captured stream for the model: the newest lines
// (tail), then the token sandwich. hint adds how to see more to the tail
// notice, for tools that can be called again with another tail.
func streamText(b []byte, dropped int64, tail, limit int, hint bool) string {
	s := jsString(b)
	t := tokens.TailLines(s, tail)
	if hint && t != s {
		t = strings.Replace(t, " lines]\n", " lines; pass a larger tail, or tail=0 for all]\n", 1)
	}
	t = tokens.Sandwich(t, limit)
	if dropped > 0 && t != "" {
		t = fmt.Sprintf("[%d bytes of earlier output were dropped (over the per-stream cap)]\n", dropped) + t
	}
	return t
}

// streamParts are Mastra's parts for a stdout/stderr pair.
func streamParts(out, errText string) []string {
	switch {
	case out != "" && errText != "":
		return []string{"stdout:", out, "", "stderr:", errText}
	case out != "":
		return []string{out}
	case errText != "":
		return []string{"stderr:", errText}
	}
	return nil
}

// execText assembles execute_command's text: the streams, then, for a
// failed command, `Exit code: N` after exactly one blank line.
func execText(out, errText string, code int) string {
	parts := streamParts(out, errText)
	if code == 0 {
		if len(parts) == 0 {
			return "(no output)"
		}
		return strings.Join(parts, "\n")
	}
	exit := "Exit code: " + strconv.Itoa(code)
	if len(parts) == 0 {
		return exit
	}
	text := strings.Join(parts, "\n")
	switch {
	case strings.HasSuffix(text, "\n\n"):
	case strings.HasSuffix(text, "\n"):
		text += "\n"
	default:
		text += "\n\n"
	}
	return text + exit
}

// captureCap bounds what a foreground command's stream keeps in memory:
// the newest 64 MiB.
const captureCap = 64 << 20

// capture collects a stream, keeping the newest captureCap bytes.
type capture struct {
	mu      sync.Mutex
	buf     []byte
	dropped int64
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf = append(c.buf, p...)
	if over := len(c.buf) - captureCap; over > captureCap/4 {
		c.dropped += int64(over)
		c.buf = append(c.buf[:0], c.buf[over:]...)
	}
	return len(p), nil
}

func (c *capture) bytes() ([]byte, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if over := len(c.buf) - captureCap; over > 0 {
		return c.buf[over:], c.dropped + int64(over)
	}
	return c.buf, c.dropped
}

type runResult struct {
	stdout, stderr []byte
	dropped        [2]int64
	exitCode       int
	signal         int
	timedOut       bool
}

// runForeground runs argv in its own process group with stdin from
// /dev/null and both streams captured. When the shell exits, what is left
// of its group gets TERM, then KILL after the grace period, so a child left
// running with `&` cannot hold ws; a process that escaped the group and
// still holds the pipes is not waited for beyond that. A timeout (0: none)
// or a cancelled ctx stops the whole group the same way.
func runForeground(ctx context.Context, argv, env []string, cwd string, timeout time.Duration) (*runResult, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return nil, err
	}
	// syscall.ForkExec rather than os.StartProcess: the latter probes for
	// pidfd support with an extra fork the first time, which is a good part
	// of a short command's cost.
	pid, err := syscall.ForkExec(argv[0], argv, &syscall.ProcAttr{
		Dir:   cwd,
		Env:   env,
		Files: []uintptr{devnull.Fd(), outW.Fd(), errW.Fd()},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
	devnull.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, &os.PathError{Op: "fork/exec", Path: argv[0], Err: err}
	}
	pgid := pid
	var out, errc capture
	var readers sync.WaitGroup
	readers.Add(2)
	go func() { defer readers.Done(); io.Copy(&out, outR) }()
	go func() { defer readers.Done(); io.Copy(&errc, errR) }()
	readersDone := make(chan struct{})
	go func() { readers.Wait(); close(readersDone) }()

	waitCh := make(chan syscall.WaitStatus, 1)
	go func() {
		var st syscall.WaitStatus
		for {
			_, err := syscall.Wait4(pid, &st, 0, nil)
			if err != syscall.EINTR {
				break
			}
		}
		waitCh <- st
	}()
	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	res := &runResult{}
	var st syscall.WaitStatus
	select {
	case st = <-waitCh:
	case <-timer:
		res.timedOut = true
		st = stopGroup(pgid, waitCh)
	case <-ctx.Done():
		st = stopGroup(pgid, waitCh)
	}
	// The shell is gone; stop what it left behind in its group: TERM, then
	// KILL to whatever is still there when the grace period ends (whether
	// or not it holds the output pipes). While the group has members its id
	// cannot be reused, so each signal reaches only what the shell started.
	if groupAlive(pgid) {
		signalGroup(pgid, syscall.SIGTERM)
		for deadline := time.Now().Add(killGrace); groupAlive(pgid); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				signalGroup(pgid, syscall.SIGKILL)
				break
			}
		}
	}
	select {
	case <-readersDone:
	case <-time.After(100 * time.Millisecond):
		// Someone outside the group still holds the pipes: stop reading.
		outR.Close()
		errR.Close()
		<-readersDone
	}
	outR.Close()
	errR.Close()

	res.stdout, res.dropped[0] = out.bytes()
	res.stderr, res.dropped[1] = errc.bytes()
	res.exitCode, res.signal = exitCodeOf(st)
	if res.timedOut {
		res.exitCode = 124
	}
	return res, nil
}

// stopGroup sends TERM to the group, KILL after the grace period, and
// returns the shell's status.
func stopGroup(pgid int, waitCh <-chan syscall.WaitStatus) syscall.WaitStatus {
	signalGroup(pgid, syscall.SIGTERM)
	select {
	case st := <-waitCh:
		return st
	case <-time.After(killGrace):
	}
	signalGroup(pgid, syscall.SIGKILL)
	return <-waitCh
}

func signalGroup(pgid int, sig syscall.Signal) { _ = syscall.Kill(-pgid, sig) }

func groupAlive(pgid int) bool { return procstate.GroupAlive(pgid) }

// exitCodeOf maps a wait status to a shell-style exit code: the code, or
// 128+N for death by signal N (SPEC deviation 6).
func exitCodeOf(st syscall.WaitStatus) (code, sig int) {
	if st.Signaled() {
		return 128 + int(st.Signal()), int(st.Signal())
	}
	return st.ExitStatus(), 0
}
