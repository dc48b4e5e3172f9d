package remote

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/runner"
)

// Call is one command to run on a target.
type Call struct {
	Target Target
	// SSH is the ssh command (nil: ssh from the PATH).
	SSH    []string
	Header Header
	// Open opens a local input file (os.Open).
	Open   func(path string) (io.ReadCloser, error)
	Stdin  io.Reader
	Stdout io.Writer
	// WholeLines holds a line of stdout back until it is whole, and drops
	// one the connection cut short: for --json, whose envelopes and JSON
	// Lines are one line each, so that stdout never ends in half of one.
	WholeLines bool
	Stderr     io.Writer
	// Signals are the signals to pass on: the first of each run goes to
	// the remote command, a second one ends the transport (the same signal
	// again within Repeat is not a second one).
	Signals <-chan os.Signal
	// Repeat is how long a signal repeats the first (0: runner.RepeatWindow).
	Repeat time.Duration
	// Heartbeat is how often each side pings (0: every 10 s).
	Heartbeat time.Duration
	// Stop stops this process, for a SIGTSTP on Signals (nil: SIGSTOP
	// to itself); it returns once the process runs again.
	Stop func()
}

// Run runs the call and returns the remote command's exit status. An
// error means there was none: the transport failed, ws is not installed
// there, or the connection broke. A connection the server refused before
// the session began (sshd's MaxStartups turns away handshakes beyond 10
// at once) is tried again, a few times: nothing ran there yet.
func Run(ctx context.Context, c Call) (int, error) {
	for attempt := 1; ; attempt++ {
		code, err, again := runOnce(ctx, c)
		if !again || attempt == maxAttempts {
			return code, err
		}
		// 50 ms, 100 ms, … up to 1 s, and up to half as much again at
		// random, so that calls turned away together do not come back
		// together.
		wait := min(time.Duration(50<<(attempt-1))*time.Millisecond, time.Second)
		wait += time.Duration(rand.Int64N(int64(wait / 2)))
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case s := <-c.Signals:
			if n, _ := s.(syscall.Signal); n != syscall.SIGTSTP {
				return 128 + int(n), nil // as if the signal had ended it
			}
			suspend(&frameWriter{w: io.Discard}, newLiveness(time.Now), c.Stop)
		case <-time.After(wait):
		}
	}
}

// maxAttempts bounds the attempts at a connection turned away.
const maxAttempts = 8

// turnedAway tells a connection the server refused before it began: the
// ssh handshake did not start (kex_exchange_identification, or
// ssh_exchange_identification from an older ssh).
func turnedAway(said string, status int) bool {
	return status == 255 && (strings.Contains(said, "kex_exchange_identification:") || strings.Contains(said, "ssh_exchange_identification:"))
}

