package procstate

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/wstools/ws/pkg/internal/jsonenc"
	"github.com/wstools/ws/pkg/internal/wording"
	"github.com/wstools/ws/pkg/js"
	"github.com/wstools/ws/pkg/runner"
	"github.com/wstools/ws/pkg/statefile"
)

// Callbacks are commands run for a background process (Mastra's
// backgroundProcesses onStdout, onStderr and onExit): each gets JSON on
// stdin. They are run by a dispatcher process of their own, a sibling of
// the supervisor, which sends it the command's output and end through a
// pipe without ever waiting on it: a slow or failing callback never holds
// up, blocks or kills the command, and is reported in callbacks.json of
// the record (ws ps shows it).
type Callbacks struct {
	OnStdout []string           `json:"on_stdout,omitempty"`
	OnStderr []string           `json:"on_stderr,omitempty"`
	OnExit   []string           `json:"on_exit,omitempty"`
	Dir      statefile.String   `json:"dir"` // its bytes kept (see Spec)
	Env      []statefile.String `json:"env"`
}

// Callback limits.
const (
	chunkCallbackTimeout = 10 * time.Second // one onStdout or onStderr run
	exitCallbackTimeout  = 60 * time.Second // the onExit run
	chunkQueue           = 256              // chunks waiting for a slow callback; more are dropped
	exitTailBytes        = 64 << 10         // of each stream, given to onExit
	// CallbacksFile is the record-directory file of the callbacks' status.
	CallbacksFile = "callbacks.json"
)

// drainAfterExit is how long after the process's end chunk callbacks
// still run, at most: then the running ones are killed and the chunks
// still queued are dropped (a variable for tests).
var drainAfterExit = 30 * time.Second

// CallbackStatus says how one callback fared.
type CallbackStatus struct {
	Runs         int    `json:"runs"`
	Failures     int    `json:"failures"`
	DroppedBytes int64  `json:"dropped_bytes,omitempty"` // output never handed to it (it was too slow)
	LastError    string `json:"last_error,omitempty"`
}

// CallbacksStatus is callbacks.json.
type CallbacksStatus struct {
	OnStdout *CallbackStatus `json:"on_stdout,omitempty"`
	OnStderr *CallbackStatus `json:"on_stderr,omitempty"`
	OnExit   *CallbackStatus `json:"on_exit,omitempty"`
	Done     bool            `json:"done"` // every callback has run
}

// Failed reports whether a callback failed or missed output.
func (c *CallbacksStatus) Failed() bool {
	for _, s := range []*CallbackStatus{c.OnStdout, c.OnStderr, c.OnExit} {
		if s != nil && (s.Failures > 0 || s.DroppedBytes > 0) {
			return true
		}
	}
	return false
}

