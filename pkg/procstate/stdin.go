package procstate

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/wstools/ws/pkg/internal/hangup"
	"github.com/wstools/ws/pkg/runner"
	"github.com/wstools/ws/pkg/statefile"
	"golang.org/x/sys/unix"
)

// stdinRelay feeds a background command's stdin from a FIFO in its record
// directory. The command reads an ordinary pipe; the supervisor holds the
// FIFO open for reading and writing, so a writer that comes and goes (one
// ws send after another) never ends the command's input. Only close
// (SIGUSR1, ws send --eof) does: what was already sent is passed on
// first, then the pipe is closed and the command reads end of file.
type stdinRelay struct {
	dir  string
	fifo *os.File // the FIFO, open read-write
	w    *os.File // the write end of the command's stdin

	once    sync.Once
	closing chan struct{}
	gone    chan struct{} // closed by watch: nobody reads the command's stdin any more
	done    chan struct{}

	// The watch holds a copy of w; closeW wakes it (closing wake) and
	// waits for it (watched) before closing w, so the command reads end
	// of file at once.
	wake      int
	watched   chan struct{}
	closeOnce sync.Once
}

// openStdinRelay makes the FIFO in dir and returns the relay and the read
// end of the pipe that becomes the command's stdin.
func openStdinRelay(dir string) (*stdinRelay, *os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	s, err := newStdinRelay(dir, w)
	if err != nil {
		r.Close()
		return nil, nil, err
	}
	return s, r, nil
}

// newStdinRelay makes the FIFO in dir and returns the relay that feeds
// it to w: the write end of the command's stdin pipe, or a descriptor of
// its terminal's master (Spec.TTY). The relay owns w (it is closed on
// failure too).
func newStdinRelay(dir string, w *os.File) (*stdinRelay, error) {
	path := filepath.Join(dir, StdinName)
	if err := unix.Mkfifo(path, 0o600); err != nil {
		w.Close()
		return nil, &os.PathError{Op: "mkfifo", Path: path, Err: err}
	}
	fifo, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		w.Close()
		return nil, err
	}
	s := &stdinRelay{dir: dir, fifo: fifo, w: w, closing: make(chan struct{}), gone: make(chan struct{}), done: make(chan struct{}),
		wake: -1, watched: make(chan struct{})}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		close(s.watched) // no watch: the relay learns of a gone reader from a write
	} else {
		s.wake = p[1]
		go s.watch(p[0])
	}
	return s, nil
}

// closeW closes the write end of the command's stdin, once, the watch's
// copy first.
func (s *stdinRelay) closeW() {
	s.closeOnce.Do(func() {
		if s.wake >= 0 {
			unix.Close(s.wake)
		}
		<-s.watched
		s.w.Close()
	})
}

// run passes what arrives in the FIFO on to the command until close or
// stop.
func (s *stdinRelay) run() {
	defer close(s.done)
	buf := make([]byte, 32<<10)
	for {
		n, err := s.fifo.Read(buf)
		if n > 0 {
			if _, werr := s.w.Write(buf[:n]); werr != nil {
				break // the command closed its stdin or ended
			}
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			select {
			case <-s.closing:
				// Pass on what is in the FIFO now, without waiting for more.
				runner.Drain(s.fifo, buf, func(b []byte) bool {
					_, err := s.w.Write(b)
					return err == nil
				})
			case <-s.gone:
			default:
				continue
			}
			break
		}
		if err != nil {
			break
		}
	}
	s.finish()
}

// watch ends the relay once the command has closed its stdin (and no
// child of its holds it): until then the relay would learn it only from
// the next write, and the send that brought it would be told its bytes
// went in. Poll reports POLLERR on a pipe's write end that has no reader,
// and POLLHUP on a terminal's master once nobody holds its slave; wake (the read end of a pipe closeW closes) ends the watch.
func (s *stdinRelay) watch(wake int) {
	defer close(s.watched)
	defer unix.Close(wake)
	fd, err := hangup.Dup(s.w)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	if hangup.Wait(fd, wake) {
		close(s.gone)
		_ = s.fifo.SetReadDeadline(time.Now())
	}
}

// finish closes both ends and leaves the mark that ws send reads.
func (s *stdinRelay) finish() {
	s.closeW()
	s.fifo.Close()
	if f, err := os.Create(filepath.Join(s.dir, StdinClosed)); err == nil {
		f.Close()
	}
}

// close ends the command's input once what was sent has been passed on.
// It returns when the pipe is closed (or a generous wait has passed: a
// command that reads nothing cannot hold the supervisor).
func (s *stdinRelay) close() {
	if s == nil {
		return
	}
	s.once.Do(func() {
		close(s.closing)
		_ = s.fifo.SetReadDeadline(time.Now())
	})
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		s.closeW() // unblocks a write the command does not read
		<-s.done
	}
}

// stop ends the relay when the command has ended.
func (s *stdinRelay) stop() {
	if s == nil {
		return
	}
	s.once.Do(func() { close(s.closing) })
	s.closeW()
	_ = s.fifo.SetReadDeadline(time.Now())
	<-s.done
}