// runOnce is one attempt at the call; again says it may be tried again.
func runOnce(ctx context.Context, c Call) (code int, err error, again bool) {
	argv := c.Target.Command(c.SSH, "")
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	// Its own process group: a ^C on the terminal comes to ws, which
	// passes it on, instead of ending the transport under the command.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, err, false
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err, false
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return 0, err, false
	}
	if err := cmd.Start(); err != nil {
		return 0, errs.CannotReach(c.Target.URL, startFailure(err), err), false
	}
	every := c.Heartbeat
	if every == 0 {
		every = heartbeat
	}
	c.Header.HeartbeatMS = int(every / time.Millisecond)
	done := make(chan struct{})
	defer close(done)
	fw := &frameWriter{w: stdin}
	// The server's first frame says whether it pulls the inputs (modes);
	// wants are the inputs it asks for.
	modes := make(chan bool, 1)
	wants := make(chan int, len(c.Header.Inputs))
	c.Header.PullInputs = len(c.Header.Inputs) > 0
	go sendSession(fw, c, modes, wants, done, every)

	// Both streams count as word from the other side; a write to a slow
	// local reader is not the link's silence. The watch starts with the
	// server's first ping (an earlier ws never pings).
	alive := newLiveness(time.Now)
	copied := make(chan struct{})
	out := &outWriter{w: heldWriter{c.Stdout, alive}}
	if c.WholeLines {
		out.holdMax = maxHeldLine
	}
	go func() {
		io.CopyBuffer(out, hearing{stdout, alive}, make([]byte, maxFrame))
		close(copied)
	}()
	var silent atomic.Bool
	var watch sync.Once
	pinged := func() {
		watch.Do(func() {
			go alive.watch(done, every, silentBeats*every, func() {
				silent.Store(true)
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			})
		})
	}

	r := &reply{stderr: heldWriter{c.Stderr, alive}, pinged: pinged, credit: newCredit(), modes: modes, wants: wants, inputs: len(c.Header.Inputs)}
	defer r.credit.close()
	var sig struct {
		sync.Mutex
		got syscall.Signal
	}
	var firstAt time.Time
	within := c.Repeat
	if within == 0 {
		within = runner.RepeatWindow
	}
	go func() {
		for {
			select {
			case <-done:
				return
			case s := <-c.Signals:
				n, _ := s.(syscall.Signal)
				if n == syscall.SIGTSTP {
					suspend(fw, alive, c.Stop)
					continue
				}
				sig.Lock()
				first, repeat := sig.got == 0, n == sig.got && time.Since(firstAt) < within
				if first {
					sig.got, firstAt = n, time.Now()
				} else if !repeat {
					sig.got = n
				}
				sig.Unlock()
				if repeat {
					continue
				}
				switch {
				case first && !r.begun.Load():
					// No server there yet (a transport that hangs before
					// it runs ws): nothing ran, so the transport ends and
					// the call with it, as the signal asks.
					syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				case first:
					// Not waiting on it: a link that holds the frame must
					// not keep the next signal from ending the transport.
					go fw.frame(kindSignal, []byte{byte(n)})
				default:
					syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				}
			}
		}
	}()

	r.read(bufio.NewReaderSize(hearing{stderr, alive}, maxFrame+5), fw, c.Stdin)
	stdin.Close()
	<-copied
	werr := cmd.Wait()
	switch {
	case out.err != nil:
		// The output did not reach its place: ws fails as it would here
		// (before, it exited as the command did, the output lost).
		return 0, out.err, false
	case r.exit >= 0:
		if out.flush(); out.err != nil {
			return 0, out.err, false
		}
		if !r.passed {
			r.stderr.Write(r.after.Bytes())
		}
		return r.exit, nil, false
	case ctx.Err() != nil:
		return 0, ctx.Err(), false
	}
	sig.Lock()
	got := sig.got
	sig.Unlock()
	if got != 0 {
		return 128 + int(got), nil, false // as if the signal had ended it
	}
	said := strings.TrimSpace(r.before.String())
	if !r.started && len(oneLine(said)) > maxSaid {
		r.stderr.Write(r.before.Bytes()) // too long for the message: as they came
	}
	status, how := ended(werr)
	if silent.Load() {
		return 0, afterOutput(out, errs.ConnectionLost(c.Target.URL, "nothing came from there for "+seconds(silentBeats*every)+": the link is down")), false
	}
	if r.started {
		return 0, afterOutput(out, errs.ConnectionLost(c.Target.URL, describe(r.lastWords(), how))), false
	}
	if !r.started && turnedAway(said, status) {
		return 0, errs.CannotReach(c.Target.URL, describe(said, how), werr), true
	}
	if strings.Contains(said, `unknown command "__remote"`) {
		return 0, errs.OldWSThere(c.Target.URL, describe(said, how)), false
	}
	if status == 126 || status == 127 || notFound(said) {
		return 0, errs.NoWSThere(c.Target.URL, describe(said, how)), false
	}
	return 0, errs.CannotReach(c.Target.URL, describe(said, how)+sshHint(said), werr), false
}

// maxSaid bounds what a message quotes of the transport's words, and
// maxWords what is kept of them.
const (
	maxSaid  = 400
	maxWords = 64 << 10
)

// describe is what the transport said, for a message. Words too long for
// one keep their end, where ssh and the container runtimes say what went
// wrong ("Host key verification failed."), from a line's start if one
// fits; the caller passes them on in full.
func describe(said, how string) string {
	one := oneLine(said)
	switch {
	case one == "":
		one = "nothing on stderr"
	case len(one) > maxSaid:
		one = tail(said)
	}
	said = one
	if how != "" {
		said += " (" + how + ")"
	}
	return said
}

