package remote

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/wstools/ws/pkg/statefile"
)

// Header opens a session: what to run and how the local side looks.
type Header struct {
	// Version is the client's ws version.
	Version string `json:"version"`
	// Args is the command line, without the program name.
	Args []string `json:"args"`
	// StdinTTY and StdoutTTY: the local stdin and stdout are terminals.
	StdinTTY  bool `json:"stdin_tty"`
	StdoutTTY bool `json:"stdout_tty"`
	// Inputs are the local files the command reads, as named in Args.
	// Their bytes follow the header, in this order; with PullInputs, a
	// server that says kindPull first asks for each when the command
	// reads it (a command that refuses a file unread never has it sent).
	Inputs []string `json:"inputs,omitempty"`
	// InputSizes are the inputs' sizes when they are regular files, else
	// -1 (what the command sees of them before it reads one).
	InputSizes []int64 `json:"input_sizes,omitempty"`
	// PullInputs: the client sends an input when asked for it.
	PullInputs bool `json:"pull_inputs,omitempty"`
	// HeartbeatMS: once the inputs are sent, the client pings this often
	// and asks the server to ping as often while the command runs (0, from
	// an earlier ws: neither pings).
	HeartbeatMS int `json:"heartbeat_ms,omitempty"`
}

// wireHeader is Header as it crosses: its strings keep their bytes (a
// file name or a command that is not UTF-8 would otherwise arrive with
// U+FFFD in their place), and text is written as plain JSON strings, the
// form an earlier ws reads.
type wireHeader struct {
	Version   string             `json:"version"`
	Args      []statefile.String `json:"args"`
	StdinTTY  bool               `json:"stdin_tty"`
	StdoutTTY bool               `json:"stdout_tty"`
	Inputs    []statefile.String `json:"inputs,omitempty"`
	Heartbeat int                `json:"heartbeat_ms,omitempty"`
	Sizes     []int64            `json:"input_sizes,omitempty"`
	Pull      bool               `json:"pull_inputs,omitempty"`
}

// MarshalJSON writes the header with every byte of its strings.
func (h Header) MarshalJSON() ([]byte, error) {
	return json.Marshal(wireHeader{h.Version, statefile.Strings(h.Args), h.StdinTTY, h.StdoutTTY, statefile.Strings(h.Inputs), h.HeartbeatMS, h.InputSizes, h.PullInputs})
}

// UnmarshalJSON reads a header written by MarshalJSON.
func (h *Header) UnmarshalJSON(data []byte) error {
	var w wireHeader
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*h = Header{w.Version, statefile.Plain(w.Args), w.StdinTTY, w.StdoutTTY, statefile.Plain(w.Inputs), w.Sizes, w.Pull, w.Heartbeat}
	return nil
}

// fileEnd ends an input file: with an error when opening or reading it
// failed on the local side (an errno, so the remote reports it the same).
type fileEnd struct {
	Op      string `json:"op,omitempty"`
	Errno   int    `json:"errno,omitempty"`
	Message string `json:"message,omitempty"`
}

func (e fileEnd) err(path string) error {
	if e.Op == "" {
		return nil
	}
	var cause error = syscall.Errno(e.Errno)
	if e.Errno == 0 {
		cause = errors.New(e.Message)
	}
	return &fs.PathError{Op: e.Op, Path: path, Err: cause}
}

// Session is what the server gives the command it runs.
type Session struct {
	Header
	// Stdin asks the client for stdin on its first read.
	Stdin io.Reader
	// Stderr goes to the client's stderr.
	Stderr io.Writer
	inputs map[string]*input
	pulls  *pulls // the inputs asked for (PullInputs)
}

// input is a local file, kept in an unlinked temporary file.
type input struct {
	f       *os.File
	size    int64
	openErr error
	readErr error
	pulled  *pulled // with PullInputs: the input as it comes when asked for
}

// Open opens path if it is one of the session's input files; ok is false
// for any other path.
func (s *Session) Open(path string) (r io.ReadCloser, ok bool, err error) {
	if s == nil || s.inputs[path] == nil {
		return nil, false, nil
	}
	in := s.inputs[path]
	if in.pulled != nil {
		if err := s.pulls.opened(in.pulled); err != nil {
			return nil, true, err
		}
		return &pulledReader{p: in.pulled, s: s.pulls}, true, nil
	}
	if in.openErr != nil {
		return nil, true, in.openErr
	}
	return &inputReader{r: io.NewSectionReader(in.f, 0, in.size), err: in.readErr}, true, nil
}

