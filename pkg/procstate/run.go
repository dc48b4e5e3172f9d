package procstate

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/wstools/ws/pkg/runner"
	"golang.org/x/sys/unix"
)

// KillGrace is the time between TERM and KILL when ws stops a process
// group.
const KillGrace = 2 * time.Second

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

// foreground holds the process groups of the foreground commands running
// now (RunForeground's), for KillForeground.
var foreground = struct {
	sync.Mutex
	groups map[int]int // pgid -> RunForeground calls running it (1)
}{groups: map[int]int{}}

func holdGroup(pgid int) {
	foreground.Lock()
	defer foreground.Unlock()
	foreground.groups[pgid]++
}

func releaseGroup(pgid int) {
	foreground.Lock()
	defer foreground.Unlock()
	if foreground.groups[pgid]--; foreground.groups[pgid] <= 0 {
		delete(foreground.groups, pgid)
	}
}

// KillForeground sends KILL to the process group of every foreground
// command running now. ws calls it when a signal ends it at once (a second
// one, while the first lets the calls finish or waits out a command's
// grace period): the groups are not ws's, so they would outlive it, and
// the parent-death signal reaches the shell alone, not what it started.
// A group that RunForeground has seen empty is no longer held, so its id,
// which may be reused then, is never signalled.
func KillForeground() {
	foreground.Lock()
	defer foreground.Unlock()
	for pgid := range foreground.groups {
		SignalGroup(pgid, syscall.SIGKILL)
	}
}

// RunResult is how a foreground command ended and what it printed.
type RunResult struct {
	PID            int // the command's first process (the shell)
	Stdout, Stderr []byte
	Dropped        [2]int64 // bytes dropped from the start of each stream (over the cap)
	ExitCode       int      // 128+N when killed by signal N; 124 on timeout
	Signal         int
	TimedOut       bool
}

// Foreground is a command for RunForeground.
type Foreground struct {
	Argv, Env []string
	Dir       string
	Timeout   time.Duration // 0: none
	// Stdin is what the command reads; nil is /dev/null. An *os.File is
	// passed on as it is; a terminal makes the command the terminal's
	// foreground process group while it runs (so it may read it, and ^C
	// reaches it as it would from a shell).
	Stdin io.Reader
	// NoTerminal runs the command in a session of its own, without ws's
	// controlling terminal, and never hands it the terminal: a confined
	// command could otherwise push input into the terminal (TIOCSTI on
	// /dev/tty) that the shell outside the sandbox runs once ws exits. A
	// terminal given as Stdin is passed on as a plain file.
	NoTerminal bool
	// SpareLeader: the command's first process is a wrapper that dies of
	// TERM and INT and then kills what it runs at once (bwrap, with
	// --die-with-parent). Those signals go to the rest of its group, so
	// that the command gets its grace period; KILL goes to all.
	SpareLeader bool
}

