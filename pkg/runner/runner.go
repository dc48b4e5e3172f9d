package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// DefaultMaxOutput is how many bytes of each stream Run keeps when Cmd
// names no bound.
const DefaultMaxOutput = 1 << 20

// Cmd is one helper command.
type Cmd struct {
	Argv      []string      // program and arguments; Argv[0] is looked up in PATH
	Dir       string        // working directory
	Env       []string      // the whole environment
	Stdin     []byte        // what the command reads on stdin (nil: nothing)
	Timeout   time.Duration // 0: only ctx bounds the run
	MaxOutput int           // bytes kept of stdout and of stderr each; 0: DefaultMaxOutput
}

// Result is what a helper command printed.
type Result struct {
	Stdout, Stderr []byte
	Truncated      bool // a stream printed more than MaxOutput bytes; the rest was dropped
}

// ExitError is a command that ran but did not succeed.
type ExitError struct {
	Code   int // exit status, or -1 when killed by a signal
	Signal syscall.Signal
}

func (e *ExitError) Error() string {
	if e.Code < 0 {
		return "killed by signal " + fmt.Sprint(int(e.Signal)) + " (" + e.Signal.String() + ")"
	}
	return fmt.Sprintf("exit status %d", e.Code)
}

// TimeoutError is a command stopped because its time ran out.
type TimeoutError struct{ After time.Duration }

func (e *TimeoutError) Error() string { return "timed out after " + e.After.String() }

// SignalError is returned when ws itself got SIGINT, SIGTERM, SIGQUIT or SIGHUP
// while the command ran: the command's process group was killed, and the
// caller should end as that signal asks.
type SignalError struct{ Signal syscall.Signal }

func (e *SignalError) Error() string { return "interrupted by " + unix.SignalName(e.Signal) }

// RepeatWindow is how long after a signal the same signal again is the
// same request, not a second one ("stop now"): timeout(1) sends its signal
// to ws and then to ws's process group, and service managers signal every
// process of a group or cgroup, so ws gets it twice within microseconds.
const RepeatWindow = 250 * time.Millisecond

// Repeats tells whether signal s, got at now, only repeats first, got at
// firstAt.
func Repeats(s, first syscall.Signal, firstAt, now time.Time) bool {
	return s == first && now.Sub(firstAt) < RepeatWindow
}

// Run runs c and waits for it to exit. Its output is returned even when it
// fails. When ctx ends or c.Timeout passes, the command's whole process
// group is killed and Run returns ctx's error or a *TimeoutError. A command
// that exits while a background child of its own still holds stdout or
// stderr is not waited for: what the command printed before it exited is
// kept, the streams are then closed (the child gets EPIPE if it writes
// later), and the child is left to run.
func Run(ctx context.Context, c Cmd) (*Result, error) {
	if len(c.Argv) == 0 {
		return nil, errors.New("runner: empty command")
	}
	if c.MaxOutput <= 0 {
		c.MaxOutput = DefaultMaxOutput
	}
	runCtx := ctx
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	stdin, err := inputFile(c.Stdin)
	if err != nil {
		return nil, err
	}
	defer stdin.Close()
	out, err := newCapture(c.MaxOutput)
	if err != nil {
		return nil, err
	}
	errc, err := newCapture(c.MaxOutput)
	if err != nil {
		out.abort()
		return nil, err
	}
	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, out.w, errc.w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		out.abort()
		errc.abort()
		return nil, err
	}
	out.start()
	errc.start()
	// The command's end is first only noticed (WNOWAIT): until it is
	// reaped, its pid and so its process group id cannot be reused, and
	// killing the group on a timeout reaches only what it started.
	exited := make(chan struct{})
	go func() {
		var info unix.Siginfo
		for unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil) == unix.EINTR {
		}
		close(exited)
	}()
	// A signal to ws while the command runs must not leave the command's
	// group behind (it is not in ws's process group, so neither a
	// terminal's ^C nor a kill of ws reaches it).
	sigc := make(chan os.Signal, 1)
	NotifyStops(sigc)
	defer signal.Stop(sigc)
	killed := false
	var got os.Signal
	select {
	case <-exited:
	case <-runCtx.Done():
		killed = true
	case got = <-sigc:
	}
	if killed || got != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}
	waitErr := cmd.Wait()
	res := &Result{Stdout: out.finish(), Stderr: errc.finish()}
	res.Truncated = out.truncated || errc.truncated
	if got != nil {
		return res, &SignalError{Signal: got.(syscall.Signal)}
	}
	if killed {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		return res, &TimeoutError{After: c.Timeout}
	}
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		st := ee.Sys().(syscall.WaitStatus)
		if st.Signaled() {
			return res, &ExitError{Code: -1, Signal: st.Signal()}
		}
		return res, &ExitError{Code: st.ExitStatus()}
	}
	return res, waitErr
}