// inputReader reads an input's bytes, then the error reading it met.
type inputReader struct {
	r   io.Reader
	err error
}

func (r *inputReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err == io.EOF && r.err != nil {
		err = r.err
	}
	return n, err
}

func (r *inputReader) Close() error { return nil }

// Serve is the server side: it reads the session from in (the transport's
// stdin), runs it with run, and returns the exit status. stderr is the
// transport's stderr; the command's stdout is the process's own. When the
// client goes away (its stream ends, or goes silent for silentBeats of the
// heartbeat it asked for), the process gets SIGHUP, as a command whose
// terminal closed does.
func Serve(in io.Reader, stderr io.Writer, version string, run func(*Session) int) int {
	self := os.Getpid()
	return serve(in, stderr, version, run, func() { syscall.Kill(self, syscall.SIGHUP) })
}

// serve is Serve with what a hangup does.
func serve(in io.Reader, stderr io.Writer, version string, run func(*Session) int, hangup func()) int {
	if _, err := io.WriteString(stderr, marker); err != nil {
		return 1
	}
	fw := &frameWriter{w: stderr}
	s := &Session{Stderr: streamWriter{fw, kindStderr}, inputs: map[string]*input{}}
	defer s.close()
	alive := newLiveness(time.Now)
	br := bufio.NewReaderSize(hearing{in, alive}, maxFrame+5)
	// The pings start with the header, so that the client hears them
	// while its input files cross too.
	done := make(chan struct{})
	stop := sync.OnceFunc(func() { close(done) })
	defer stop()
	var every time.Duration
	pinging := func() {
		if s.HeartbeatMS > 0 {
			every = time.Duration(s.HeartbeatMS) * time.Millisecond
			fw.frame(kindPing, nil) // the first before the command can say anything
			go ping(fw, done, every)
		}
	}
	err := s.readHeader(br)
	if err == nil && s.PullInputs {
		// Said first, before any ping: the client then waits to be asked
		// for each input, where it would send them all now.
		err = fw.frame(kindPull, nil)
		s.pulls = newPulls(fw)
		for i, path := range s.Inputs {
			size := int64(-1)
			if i < len(s.InputSizes) {
				size = s.InputSizes[i]
			}
			s.inputs[path] = &input{pulled: s.pulls.add(i, path, size)}
		}
	}
	if err == nil {
		pinging()
		if !s.PullInputs {
			err = s.readInputs(br)
		}
	}
	if err != nil {
		var sig *signalledError
		if errors.As(err, &sig) {
			// The command never ran: the session ends as the signal
			// would have ended it, with nothing to say.
			return fw.exit(128 + int(sig.sig))
		}
		if errors.Is(err, io.EOF) {
			err = errors.New("no session came on stdin: the transport must pass stdin on (docker, podman and kubectl exec need -i)")
		}
		fmt.Fprintf(s.Stderr, "ws: remote session: %v\n", err)
		return fw.exit(1)
	}
	if s.Version != version {
		// Shown on the caller's side: "there" is this machine.
		fmt.Fprintf(s.Stderr, "ws: warning: the ws there is version %s, this one %s ('ws remote install' copies this one there)\n", version, s.Version)
	}
	q := newStdinQueue(func(n int) { fw.frame(kindCredit, creditFrame(n)) })
	defer q.close()
	var once sync.Once
	gone := func() {
		once.Do(func() {
			q.end(io.ErrUnexpectedEOF)
			hangup()
		})
	}
	s.Stdin = &askingReader{r: q, ask: func() error {
		// The credit first: a client that keeps to it knows so when asked.
		if err := fw.frame(kindCredit, creditFrame(stdinWindow)); err != nil {
			return err
		}
		return fw.frame(kindWantStdin, nil)
	}}
	go s.pump(br, q, alive, gone)
	if every > 0 {
		alive.heard() // the silence counts from here: the inputs were the client's words
		go alive.watch(done, every, silentBeats*every, gone)
	}
	code := run(s)
	stop()
	return fw.exit(code)
}

