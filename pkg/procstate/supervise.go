package procstate

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
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
	"github.com/wstools/ws/pkg/statefile"
	"golang.org/x/sys/unix"
)

// Spec is what `ws exec --background` hands its supervisor, in
// spec.json of the new record directory.
//
// The strings that come from the user or the host (the command line, its
// arguments and environment, directories, the thread) are statefile
// Strings: one that is not UTF-8 keeps its bytes in JSON ({"bytes":
// base64}), where a plain string would turn them into U+FFFD and the
// supervisor would run another command, in another directory, than the
// one asked. Records and callbacks carry theirs the same way.
type Spec struct {
	Argv    []statefile.String `json:"argv"`
	Env     []statefile.String `json:"env"`
	Dir     statefile.String   `json:"dir"`
	Command statefile.String   `json:"command"`
	Root    statefile.String   `json:"root"`
	Thread  statefile.String   `json:"thread,omitempty"`
	// TimeoutMs is the timeout in milliseconds, fractions kept (0.4 is
	// 400 µs); 0 is none.
	TimeoutMs float64 `json:"timeout_ms"`
	LogCap    int64   `json:"log_cap"`
	GraceMs   int64   `json:"grace_ms"`
	// Stdin keeps a pipe open to the command's stdin, fed from the FIFO
	// StdinName in the record directory (ws send); without it the
	// command's stdin is /dev/null.
	Stdin bool `json:"stdin,omitempty"`
	// TTY runs the command on a pseudo-terminal of its own (TTYCols ×
	// TTYRows), its stdin, stdout, stderr and controlling terminal, in a
	// session of its own. Its output (echoed input included) goes to the
	// stdout log, with line ends as LF (see lineEnds); its input comes
	// from the FIFO as with Stdin, which it implies.
	TTY bool `json:"tty,omitempty"`
	// SpareLeader: TERM and INT spare the command's first process (see
	// Foreground.SpareLeader).
	SpareLeader bool `json:"spare_leader,omitempty"`
	// Callbacks, when set, are run by a dispatcher the supervisor sends
	// the command's output and end to, on fd 4.
	Callbacks *Callbacks `json:"callbacks,omitempty"`
}

// Record-directory names of the stdin pipe: the FIFO ws send writes to,
// the mark left once the supervisor closed the command's stdin, and the
// lock a send holds while it writes.
const (
	StdinName   = "stdin"
	StdinClosed = "stdin.closed"
	StdinLock   = "stdin.lock"
)

