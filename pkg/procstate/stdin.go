package procstate

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

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
	done    chan struct{}
}

// openStdinRelay makes the FIFO in dir and returns the relay and the read
// end of the pipe that becomes the command's stdin.
func openStdinRelay(dir string) (*stdinRelay, *os.File, error) {
	path := filepath.Join(dir, StdinName)
	if err := unix.Mkfifo(path, 0o600); err != nil {
		return nil, nil, &os.PathError{Op: "mkfifo", Path: path, Err: err}
	}
	fifo, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		fifo.Close()
		return nil, nil, err
	}
	return &stdinRelay{dir: dir, fifo: fifo, w: w, closing: make(chan struct{}), done: make(chan struct{})}, r, nil
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
				s.drain(buf)
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

// drain passes on what is in the FIFO now, without waiting for more.
// The deadline that stopped run is lifted first: it would refuse the raw
// read as well.
func (s *stdinRelay) drain(buf []byte) {
	if s.fifo.SetReadDeadline(time.Time{}) != nil {
		return
	}
	rc, err := s.fifo.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Read(func(fd uintptr) bool {
		for {
			n, err := unix.Read(int(fd), buf)
			if err == unix.EINTR {
				continue
			}
			if n <= 0 || err != nil {
				return true
			}
			if _, werr := s.w.Write(buf[:n]); werr != nil {
				return true
			}
		}
	})
}

// finish closes both ends and leaves the mark that ws send reads.
func (s *stdinRelay) finish() {
	s.w.Close()
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
		s.w.Close() // unblocks a write the command does not read
		<-s.done
	}
}

// stop ends the relay when the command has ended.
func (s *stdinRelay) stop() {
	if s == nil {
		return
	}
	s.once.Do(func() { close(s.closing) })
	s.w.Close()
	_ = s.fifo.SetReadDeadline(time.Now())
	<-s.done
}

// abort closes a relay that never ran (the command did not start).
func (s *stdinRelay) abort() {
	if s != nil {
		s.fifo.Close()
		s.w.Close()
	}
}

// Errors of SendInput.
var (
	ErrNoStdin     = errors.New("the process has no stdin pipe")
	ErrStdinClosed = errors.New("the process's stdin is closed")
)

// SendInput writes data to the stdin pipe of the process whose record
// directory is dir. It fails with ErrNoStdin when the process was started
// without one, and ErrStdinClosed when the pipe was closed or nobody
// reads it any more (the supervisor is gone). A write the command does
// not read blocks until ctx ends.
func SendInput(ctx context.Context, dir string, data []byte) error {
	if _, err := os.Stat(filepath.Join(dir, StdinClosed)); err == nil {
		return ErrStdinClosed
	}
	path := filepath.Join(dir, StdinName)
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		return ErrNoStdin
	}
	// Non-blocking: with no reader the open fails (ENXIO) instead of
	// waiting for one.
	f, err := os.OpenFile(path, os.O_WRONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW, 0)
	if errors.Is(err, unix.ENXIO) {
		return ErrStdinClosed
	}
	if err != nil {
		return err
	}
	defer f.Close()
	stop := context.AfterFunc(ctx, func() { _ = f.SetWriteDeadline(time.Now()) })
	defer stop()
	_, err = f.Write(data)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, unix.EPIPE):
		return ErrStdinClosed
	}
	return err
}
