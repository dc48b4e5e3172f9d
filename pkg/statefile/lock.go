package statefile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// ErrLockTimeout is returned when a lock stayed held by someone else for
// the whole wait.
var ErrLockTimeout = errors.New("lock held by another process")

// Lock is a held flock(2) lock on a lock file. A process that dies releases
// its locks with it, so a crash never leaves one held.
type Lock struct{ fd int }

// Acquire takes an exclusive lock on the file at path (created, owner-only,
// with its directory), waiting at most timeout for another holder to let
// go; a timeout of 0 tries once. It returns ErrLockTimeout when the wait
// ran out.
func Acquire(path string, timeout time.Duration) (*Lock, error) {
	// Short polls: holders keep exclusive locks briefly.
	return acquireWait(context.Background(), path, unix.LOCK_EX, timeout, 5*time.Millisecond)
}

// AcquireSharedWait takes a shared lock on the file at path (created as
// Acquire creates it). It gives up with ErrLockTimeout when an exclusive
// holder keeps the lock for timeout (0: it tries once), and with ctx's
// cause when ctx ends first (a ws interrupted while it waits goes no
// further).
func AcquireSharedWait(ctx context.Context, path string, timeout time.Duration) (*Lock, error) {
	return acquireWait(ctx, path, unix.LOCK_SH, timeout, 20*time.Millisecond)
}

// acquireWait is the one wait for a lock (how: LOCK_EX or LOCK_SH) on the
// file at path: polls from 1 ms, doubling up to maxPoll, until it is
// taken, timeout has passed (ErrLockTimeout), or ctx ends (its cause).
func acquireWait(ctx context.Context, path string, how int, timeout, maxPoll time.Duration) (*Lock, error) {
	fd, err := openLockFile(path, true)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(timeout)
	wait := time.Millisecond
	for {
		err := unix.Flock(fd, how|unix.LOCK_NB)
		if err == nil {
			return &Lock{fd: fd}, nil
		}
		if err != unix.EWOULDBLOCK && err != unix.EINTR {
			unix.Close(fd)
			return nil, &os.PathError{Op: "flock", Path: path, Err: err}
		}
		left := time.Until(deadline)
		if left <= 0 {
			unix.Close(fd)
			return nil, ErrLockTimeout
		}
		select {
		case <-ctx.Done(): // never, for context.Background
			unix.Close(fd)
			return nil, context.Cause(ctx)
		case <-time.After(min(wait, left)):
		}
		wait = min(wait*2, maxPoll)
	}
}

// TryAcquire takes an exclusive lock on an existing lock file if nobody
// holds it; ok is false when the file is missing or held.
func TryAcquire(path string) (l *Lock, ok bool) {
	fd, err := openLockFile(path, false)
	if err != nil {
		return nil, false
	}
	if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) != nil {
		unix.Close(fd)
		return nil, false
	}
	return &Lock{fd: fd}, true
}

func openLockFile(path string, create bool) (int, error) {
	flags := unix.O_RDWR | unix.O_CLOEXEC
	if create {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return -1, err
		}
		flags |= unix.O_CREAT
	}
	fd, err := unix.Open(path, flags, 0o600)
	if err != nil {
		return -1, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return fd, nil
}

// Is reports whether the locked file is still the one at path: false when
// it was removed (or replaced) after it was opened, so that a lock on it
// keeps out nobody who opens path now.
func (l *Lock) Is(path string) bool {
	var held, now unix.Stat_t
	if l == nil || l.fd < 0 || unix.Fstat(l.fd, &held) != nil || unix.Stat(path, &now) != nil {
		return false
	}
	return held.Dev == now.Dev && held.Ino == now.Ino
}

// Release lets the lock go. Releasing a nil or released lock does nothing.
func (l *Lock) Release() {
	if l != nil && l.fd >= 0 {
		unix.Flock(l.fd, unix.LOCK_UN)
		unix.Close(l.fd)
		l.fd = -1
	}
}