// exit sends the exit status and returns it.
func (fw *frameWriter) exit(code int) int {
	fw.frame(kindExit, []byte(strconv.Itoa(code)))
	return code
}

func (s *Session) close() {
	for _, in := range s.inputs {
		if in.f != nil {
			in.f.Close()
		}
	}
	s.pulls.close()
}

// readHeader reads the header.
func (s *Session) readHeader(br *bufio.Reader) error {
	kind, payload, err := readFrame(br)
	if err != nil {
		return err
	}
	if sig := signalFrame(kind, payload); sig != nil {
		return sig
	}
	if kind != kindHeader {
		return fmt.Errorf("%w: expected the header", errBadFrame)
	}
	if err := json.Unmarshal(payload, &s.Header); err != nil {
		return fmt.Errorf("bad header: %v", err)
	}
	return nil
}

// readInputs reads the input files, which follow the header (a client
// that does not pull them).
func (s *Session) readInputs(br *bufio.Reader) error {
	for _, path := range s.Inputs {
		in, err := readInput(br, path)
		if err != nil {
			return err
		}
		s.inputs[path] = in
	}
	return nil
}

// readInput keeps the bytes of one input in an unlinked temporary file.
func readInput(br *bufio.Reader, path string) (*input, error) {
	in := &input{}
	for {
		kind, payload, err := readFrame(br)
		if err != nil {
			return nil, err
		}
		switch kind {
		case kindFileData:
			if in.f == nil {
				if in.f, err = os.CreateTemp("", "ws-remote-*"); err != nil {
					return nil, err
				}
				os.Remove(in.f.Name())
			}
			if _, err := in.f.Write(payload); err != nil {
				return nil, err
			}
			in.size += int64(len(payload))
		case kindFileEnd:
			var end fileEnd
			if err := json.Unmarshal(payload, &end); err != nil {
				return nil, fmt.Errorf("bad file end: %v", err)
			}
			if end.Op == "open" {
				in.openErr = end.err(path)
			} else {
				in.readErr = end.err(path)
			}
			if in.f == nil && in.openErr == nil {
				in.f, _ = os.Open(os.DevNull)
			}
			return in, nil
		case kindSignal:
			if sig := signalFrame(kind, payload); sig != nil {
				return nil, sig
			}
			return nil, fmt.Errorf("%w: a signal of %d bytes", errBadFrame, len(payload))
		default:
			return nil, fmt.Errorf("%w: %q in a file", errBadFrame, kind)
		}
	}
}

// signalledError is a signal the client passed on before the command
// started (the local ws got it while the input files still crossed).
type signalledError struct{ sig syscall.Signal }

func (e *signalledError) Error() string { return "interrupted by signal " + strconv.Itoa(int(e.sig)) }

// signalFrame is the signal a frame passes on, or nil.
func signalFrame(kind byte, payload []byte) *signalledError {
	if kind != kindSignal || len(payload) != 1 {
		return nil
	}
	return &signalledError{syscall.Signal(payload[0])}
}

// pump reads the client's frames for the rest of the session: stdin into
// q, signals raised here as if they had come to this process. A stream
// that ends without its end (the client went away) is gone.
func (s *Session) pump(br *bufio.Reader, q *stdinQueue, alive *liveness, gone func()) {
	self := os.Getpid()
	var resume func()
	for {
		kind, payload, err := readFrame(br)
		if err != nil {
			s.pulls.fail(io.ErrUnexpectedEOF)
			gone()
			return
		}
		switch kind {
		case kindFileData:
			s.pulls.data(payload)
		case kindFileEnd:
			s.pulls.end(payload)
		case kindPause:
			if resume == nil {
				resume = alive.hold()
			}
		case kindResume:
			if resume != nil {
				resume()
				resume = nil
			}
		case kindStdin:
			q.push(payload, alive.hold)
		case kindStdinEOF:
			q.end(io.EOF)
		case kindSignal:
			if len(payload) == 1 {
				syscall.Kill(self, syscall.Signal(payload[0]))
			}
		}
	}
}

// askingReader sends ask once, before its first read.
type askingReader struct {
	r    io.Reader
	ask  func() error
	once sync.Once
}

func (a *askingReader) Read(p []byte) (int, error) {
	a.once.Do(func() { a.ask() })
	return a.r.Read(p)
}