// ended is how the transport ended, from its Wait: its exit status (-1
// when it has none) and, for a message, "exit status N" or "killed by
// signal N" (a transport killed from outside says nothing on stderr).
func ended(werr error) (status int, how string) {
	var ee *exec.ExitError
	if !errors.As(werr, &ee) {
		return -1, ""
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, "killed by signal " + strconv.Itoa(int(ws.Signal()))
	}
	return ee.ExitCode(), "exit status " + strconv.Itoa(ee.ExitCode())
}

// oneLine is s with its runs of space and its line breaks as one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// tail is the end of said that fits in a message.
func tail(said string) string {
	lines := strings.Split(strings.TrimSpace(said), "\n")
	end := ""
	for i := len(lines) - 1; i >= 0; i-- {
		next := oneLine(strings.Join(lines[i:], "\n"))
		if len(next) > maxSaid-len("… ") {
			break
		}
		end = next
	}
	if end != "" {
		return "… " + end
	}
	last := oneLine(lines[len(lines)-1])
	cut := len(last) - (maxSaid - len("…"))
	for cut < len(last) && !utf8.RuneStart(last[cut]) {
		cut++
	}
	return "…" + last[cut:]
}

// startFailure says why the transport's program did not start, naming it
// when it was given as a path (exec:/opt/bin/kubectl …): the system's
// words alone ("no such file or directory") did not say which file.
func startFailure(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Path + ": " + errs.Errno(err)
	}
	return errs.Errno(err)
}

// AfterOutput is an error that came once the remote command had printed
// some of its output: a caller that promises one JSON envelope on stdout
// must not print a second one (the remote command's is there already).
type AfterOutput struct{ Err error }

func (e *AfterOutput) Error() string { return e.Err.Error() }
func (e *AfterOutput) Unwrap() error { return e.Err }

// afterOutput is err, marked as AfterOutput when out has passed output on.
func afterOutput(out *outWriter, err error) error {
	if out.wrote {
		return &AfterOutput{err}
	}
	return err
}

// outWriter passes the command's stdout on. After a write fails (a full
// disk), the rest is read and dropped, so the remote command finishes as
// it would have here, and err says why. With holdMax set, the end of
// the output after its last newline waits for the rest of its line, or
// for flush once the command has ended (up to holdMax bytes; a longer
// line is passed on as it comes).
type outWriter struct {
	w       io.Writer
	err     error
	wrote   bool // some output was passed on
	holdMax int
	held    []byte
}

// maxHeldLine bounds the line an outWriter holds back.
const maxHeldLine = 64 << 20

func (o *outWriter) Write(p []byte) (int, error) {
	n := len(p)
	if o.holdMax > 0 {
		// Only the new bytes are searched: the held ones hold no newline
		// (searching them all again made a long line's every write cost
		// its length so far: a 50 MB envelope took half a minute).
		i := bytes.LastIndexByte(p, '\n')
		if i >= 0 {
			i += len(o.held)
		}
		o.held = append(o.held, p...)
		if len(o.held)-(i+1) > o.holdMax {
			i = len(o.held) - 1 // too long to hold: passed on as it comes
		}
		if i >= 0 {
			o.pass(o.held[:i+1])
			o.held = append(o.held[:0], o.held[i+1:]...)
		}
		return n, nil
	}
	o.pass(p)
	return n, nil
}

// flush passes on the line held back: the command has ended, so it is
// whole as it is.
func (o *outWriter) flush() {
	o.pass(o.held)
	o.held = nil
}

func (o *outWriter) pass(p []byte) {
	o.wrote = o.wrote || len(p) > 0
	if o.err == nil && len(p) > 0 {
		if _, err := o.w.Write(p); err != nil {
			o.err = err
		}
	}
}