// Signals to a supervisor, and what they ask. TERM and INT stop the
// command: the signal goes to its group and descendants, KILL after the
// grace period. SIGUSR2 stops it with KILL at once. SIGUSR1 closes the
// command's stdin pipe (ws send --eof). HUP is treated as TERM.
const (
	SignalCloseStdin = syscall.SIGUSR1
	SignalKillNow    = syscall.SIGUSR2
)

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
	var spec Spec
	data, err := os.ReadFile(filepath.Join(dir, "spec.json"))
	if err == nil {
		err = json.Unmarshal(data, &spec)
	}
	if err != nil || len(spec.Argv) == 0 {
		reply("error cannot read the process spec: %v", err)
		return 1
	}
	// Only the report pipe and the events pipe stay, and the command gets
	// neither: a command that wrote to fd 3 would otherwise write into
	// the report ws reads its pid from.
	var keep []uintptr
	if f, ok := ready.(*os.File); ok && f != nil {
		keep = append(keep, f.Fd())
	}
	if spec.Callbacks != nil {
		keep = append(keep, 4)
	}
	closeInherited(keep...)
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	// Signals for the supervisor mean "stop the command"; they must not be
	// lost before the handler is in place.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, SignalCloseStdin, SignalKillNow)

	outLog, err := CreateLog(dir, LogNames[0], spec.LogCap)
	if err != nil {
		reply("error %v", err)
		return 1
	}
	errLog, err := CreateLog(dir, LogNames[1], spec.LogCap)
	if err != nil {
		reply("error %v", err)
		return 1
	}
	var events *eventSink
	if spec.Callbacks != nil {
		if f := os.NewFile(4, "events"); f != nil {
			events = newEventSink(f)
		}
	}
	cmdIO, err := openCommandIO(dir, spec)
	if err != nil {
		reply("error %v", err)
		return 1
	}
	relay := cmdIO.relay
	argv := statefile.Plain(spec.Argv)
	proc, err := os.StartProcess(argv[0], argv, &os.ProcAttr{
		Dir: string(spec.Dir), Env: statefile.Plain(spec.Env), Files: cmdIO.files[:], Sys: cmdIO.attr,
	})
	cmdIO.started()
	if err != nil {
		relay.abort()
		cmdIO.closeStreams()
		reply("error %v", err)
		return 1
	}
	pid := proc.Pid
	start, _ := StartTime(pid)
	self, _ := StartTime(os.Getpid())
	rec := &Record{
		PID: pid, PGID: pid, StartTime: start, BootID: BootID(), Command: spec.Command, Cwd: spec.Dir,
		Root: spec.Root, Thread: spec.Thread, StartedAt: time.Now().UTC(), TimeoutMs: spec.TimeoutMs,
		SupervisorPID: os.Getpid(), SupervisorStart: self, SpareLeader: spec.SpareLeader, TTY: spec.TTY,
	}
	store := &Store{dir: filepath.Dir(dir)}
	if err := store.Commit(dir, rec); err != nil {
		syscall.Kill(-pid, syscall.SIGKILL)
		reply("error cannot record the process: %v", err)
		return 1
	}
	dir = store.Dir(rec.ID)
	outLog.MoveTo(dir)
	errLog.MoveTo(dir)
	if relay != nil {
		relay.dir = dir
		go relay.run()
	}
	events.send(event{Type: "record", Dir: dir, PID: pid, Command: string(spec.Command)})
	reply("ok %d", pid)

	// One copy per stream: stdout and stderr, or the terminal's master,
	// whose output is the command's stdout log.
	var copies sync.WaitGroup
	streams := []*streamCopy{newStreamCopy(outLog, cmdIO.streams[0], func(p []byte) { events.chunk("stdout", p) })}
	if spec.TTY {
		streams[0].ends = &lineEnds{}
	} else {
		streams = append(streams, newStreamCopy(errLog, cmdIO.streams[1], func(p []byte) { events.chunk("stderr", p) }))
	}
	for _, c := range streams {
		copies.Add(1)
		go func() {
			defer copies.Done()
			c.run()
		}()
	}

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
		t := time.NewTimer(MsDuration(spec.TimeoutMs))
		defer t.Stop()
		timer = t.C
	}
	grace := time.Duration(spec.GraceMs) * time.Millisecond
	timedOut, killed := false, false
	stopWith := syscall.SIGTERM