// RunForeground runs a command in its own process group with both streams
// captured. When the shell exits, what is left of its group gets TERM,
// then KILL after the grace period, so a child left running with `&`
// cannot hold ws; a process that escaped the group and still holds the
// pipes is not waited for beyond that. A timeout stops the whole group
// the same way; so does a cancelled ctx, with the signal that cancelled
// it (a *runner.SignalError cause: INT, QUIT or HUP to ws is passed on
// to the command, as a shell would), TERM otherwise.
func RunForeground(ctx context.Context, c Foreground) (*RunResult, error) {
	argv := c.Argv
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
	in, err := openStdin(c.Stdin)
	if err != nil {
		outR.Close()
		outW.Close()
		errR.Close()
		errW.Close()
		return nil, err
	}
	attr := &syscall.SysProcAttr{Setpgid: true}
	if c.NoTerminal {
		// A new session is a new process group too, with the same id.
		attr, in.tty, in.ctty = &syscall.SysProcAttr{Setsid: true}, false, false
	}
	if in.tty {
		attr.Foreground, attr.Ctty = true, 0
		in.handed = true
	}
	// ws killed with KILL (an agent harness's timeout, the OOM killer)
	// cannot stop the command's group, which is not its own: the shell, or
	// what it executed, gets KILL then too, rather than run on unwatched.
	// (Go keeps the forking thread while ws runs: no goroutine of ws
	// exits locked to its thread.)
	attr.Pdeathsig = syscall.SIGKILL
	// syscall.ForkExec rather than os.StartProcess: the latter probes for
	// pidfd support with an extra fork the first time, which is a good part
	// of a short command's cost.
	pid, err := syscall.ForkExec(argv[0], argv, &syscall.ProcAttr{
		Dir:   c.Dir,
		Env:   c.Env,
		Files: []uintptr{in.f.Fd(), outW.Fd(), errW.Fd()},
		Sys:   attr,
	})
	in.started()
	outW.Close()
	errW.Close()
	if err != nil {
		in.close()
		outR.Close()
		errR.Close()
		return nil, &os.PathError{Op: "fork/exec", Path: argv[0], Err: err}
	}
	defer in.close()
	defer func() {
		if in.handed {
			in.takeTerminalBack()
		}
	}()
	timeout := c.Timeout
	pgid := pid
	// Held until the group is empty or killed (the deferred release runs
	// after the clean-up below).
	holdGroup(pgid)
	defer releaseGroup(pgid)
	var out, errc capture
	var readers sync.WaitGroup
	readers.Add(2)
	go func() { defer readers.Done(); copyPipe(&out, outR) }()
	go func() { defer readers.Done(); copyPipe(&errc, errR) }()
	readersDone := make(chan struct{})
	go func() { readers.Wait(); close(readersDone) }()

	waitCh := make(chan syscall.WaitStatus, 1)
	go func() {
		// On ws's terminal the command may be stopped (^Z, or a read
		// from the background): ws follows it, as a shell's job does.
		opts := 0
		if in.ctty {
			opts = syscall.WUNTRACED
		}
		var st syscall.WaitStatus
		for {
			_, err := syscall.Wait4(pid, &st, opts, nil)
			if err == nil && st.Stopped() {
				in.suspend(pgid)
				continue
			}
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
	res := &RunResult{PID: pid}
	var st syscall.WaitStatus
	select {
	case st = <-waitCh:
	case <-timer:
		res.TimedOut = true
		st = stopGroup(pgid, syscall.SIGTERM, c.SpareLeader, waitCh)
	case <-ctx.Done():
		sig := syscall.SIGTERM
		var se *runner.SignalError
		if errors.As(context.Cause(ctx), &se) && (se.Signal == syscall.SIGINT || se.Signal == syscall.SIGHUP || se.Signal == syscall.SIGQUIT) {
			sig = se.Signal
		}
		st = stopGroup(pgid, sig, c.SpareLeader, waitCh)
	}
	// The shell is gone; stop what it left behind in its group: TERM, then
	// KILL to whatever is still there when the grace period ends (whether
	// or not it holds the output pipes). While the group has members its id
	// cannot be reused, so each signal reaches only what the shell started.
	if GroupAlive(pgid) {
		SignalGroup(pgid, syscall.SIGTERM)
		ContinueStopped(pgid)
		for deadline := time.Now().Add(KillGrace); GroupAlive(pgid); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				SignalGroup(pgid, syscall.SIGKILL)
				break
			}
		}
	}
	select {
	case <-readersDone:
	case <-time.After(100 * time.Millisecond):
		// Someone outside the group still holds the pipes (or the readers
		// are slow): take what is in them now, and stop reading.
		_ = outR.SetReadDeadline(time.Now())
		_ = errR.SetReadDeadline(time.Now())
		<-readersDone
	}
	outR.Close()
	errR.Close()

	res.Stdout, res.Dropped[0] = out.bytes()
	res.Stderr, res.Dropped[1] = errc.bytes()
	res.ExitCode, res.Signal = exitCodeOf(st)
	if res.TimedOut {
		res.ExitCode = 124
	}
	return res, nil
}