// suspend stops this ws (^Z) and tells the server first, so that neither
// side takes the pings that stop meanwhile for a dropped link: the remote
// command runs on, as a local one does while ws is stopped.
func suspend(fw *frameWriter, alive *liveness, stop func()) {
	if stop == nil {
		stop = func() { syscall.Kill(os.Getpid(), syscall.SIGSTOP) }
	}
	release := alive.hold()
	fw.frame(kindPause, nil)
	stop()
	fw.frame(kindResume, nil)
	release()
}

// sshHint is what to do about ssh's commonest refusals, which ssh run by
// hand would have asked about (ws runs it with BatchMode: it never asks).
func sshHint(said string) string {
	switch {
	case strings.Contains(said, "Host key verification failed."):
		return "; ssh to the host once by hand to check its key and accept it"
	case strings.Contains(said, "Permission denied (publickey"):
		return "; ws runs ssh without prompts (BatchMode): load the key into ssh-agent or name it with IdentityFile"
	}
	return ""
}

// seconds writes d in seconds ("60 s", "0.3 s").
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// notFound tells a shell's or a container runtime's "no such program"
// about ws, on one of the lines said (not one about something else, as
// ssh's "Could not chdir to home directory …: No such file or directory"
// or kubectl's 'pods "agent-7" not found').
func notFound(said string) bool {
	for _, line := range strings.Split(strings.ToLower(said), "\n") {
		if !strings.Contains(line, "not found") && !strings.Contains(line, "no such file or directory") {
			continue
		}
		words := strings.FieldsFunc(line, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("_.-/", r)
		})
		for _, w := range words {
			if w == "ws" || strings.HasSuffix(w, "/ws") {
				return true
			}
		}
	}
	return false
}

// sendSession sends the header and, once marked closes, the input files,
// then pings every heartbeat until done closes. Errors mean the transport went away; what
// it said is reported from the other side.
func sendSession(fw *frameWriter, c Call, modes <-chan bool, wants <-chan int, done <-chan struct{}, every time.Duration) {
	head, err := json.Marshal(c.Header)
	if err != nil {
		return
	}
	if fw.frame(kindHeader, head) != nil {
		return
	}
	// The input files wait for the server's marker: a connection turned
	// away before it has read none of them, and the call can be tried
	// again (a file that is a pipe could not be read twice). A server
	// that pulls them says so first, then asks for each as its command
	// reads it; an earlier one takes them all now.
	pull := false
	if len(c.Header.Inputs) > 0 {
		select {
		case pull = <-modes:
		case <-done:
			return
		}
	}
	buf := make([]byte, maxFrame)
	send := func(i int) bool {
		end := sendFile(fw, c.Open, c.Header.Inputs[i], buf)
		data, _ := json.Marshal(end)
		return fw.frame(kindFileEnd, data) == nil
	}
	if !pull {
		for i := range c.Header.Inputs {
			if !send(i) {
				return
			}
		}
	}
	if fw.frame(kindPing, nil) != nil {
		return
	}
	if !pull {
		ping(fw, done, every)
		return
	}
	go ping(fw, done, every)
	for {
		select {
		case i := <-wants:
			if !send(i) {
				return
			}
		case <-done:
			return
		}
	}
}

// sendFile sends one input's bytes and says how reading it ended.
func sendFile(fw *frameWriter, open func(string) (io.ReadCloser, error), path string, buf []byte) fileEnd {
	f, err := open(path)
	if err != nil {
		return endOf("open", err)
	}
	defer f.Close()
	for {
		n, err := f.Read(buf)
		if n > 0 {
			if fw.frame(kindFileData, buf[:n]) != nil {
				return fileEnd{}
			}
		}
		if err == io.EOF {
			return fileEnd{}
		}
		if err != nil {
			return endOf("read", err)
		}
	}
}

func endOf(op string, err error) fileEnd {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return fileEnd{Op: op, Errno: int(errno)}
	}
	return fileEnd{Op: op, Message: errs.Errno(err)}
}