wait:
	for {
		select {
		case <-ended:
			break wait
		case <-timer:
			timedOut, timer = true, nil
			break wait
		case sig := <-sigs:
			switch sig {
			case SignalCloseStdin:
				relay.close()
				continue
			case SignalKillNow:
				stopWith = syscall.SIGKILL
			case syscall.SIGINT:
				stopWith = syscall.SIGINT
			}
			killed = true
			break wait
		}
	}
	if timedOut || killed {
		// During the grace period a KILL asked for (ws kill --signal
		// KILL) is sent at once, and stdin can still be closed.
		now := make(chan struct{})
		stopping := make(chan struct{})
		go func() {
			for {
				select {
				case <-stopping:
					return
				case sig := <-sigs:
					switch sig {
					case SignalCloseStdin:
						relay.close()
					case SignalKillNow:
						close(now)
						return
					}
				}
			}
		}()
		stopGroupAndTree(pid, stopWith, spec.SpareLeader, grace, ended, now)
		close(stopping)
	}
	relay.stop()
	close(reap)
	status := <-leader
	// What the command wrote before it ended is still in the pipes: let the
	// copies drain it, but do not wait on a descendant that keeps them open.
	// Past a short wait the copies are told to catch up: to log what is in
	// the pipes now and go on (a descendant's later output is logged too);
	// the end is recorded once they have, so that a reader who sees it
	// finds all the command's output in the logs (the copies may be slow
	// on a loaded machine: a fixed wait recorded the end first).
	drained := make(chan struct{})
	go func() { copies.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(250 * time.Millisecond):
		for _, c := range streams {
			c.catchUp(drained)
		}
	}
	x := &Exit{EndedAt: time.Now().UTC(), TimedOut: timedOut, Killed: killed}
	switch {
	case timedOut:
		x.ExitCode = 124
		errLog.Write([]byte("\nProcess timed out after " + js.FormatNumber(spec.TimeoutMs) + "ms"))
	case status.Signaled():
		x.Signal = int(status.Signal())
		x.ExitCode = 128 + x.Signal
	default:
		x.ExitCode = status.ExitStatus()
	}
	x.LostBytes = outLog.Lost() + errLog.Lost()
	// Here the command's end is known: the one place to tell anyone who
	// watches it (as logStream's seen is for its output).
	_ = store.WriteExit(rec.ID, x)
	events.exit(x.ExitCode)

	// Stay until what the command left running is gone, reaping it. A TERM
	// (ws kill of the leftovers) or the timeout still stops it; the group
	// id is no longer ours, so only our own descendants are signalled.
	for {
		select {
		case <-noChildren:
			<-drained
			outLog.Close()
			errLog.Close()
			events.wait()
			return 0
		case sig := <-sigs:
			if sig != SignalCloseStdin {
				go stopDescendants(grace)
			}
		case <-timer:
			timer = nil
			go stopDescendants(grace)
		}
	}
}

// Ms is d in milliseconds, fractions kept: a spec's or record's
// TimeoutMs.
func Ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// MsDuration is ms milliseconds as a Duration, to the nearest nanosecond
// but never under one for a positive ms.
func MsDuration(ms float64) time.Duration {
	if ms <= 0 {
		return 0
	}
	return max(time.Duration(math.Round(ms*float64(time.Millisecond))), 1)
}

// commandIO is what a background command is started with: its stdin,
// stdout and stderr, the ends the supervisor reads its output from, and
// the relay of its input, if any.
type commandIO struct {
	files   [3]*os.File // the command's stdin, stdout, stderr: closed here once it started
	streams []*os.File  // stdout's and stderr's read ends, or the terminal's master alone
	relay   *stdinRelay
	attr    *syscall.SysProcAttr
}

// openCommandIO prepares a command's I/O as spec asks: stdin from
// /dev/null, or a pipe that the relay feeds from the FIFO in dir
// (Stdin), and stdout and stderr to two pipes; or, with TTY, a new
// pseudo-terminal, whose slave is all three and the command's controlling
// terminal (in a session of its own), whose master gives its output and
// takes its input (the relay is always set up).
func openCommandIO(dir string, spec Spec) (*commandIO, error) {
	if spec.TTY {
		master, slave, err := openPTY(TTYCols, TTYRows)
		if err != nil {
			return nil, fmt.Errorf("cannot open a terminal for the command: %w", err)
		}
		w, err := dupFile(master)
		if err == nil {
			var relay *stdinRelay
			if relay, err = newStdinRelay(dir, w); err == nil {
				// A new session is a new process group too, with the same id,
				// as Setpgid gives the other commands.
				return &commandIO{files: [3]*os.File{slave, slave, slave}, streams: []*os.File{master}, relay: relay,
					attr: &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}}, nil
			}
		}
		master.Close()
		slave.Close()
		return nil, fmt.Errorf("cannot set up the command's terminal: %w", err)
	}
	c := &commandIO{attr: &syscall.SysProcAttr{Setpgid: true}}
	stdin, err := os.Open(os.DevNull)
	if err == nil && spec.Stdin {
		stdin.Close()
		c.relay, stdin, err = openStdinRelay(dir)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot set up the command's stdin: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		stdin.Close()
		c.relay.abort()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		stdin.Close()
		c.relay.abort()
		outR.Close()
		outW.Close()
		return nil, err
	}
	c.files, c.streams = [3]*os.File{stdin, outW, errW}, []*os.File{outR, errR}
	return c, nil
}