// copyPipe copies the pipe r into c until it ends, or, once a read
// deadline is set, until it holds nothing more: what was in it is kept
// (closing it instead dropped what a slow reader had not read yet).
func copyPipe(c *capture, r *os.File) {
	pumpPipe(r, func(b []byte) { c.Write(b) }, func() bool { return false })
}

// pumpPipe passes keep what the pipe r gives until it ends or fails. At a
// read deadline it passes keep what r holds then (drainPipe, which lifts
// the deadline) and asks caught whether to go on reading. The run of a
// foreground command (copyPipe) and a background one's log (streamCopy)
// both read their output this way.
func pumpPipe(r *os.File, keep func([]byte), caught func() bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			keep(buf[:n])
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			drainPipe(r, buf, keep)
			if caught() {
				continue
			}
			return
		}
		if err != nil {
			return
		}
	}
}

// pipeMax bounds what drainPipe takes: a pipe holds no more than
// fs.pipe-max-size (1 MiB by default), so more is a writer that goes on.
const pipeMax = 1 << 20

// drainPipe passes sink what is in the pipe r now (see runner.Drain), up
// to about pipeMax bytes: a writer outside ws's reach that keeps it full
// cannot hold the read for ever.
func drainPipe(r *os.File, buf []byte, sink func([]byte)) {
	taken := 0
	runner.Drain(r, buf, func(b []byte) bool {
		sink(b)
		taken += len(b)
		return taken < pipeMax+len(buf)
	})
}

// stopGroup sends sig to the group (see StopSignal), KILL after the
// grace period, and returns the shell's status.
func stopGroup(pgid int, sig syscall.Signal, spareLeader bool, waitCh <-chan syscall.WaitStatus) syscall.WaitStatus {
	StopSignal(pgid, sig, spareLeader)
	ContinueStopped(pgid)
	select {
	case st := <-waitCh:
		return st
	case <-time.After(KillGrace):
	}
	SignalGroup(pgid, syscall.SIGKILL)
	return <-waitCh
}

// ContinueStopped sends SIGCONT to the group pgid when one of its members
// is stopped (SIGSTOP, a kill -TSTP, ws kill --signal STOP), as a
// shell's kill does for a stopped job: a signal sent to stop it waits
// while it is stopped, so its TERM handler never ran, and the KILL after
// the grace period ended it (exit 137) however it would have stopped.
// Sent after that signal, so that the signal is what it runs first.
func ContinueStopped(pgid int) {
	stopped := false
	eachProcess(func(_ int, st statFields) { stopped = stopped || st.pgrp == pgid && st.state == 'T' })
	if stopped {
		SignalGroup(pgid, syscall.SIGCONT)
	}
}

// SignalGroup sends sig to every process of the group pgid.
func SignalGroup(pgid int, sig syscall.Signal) { _ = syscall.Kill(-pgid, sig) }

// StopSignal sends sig, a signal that asks a command to stop (or any
// other but KILL), to the group pgid: to all of it, or with spareLeader
// to every member but the leader
// (bwrap, which would die of it and KILL the command at once; the
// sandbox's init ignores it, and once the command is gone bwrap exits
// with its status). KILL always goes to the whole group.
func StopSignal(pgid int, sig syscall.Signal, spareLeader bool) {
	if !spareLeader || sig == syscall.SIGKILL {
		SignalGroup(pgid, sig)
		return
	}
	eachProcess(func(pid int, st statFields) {
		if st.pgrp == pgid && pid != pgid && !st.zombie() {
			_ = syscall.Kill(pid, sig)
		}
	})
}

// exitCodeOf maps a wait status to a shell-style exit code: the code, or
// 128+N for death by signal N (SPEC deviation 6).
func exitCodeOf(st syscall.WaitStatus) (code, sig int) {
	if st.Signaled() {
		return 128 + int(st.Signal()), int(st.Signal())
	}
	return st.ExitStatus(), 0
}