// reply reads the server's side of the transport's stderr.
type reply struct {
	stderr io.Writer
	// before is what came before the marker (the transport's own words),
	// kept for a message when the server never started.
	before bytes.Buffer
	// after is what came when frames stopped coming: the transport's words
	// as the connection ended, or a crash's.
	after bytes.Buffer
	// passed: after went to stderr already.
	passed bool
	// pinged is called on each ping from the server.
	pinged func()
	// credit is how much stdin the server takes.
	credit *credit
	// modes gets whether the server pulls the inputs, from its first
	// frame; wants the inputs it asks for (of inputs).
	modes   chan<- bool
	wants   chan<- int
	inputs  int
	started bool
	// begun is started, for the goroutine that passes signals on.
	begun atomic.Bool
	exit  int
}

// lastWords are the words after the frames, for the message of a lost
// connection. Words too long for a message are passed on in full.
func (r *reply) lastWords() string {
	said := strings.TrimSpace(r.after.String())
	if len(oneLine(said)) > maxSaid && !r.passed {
		r.stderr.Write(r.after.Bytes())
		r.passed = true
	}
	return said
}

// read reads until the stream ends: the transport's words up to the
// marker, then frames.
func (r *reply) read(br *bufio.Reader, fw *frameWriter, stdin io.Reader) {
	r.exit = -1
	if !r.findMarker(br) {
		return
	}
	r.started = true
	r.begun.Store(true)
	first := true
	var once sync.Once
	for {
		// A stream that is not frames is words (the transport's, as the
		// connection ends, or a crash's): keep the bytes readFrame took too.
		head, _ := br.Peek(5)
		head = bytes.Clone(head)
		kind, payload, err := readFrame(br)
		if err != nil {
			if err != io.EOF {
				r.after.Write(head)
				io.Copy(&r.after, io.LimitReader(br, int64(maxWords-len(head))))
				if r.after.Len() >= maxWords { // a flood: pass it on as it comes
					r.stderr.Write(r.after.Bytes())
					r.passed = true
					io.Copy(r.stderr, br)
				}
			}
			return
		}
		if first && r.modes != nil {
			r.modes <- kind == kindPull
		}
		first = false
		switch kind {
		case kindWantFile:
			if i, err := strconv.Atoi(string(payload)); err == nil && i >= 0 && i < r.inputs && r.wants != nil {
				select {
				case r.wants <- i:
				default: // asked twice: the server asks each once
				}
			}
		case kindStderr:
			r.stderr.Write(payload)
		case kindWantStdin:
			once.Do(func() { go pumpStdin(fw, stdin, r.credit) })
		case kindCredit:
			if len(payload) == 4 && r.credit != nil {
				r.credit.add(int(binary.BigEndian.Uint32(payload)))
			}
		case kindPing:
			if r.pinged != nil {
				r.pinged()
			}
		case kindExit:
			if n, err := strconv.Atoi(string(payload)); err == nil {
				r.exit = n
			}
		}
	}
}

// findMarker passes on what the transport says before the server's
// marker (an ssh warning) and reports whether the marker came.
func (r *reply) findMarker(br *bufio.Reader) bool {
	matched := 0
	for {
		b, err := br.ReadByte()
		if err != nil {
			return false
		}
		if b == marker[matched] {
			matched++
			if matched == len(marker) {
				r.stderr.Write(r.before.Bytes())
				return true
			}
			continue
		}
		r.before.WriteString(marker[:matched])
		matched = 0
		if b == marker[0] {
			matched = 1
			continue
		}
		r.before.WriteByte(b)
		if r.before.Len() > maxWords { // not ws talking: pass it on
			r.stderr.Write(r.before.Bytes())
			r.before.Reset()
		}
	}
}

// pumpStdin sends stdin to the server, as much as its credit allows.
func pumpStdin(fw *frameWriter, stdin io.Reader, cr *credit) {
	if stdin == nil {
		fw.frame(kindStdinEOF, nil)
		return
	}
	if cr == nil {
		cr = newCredit()
	}
	buf := make([]byte, maxFrame)
	for {
		room := cr.wait(len(buf))
		if room == 0 {
			return
		}
		n, err := stdin.Read(buf[:room])
		if n > 0 {
			cr.spend(n)
			if fw.frame(kindStdin, buf[:n]) != nil {
				return
			}
		}
		if err != nil {
			fw.frame(kindStdinEOF, nil)
			return
		}
	}
}