// started closes the supervisor's copies of the command's files (a
// terminal's slave among them: the command, and what it starts, hold it
// alone, so the master reads EIO once they are all gone).
func (c *commandIO) started() {
	for _, f := range c.files {
		f.Close() // the slave thrice: the later ones only say it is closed
	}
}

// closeStreams closes the read ends of a command that did not start.
func (c *commandIO) closeStreams() {
	for _, f := range c.streams {
		f.Close()
	}
}

// streamCopy copies one output stream of the command into its log until
// the stream ends. seen, when set, is shown each chunk as it is logged:
// the place for anyone who follows the output live.
type streamCopy struct {
	log    *Log
	r      *os.File // a pipe, non-blocking (os.Pipe's), or a terminal's master
	seen   func(p []byte)
	ends   *lineEnds     // a terminal's: its CR LF line ends are logged as LF
	caught chan struct{} // closed once a catch-up is done
	done   chan struct{} // closed when the stream has ended
}

func newStreamCopy(l *Log, r *os.File, seen func(p []byte)) *streamCopy {
	return &streamCopy{log: l, r: r, seen: seen, caught: make(chan struct{}), done: make(chan struct{})}
}

func (c *streamCopy) keep(p []byte) {
	if c.ends != nil {
		if p = c.ends.translate(p); len(p) == 0 {
			return
		}
	}
	c.log.Write(p)
	if c.seen != nil {
		c.seen(p)
	}
}

func (c *streamCopy) run() {
	defer close(c.done)
	// At catchUp's deadline, what is in the pipe now is logged, then the
	// copy goes on. A terminal's master ends with EIO once nobody holds
	// its slave.
	pumpPipe(c.r, c.keep, func() bool { close(c.caught); return true })
	if c.ends != nil {
		if p := c.ends.flush(); len(p) > 0 {
			c.log.Write(p)
			if c.seen != nil {
				c.seen(p)
			}
		}
	}
}

// catchUp has the copy log everything in the pipe now, and returns once
// it has, the stream has ended, or drained is closed (or, as a bound, a
// few seconds have passed). Everything read before is logged by then.
func (c *streamCopy) catchUp(drained <-chan struct{}) {
	if c.r.SetReadDeadline(time.Now()) != nil {
		return
	}
	select {
	case <-c.caught:
	case <-c.done:
	case <-drained:
	case <-time.After(5 * time.Second):
	}
}