// stdinSource is a foreground command's stdin: the file the child gets,
// and, for a reader that is not a file, the copy that feeds a pipe.
type stdinSource struct {
	f      *os.File
	own    bool // f was opened here and is closed after the start
	ctty   bool // f is ws's controlling terminal, and the command's
	tty    bool // ctty, and ws was its foreground job: the command gets it
	handed bool // the command has the terminal now: ws takes it back at the end
	copied chan struct{}
	w      *os.File
}

func openStdin(r io.Reader) (*stdinSource, error) {
	if r == nil {
		f, err := os.Open(os.DevNull)
		return &stdinSource{f: f, own: true}, err
	}
	if f, ok := r.(*os.File); ok {
		// A terminal is handed over only when it is ws's controlling
		// terminal and ws is its foreground (a job the shell runs in
		// the foreground); otherwise it is passed on like any file.
		// One that ws runs in the background (&) gets it when the
		// command, reading it, stops, and ws is brought to the foreground
		// (suspend).
		pgrp, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCGPGRP)
		return &stdinSource{f: f, ctty: err == nil, tty: err == nil && pgrp == unix.Getpgrp()}, nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	s := &stdinSource{f: pr, own: true, w: pw, copied: make(chan struct{})}
	go func() {
		defer close(s.copied)
		io.Copy(pw, r) // EPIPE when the command stops reading: fine
		pw.Close()
	}()
	return s, nil
}

// started closes ws's copy of what the child now holds.
func (s *stdinSource) started() {
	if s.own {
		s.f.Close()
	}
}

// close stops feeding a command that has ended.
func (s *stdinSource) close() {
	if s.w != nil {
		s.w.Close()
	}
}

// suspend follows a command on ws's terminal that has been stopped (^Z
// sends its group SIGTSTP; reading the terminal from the background,
// SIGTTIN, as when ws itself runs in the background), as a job of a shell
// stops: ws takes the terminal back (if the command had it) and stops
// itself, so that the shell that runs ws gets its prompt back. When
// continued (fg) with the terminal, ws hands it to the command's group
// again; continued or not (bg), the group gets SIGCONT. Without it the
// shell waited on ws, ws on the stopped command, and the terminal stayed
// with the command, where ^C reaches a stopped process: nothing came back.
func (s *stdinSource) suspend(pgid int) {
	fd := int(s.f.Fd())
	if pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP); err == nil && pgrp == pgid {
		s.takeTerminalBack() // not when ws runs in the background (bg): the shell has it
		s.handed = false
	}
	cont := make(chan os.Signal, 1)
	signal.Notify(cont, syscall.SIGCONT)
	// TSTP, not STOP: in an orphaned process group, with no shell to
	// continue it, the kernel does not stop ws for it.
	_ = syscall.Kill(os.Getpid(), syscall.SIGTSTP)
	// The stop may take hold just after Kill returns: wait for the
	// SIGCONT that ends it (none comes when the TSTP was discarded), so
	// that the terminal is not handed on before ws has stopped.
	select {
	case <-cont:
	case <-time.After(time.Second):
	}
	signal.Stop(cont)
	if pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP); err == nil && pgrp == unix.Getpgrp() {
		signal.Ignore(syscall.SIGTTOU)
		s.handed = unix.IoctlSetPointerInt(fd, unix.TIOCSPGRP, pgid) == nil
		signal.Reset(syscall.SIGTTOU)
	}
	SignalGroup(pgid, syscall.SIGCONT)
}

// takeTerminalBack makes ws's own process group the terminal's foreground
// group again. ws is a background group by then, so SIGTTOU, which would
// stop it, is ignored for the call.
func (s *stdinSource) takeTerminalBack() {
	signal.Ignore(syscall.SIGTTOU)
	defer signal.Reset(syscall.SIGTTOU)
	_ = unix.IoctlSetPointerInt(int(s.f.Fd()), unix.TIOCSPGRP, unix.Getpgrp())
}