// abort closes a relay that never ran (the command did not start).
func (s *stdinRelay) abort() {
	if s != nil {
		s.fifo.Close()
		s.closeW()
	}
}

// Errors of SendInput.
var (
	ErrNoStdin     = errors.New("the process has no stdin pipe")
	ErrStdinClosed = errors.New("the process's stdin is closed")
	// ErrStdinStalled: the process took nothing of a write for the
	// whole wait (it does not read its stdin, or is busy).
	ErrStdinStalled = errors.New("the process did not take its input in time")
	// ErrStdinBusy: another send held the process's stdin for the whole
	// wait.
	ErrStdinBusy = errors.New("another send to the process is still writing")
)

// SourceError is a failure to read what was to be sent (ws send's stdin),
// not to write it.
type SourceError struct{ Err error }

func (e *SourceError) Error() string { return "reading the input: " + e.Err.Error() }
func (e *SourceError) Unwrap() error { return e.Err }

// sendChunk is how much of the input one write passes on at most.
const sendChunk = 32 << 10

// SendInput copies src to the stdin pipe of the process whose record
// directory is dir, as it is read: a stream (ws send - fed by tail -f) is
// passed on chunk by chunk as it comes, until its end. It returns how
// many bytes went in, errors included.
//
// One send writes at a time: it holds the flock of the record's
// stdin.lock until it is done, so that two senders' bytes never mix. It
// fails with ErrNoStdin when the process was started without a pipe,
// ErrStdinClosed when the pipe was closed or nobody reads it any more
// (the supervisor is gone), ErrStdinBusy when another send kept the lock
// for stall, and ErrStdinStalled when the process took nothing of a write
// for stall (0: no limit). The wait for src itself is not bounded; ctx
// ending stops everything (ctx.Err()).
func SendInput(ctx context.Context, dir string, src io.Reader, stall time.Duration) (int64, error) {
	if _, err := os.Stat(filepath.Join(dir, StdinClosed)); err == nil {
		return 0, ErrStdinClosed
	}
	path := filepath.Join(dir, StdinName)
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		return 0, ErrNoStdin
	}
	lock, err := lockStdin(ctx, filepath.Join(dir, StdinLock), stall)
	if err != nil {
		return 0, err
	}
	defer lock.Release()
	// Non-blocking: with no reader the open fails (ENXIO) instead of
	// waiting for one.
	f, err := os.OpenFile(path, os.O_WRONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW, 0)
	if errors.Is(err, unix.ENXIO) {
		return 0, ErrStdinClosed
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	stop := context.AfterFunc(ctx, func() { _ = f.SetWriteDeadline(time.Now()) })
	defer stop()
	done := make(chan struct{})
	defer close(done)
	chunks := readChunks(src, done)
	var sent int64
	for {
		var c chunk
		select {
		case c = <-chunks:
		case <-ctx.Done():
			return sent, ctx.Err()
		}
		if len(c.data) > 0 {
			var deadline time.Time
			if stall > 0 {
				deadline = time.Now().Add(stall)
			}
			// Set before ctx is looked at: once ctx ends, the deadline
			// stays in the past (AfterFunc set it, or it runs after).
			_ = f.SetWriteDeadline(deadline)
			if ctx.Err() != nil {
				return sent, ctx.Err()
			}
			n, err := f.Write(c.data)
			sent += int64(n)
			switch {
			case err == nil:
			case ctx.Err() != nil:
				return sent, ctx.Err()
			case errors.Is(err, os.ErrDeadlineExceeded):
				return sent, ErrStdinStalled
			case errors.Is(err, unix.EPIPE):
				return sent, ErrStdinClosed
			default:
				return sent, err
			}
		}
		if c.err == io.EOF {
			return sent, nil
		}
		if c.err != nil {
			return sent, &SourceError{c.err}
		}
	}
}

// chunk is one read of the input: data, then the read's error.
type chunk struct {
	data []byte
	err  error
}

// readChunks reads src in a goroutine of its own, so that a sender
// waiting for input (a terminal, tail -f) still stops when ctx ends. It
// reads one chunk ahead at most, and gives up once done is closed.
func readChunks(src io.Reader, done <-chan struct{}) <-chan chunk {
	out := make(chan chunk)
	go func() {
		for {
			buf := make([]byte, sendChunk)
			n, err := src.Read(buf)
			if n == 0 && err == nil {
				continue
			}
			select {
			case out <- chunk{buf[:n], err}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return out
}

// lockStdin takes the lock of a process's stdin, waiting at most wait
// (0: as long as it takes) while another send holds it.
func lockStdin(ctx context.Context, path string, wait time.Duration) (*statefile.Lock, error) {
	var deadline time.Time
	if wait > 0 {
		deadline = time.Now().Add(wait)
	}
	for {
		l, err := statefile.Acquire(path, 0)
		if !errors.Is(err, statefile.ErrLockTimeout) {
			return l, err
		}
		if !deadline.IsZero() && time.Now().After(deadline) {
			return nil, ErrStdinBusy
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}