// event is one line on the pipe from the supervisor to the dispatcher.
type event struct {
	Type     string `json:"type"` // record, stdout, stderr, exit
	Dir      string `json:"dir,omitempty"`
	PID      int    `json:"pid,omitempty"`
	Command  string `json:"command,omitempty"`
	Data     []byte `json:"data,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
	// Dropped counts the output bytes the supervisor could not queue.
	DroppedOut int64 `json:"dropped_out,omitempty"`
	DroppedErr int64 `json:"dropped_err,omitempty"`
}

// eventSink is the supervisor's end: send never blocks (a full queue
// drops the chunk and counts it); a goroutine writes the queue to the
// pipe.
type eventSink struct {
	ch         chan event
	done       chan struct{}
	mu         sync.Mutex
	droppedOut int64
	droppedErr int64
}

func newEventSink(w io.WriteCloser) *eventSink {
	s := &eventSink{ch: make(chan event, 1024), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		defer w.Close()
		enc := json.NewEncoder(w)
		broken := false
		for e := range s.ch {
			if !broken && enc.Encode(e) != nil {
				broken = true // the dispatcher is gone: keep draining
			}
		}
	}()
	return s
}

// chunk queues output of one stream, or counts it as dropped.
func (s *eventSink) chunk(stream string, p []byte) {
	if s == nil {
		return
	}
	select {
	case s.ch <- event{Type: stream, Data: append([]byte(nil), p...)}:
	default:
		s.mu.Lock()
		if stream == "stdout" {
			s.droppedOut += int64(len(p))
		} else {
			s.droppedErr += int64(len(p))
		}
		s.mu.Unlock()
	}
}

// send queues an event that must not be dropped, waiting a little.
func (s *eventSink) send(e event) {
	if s == nil {
		return
	}
	select {
	case s.ch <- e:
	case <-time.After(2 * time.Second):
	}
}

// exit sends the end and closes the queue.
func (s *eventSink) exit(code int) {
	if s == nil {
		return
	}
	s.mu.Lock()
	e := event{Type: "exit", ExitCode: &code, DroppedOut: s.droppedOut, DroppedErr: s.droppedErr}
	s.mu.Unlock()
	s.send(e)
	close(s.ch)
}

// wait gives the writer a moment to hand the last events over.
func (s *eventSink) wait() {
	if s == nil {
		return
	}
	select {
	case <-s.done:
	case <-time.After(2 * time.Second):
	}
}

// dispatcher runs the callbacks of one process. Its chunk callbacks run
// under ctx, cancelled when the drain time after the process's end runs
// out: the runner then kills each one's process group.
type dispatcher struct {
	ctx     context.Context
	cancel  context.CancelFunc
	cb      Callbacks
	mu      sync.Mutex
	status  CallbacksStatus
	dir     string
	pid     int
	command string
}

func (d *dispatcher) save() {
	d.mu.Lock()
	defer d.mu.Unlock()
	// Never recreate a record directory that was removed (ws ps --prune,
	// ws destroy).
	if d.dir == "" {
		return
	}
	if _, err := os.Stat(d.dir); err != nil {
		return
	}
	_ = statefile.WriteJSON(filepath.Join(d.dir, CallbacksFile), d.status)
}

// run runs one callback and records how it went.
func (d *dispatcher) run(ctx context.Context, st *CallbackStatus, argv []string, in any, timeout time.Duration) {
	data, err := jsonenc.Marshal(in)
	data = append(data, '\n') // one line of JSON on the callback's stdin
	if err == nil {
		var res *runner.Result
		res, err = runner.Run(ctx, runner.Cmd{Argv: argv, Dir: string(d.cb.Dir), Env: statefile.Plain(d.cb.Env), Stdin: data, Timeout: timeout})
		if err != nil && ctx.Err() != nil {
			err = errors.New("killed: still running " + drainAfterExit.String() + " after the process ended")
		} else if err != nil && res != nil {
			if line := wording.FirstLine(string(res.Stderr)); line != "" {
				err = errors.New(err.Error() + ": " + line)
			}
		}
	}
	d.mu.Lock()
	st.Runs++
	if err != nil {
		st.Failures++
		st.LastError = err.Error()
	}
	d.mu.Unlock()
	if err != nil {
		d.save()
	}
}

// stream delivers the chunks of one stream to its callback, one run at a
// time; chunks that arrive while the queue is full, and those still
// queued when the dispatcher's context ends, are dropped and counted.
type stream struct {
	q    chan []byte
	done chan struct{}
	st   *CallbackStatus
}

func (d *dispatcher) startStream(name string, argv []string) *stream {
	if argv == nil {
		return nil
	}
	s := &stream{q: make(chan []byte, chunkQueue), done: make(chan struct{}), st: &CallbackStatus{}}
	go func() {
		defer close(s.done)
		for data := range s.q {
			if d.ctx.Err() != nil {
				d.mu.Lock()
				s.st.DroppedBytes += int64(len(data))
				d.mu.Unlock()
				continue
			}
			d.run(d.ctx, s.st, argv, map[string]any{"pid": d.pid, "command": d.command, "stream": name,
				"data": js.DecodeUTF8(data)}, chunkCallbackTimeout)
		}
	}()
	return s
}

func (d *dispatcher) offer(s *stream, data []byte) {
	if s == nil {
		return
	}
	select {
	case s.q <- data:
	default:
		d.mu.Lock()
		s.st.DroppedBytes += int64(len(data))
		d.mu.Unlock()
	}
}

// RunCallbacks is the body of `ws __callbacks`: it reads the supervisor's
// events from r and runs the callbacks cb names, until the process has
// ended and onExit has run. It returns its exit status. No callback of
// its outlives it: at the drain deadline the running chunk callbacks are
// killed and waited for, and no new one starts.
func RunCallbacks(r io.Reader) int {
	if f, ok := r.(*os.File); ok {
		closeInherited(f.Fd()) // the callbacks get neither the events pipe nor ws's caller's files
	}
	d := &dispatcher{}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	defer d.cancel()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	var out, errs *stream
	var exit *event
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		switch e.Type {
		case "record":
			spec, err := readSpec(e.Dir)
			if err != nil || spec.Callbacks == nil {
				return 1
			}
			d.cb, d.dir, d.pid, d.command = *spec.Callbacks, e.Dir, e.PID, e.Command
			out = d.startStream("stdout", d.cb.OnStdout)
			errs = d.startStream("stderr", d.cb.OnStderr)
			d.status.OnStdout, d.status.OnStderr = statusOf(out), statusOf(errs)
			if d.cb.OnExit != nil {
				d.status.OnExit = &CallbackStatus{}
			}
			d.save()
		case "stdout":
			d.offer(out, e.Data)
		case "stderr":
			d.offer(errs, e.Data)
		case "exit":
			exit = &e
		}
	}
	if d.dir == "" {
		return 1
	}
	deadline := time.NewTimer(drainAfterExit)
	defer deadline.Stop()
	for _, s := range []*stream{out, errs} {
		if s == nil {
			continue
		}
		close(s.q)
		select {
		case <-s.done:
		case <-deadline.C:
			d.cancel()
		}
	}
	// After the deadline: the running callbacks are being killed and the
	// queued chunks counted as dropped; wait for both.
	for _, s := range []*stream{out, errs} {
		if s != nil {
			<-s.done
		}
	}
	if exit != nil {
		d.mu.Lock()
		if out != nil {
			out.st.DroppedBytes += exit.DroppedOut
		}
		if errs != nil {
			errs.st.DroppedBytes += exit.DroppedErr
		}
		d.mu.Unlock()
		if d.cb.OnExit != nil {
			d.run(context.Background(), d.status.OnExit, d.cb.OnExit, d.exitPayload(*exit.ExitCode), exitCallbackTimeout)
		}
	}
	d.mu.Lock()
	d.status.Done = true
	d.mu.Unlock()
	d.save()
	return 0
}

func statusOf(s *stream) *CallbackStatus {
	if s == nil {
		return nil
	}
	return s.st
}

// exitPayload is what onExit reads: Mastra's fields, with the last 64 KiB
// of each stream.
func (d *dispatcher) exitPayload(code int) map[string]any {
	tail := func(name string) (string, bool, int64) {
		// Only the end is read; start counts what comes before it.
		end, _ := LogEnd(d.dir, name)
		data, start, _ := ReadLogFrom(d.dir, name, max(end-exitTailBytes, 0))
		return js.DecodeUTF8(data), start > 0, start
	}
	out, outCut, outDropped := tail(LogNames[0])
	errText, errCut, errDropped := tail(LogNames[1])
	return map[string]any{"pid": d.pid, "command": d.command, "exitCode": code, "stdout": out, "stderr": errText,
		"stdoutTruncated": outCut, "stderrTruncated": errCut, "stdoutDroppedBytes": outDropped, "stderrDroppedBytes": errDropped}
}

func readSpec(dir string) (*Spec, error) {
	var spec Spec
	data, err := os.ReadFile(filepath.Join(dir, "spec.json"))
	if err == nil {
		err = json.Unmarshal(data, &spec)
	}
	return &spec, err
}

// startCallbacks starts the dispatcher on the read end of a new pipe, in
// a session of its own, and returns the write end for the supervisor.
// argv is the program, then the whole argument vector (as Start's superv:
// the executable, then "ws", "__callbacks").
func startCallbacks(argv, env []string) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	p, err := os.StartProcess(argv[0], argv[1:], &os.ProcAttr{Dir: "/", Env: env, Files: []*os.File{nil, nil, nil, r},
		Sys: &syscall.SysProcAttr{Setsid: true}})
	if err != nil {
		w.Close()
		return nil, err
	}
	go p.Wait() // reap it if ws lives on (ws mcp); otherwise init does
	return w, nil
}

// LoadCallbacks reads a record's callbacks.json (nil when there is none).
func (s *Store) LoadCallbacks(id string) *CallbacksStatus {
	var c CallbacksStatus
	if readJSON(filepath.Join(s.Dir(id), CallbacksFile), &c) != nil {
		return nil
	}
	return &c
}