// NotifyStops relays to c the signals that stop a command ws runs:
// SIGINT, SIGTERM, SIGQUIT and SIGHUP. HUP too: a closed terminal or a
// dropped ssh session must not leave the command running (it is in a
// process group of its own, which the hangup does not reach). Unless HUP
// is ignored (nohup): then the command keeps ignoring it, as ws does.
// QUIT (^\ at a terminal) likewise; Go's own handling of it dumps ws's
// goroutines and exits 2, leaving the command running. A tool's run, a
// helper command (Run) and a remote call take the same signals.
func NotifyStops(c chan<- os.Signal) {
	signal.Notify(c, os.Interrupt, syscall.SIGTERM, syscall.SIGQUIT)
	if !signal.Ignored(syscall.SIGHUP) {
		signal.Notify(c, syscall.SIGHUP)
	}
}

// inputFile holds data in an anonymous in-memory file, so that the command
// reads it at its own pace and nobody has to write a pipe (which a child
// that never reads could block).
func inputFile(data []byte) (*os.File, error) {
	if data == nil {
		return os.Open(os.DevNull)
	}
	fd, err := unix.MemfdCreate("ws-stdin", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), "stdin")
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// capture reads one output stream into a bounded buffer.
type capture struct {
	r, w      *os.File
	max       int
	buf       []byte
	truncated bool
	done      chan struct{}
}

func newCapture(max int) (*capture, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	return &capture{r: r, w: w, max: max, done: make(chan struct{})}, nil
}

func (c *capture) keep(p []byte) {
	if room := c.max - len(c.buf); len(p) > room {
		p = p[:room]
		c.truncated = true
	}
	c.buf = append(c.buf, p...)
}

// start closes ws's copy of the write end (the child has its own) and reads
// until EOF or until finish cuts the read short.
func (c *capture) start() {
	c.w.Close()
	go func() {
		defer close(c.done)
		p := make([]byte, 32*1024)
		for {
			n, err := c.r.Read(p)
			c.keep(p[:n])
			if errors.Is(err, os.ErrDeadlineExceeded) {
				Drain(c.r, p, func(b []byte) bool { c.keep(b); return true })
				return
			}
			if err != nil {
				return
			}
		}
	}()
}

// Drain passes sink what can be read from f now, without waiting for
// more, until f has nothing left, ends, fails, or sink returns false. A
// read deadline, which would refuse the raw reads as well, is lifted
// first. f must be a pipe or FIFO in non-blocking mode (os.Pipe's are).
func Drain(f *os.File, buf []byte, sink func([]byte) bool) {
	if f.SetReadDeadline(time.Time{}) != nil {
		return
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Read(func(fd uintptr) bool {
		for {
			n, err := unix.Read(int(fd), buf)
			if n > 0 && !sink(buf[:n]) {
				return true
			}
			if err == unix.EINTR {
				continue
			}
			if n <= 0 || err != nil {
				return true
			}
		}
	})
}

// finish is called once the command has exited: everything it wrote is in
// the pipe by then, so the reader stops waiting for an EOF that a leftover
// child could hold back, takes what is there, and the pipe is closed.
func (c *capture) finish() []byte {
	_ = c.r.SetReadDeadline(time.Now())
	<-c.done
	c.r.Close()
	return c.buf
}

func (c *capture) abort() {
	c.r.Close()
	c.w.Close()
}