// stopGroupAndTree stops a running command: sig (TERM or INT) to its
// process group (see StopSignal) and to every other descendant of the supervisor, then, if
// anything is left after the grace period (or as soon as now is closed),
// KILL. The command's pid stays unreaped until this returns (see the
// reaper), so the group id cannot have been reused.
func stopGroupAndTree(pgid int, sig syscall.Signal, spareLeader bool, grace time.Duration, ended, now <-chan struct{}) {
	StopSignal(pgid, sig, spareLeader)
	// The group has it; the descendants outside it get it once too (a
	// second TERM or INT often means "stop now, skip the clean-up").
	for _, p := range liveDescendantsOutside(os.Getpid(), pgid) {
		_ = syscall.Kill(p, sig)
		continueIfStopped(p)
	}
	ContinueStopped(pgid)
	if sig == syscall.SIGKILL {
		<-ended
		return
	}
	deadline := time.After(grace)
	select {
	case <-ended:
	case <-deadline:
		SignalGroup(pgid, syscall.SIGKILL)
		signalDescendants(syscall.SIGKILL)
		<-ended
		return
	case <-now:
		SignalGroup(pgid, syscall.SIGKILL)
		signalDescendants(syscall.SIGKILL)
		<-ended
		return
	}
	// The command is gone; give what it left the rest of the grace period.
	for tick := time.NewTicker(20 * time.Millisecond); ; {
		select {
		case <-deadline:
			tick.Stop()
			SignalGroup(pgid, syscall.SIGKILL)
			signalDescendants(syscall.SIGKILL)
			return
		case <-now:
			tick.Stop()
			SignalGroup(pgid, syscall.SIGKILL)
			signalDescendants(syscall.SIGKILL)
			return
		case <-tick.C:
			if len(liveDescendants(os.Getpid())) == 0 {
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
	for _, p := range liveDescendants(os.Getpid()) {
		continueIfStopped(p)
	}
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) && len(liveDescendants(os.Getpid())) > 0 {
		time.Sleep(20 * time.Millisecond)
	}
	signalDescendants(syscall.SIGKILL)
}

func signalDescendants(sig syscall.Signal) {
	for _, p := range liveDescendants(os.Getpid()) {
		_ = syscall.Kill(p, sig)
	}
}

// startTimeout bounds the wait for a new supervisor's report.
var startTimeout = 10 * time.Second

// Start runs a supervisor for the record directory dir (whose spec.json
// is written): superv is its command line, to which dir is appended. It
// starts the supervisor in a session of its own, without ws's stdout and
// stderr (so `$(ws exec --background …)` returns at once), and returns the
// command's pid as soon as the supervisor reports it on fd 3.
func Start(superv, env []string, dir string) (int, error) {
	return StartWith(superv, nil, env, dir)
}

// StartWith is Start with a callback dispatcher (callbacks: its command
// line, ws __callbacks), started first, for a spec with Callbacks.
func StartWith(superv, callbacks, env []string, dir string) (int, error) {
	var events *os.File
	if len(callbacks) > 0 {
		var err error
		if events, err = startCallbacks(callbacks, env); err != nil {
			return 0, fmt.Errorf("cannot start the callback dispatcher: %w", err)
		}
		defer events.Close()
	}
	readyR, readyW, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	defer readyR.Close()
	cmd := exec.Command(superv[0])
	cmd.Args = append(append([]string{}, superv[1:]...), dir)
	cmd.Env = env
	cmd.Dir = "/"
	cmd.ExtraFiles = []*os.File{readyW}
	if events != nil {
		cmd.ExtraFiles = append(cmd.ExtraFiles, events)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	readyW.Close()
	if err != nil {
		return 0, fmt.Errorf("cannot start the process supervisor: %w", err)
	}
	go cmd.Wait() // reap it if ws lives on (ws mcp); otherwise init does
	// A supervisor that neither reports nor exits (stuck on a hung file
	// system, say) must not hang ws: past the bound it is killed, with
	// whatever it started: the command runs in a process group of its own
	// within the supervisor's session.
	if err := readyR.SetReadDeadline(time.Now().Add(startTimeout)); err != nil {
		killSession(cmd.Process.Pid)
		return 0, fmt.Errorf("cannot wait for the process supervisor: %w", err)
	}
	line, rerr := bufio.NewReader(readyR).ReadString('\n')
	if errors.Is(rerr, os.ErrDeadlineExceeded) {
		killSession(cmd.Process.Pid)
		return 0, fmt.Errorf("the process supervisor did not report within %v; it was stopped", startTimeout)
	}
	line = strings.TrimSpace(line)
	pid, perr := strconv.Atoi(strings.TrimPrefix(line, "ok "))
	if !strings.HasPrefix(line, "ok ") || perr != nil {
		msg := strings.TrimPrefix(line, "error ")
		if msg == "" {
			msg = "the process supervisor exited without starting the command"
		}
		return 0, errors.New(msg)
	}
	return pid, nil
}
