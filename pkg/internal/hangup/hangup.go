// Package hangup watches the writing end of a pipe, a socket or a
// terminal's master for its reader going away, which a writer otherwise
// learns only from its next write.
package hangup

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// Dup is a descriptor of c's own (close-on-exec), for a watch that must
// not race c's Close.
func Dup(c syscall.Conn) (int, error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	if cerr := rc.Control(func(f uintptr) { fd, err = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0) }); cerr != nil {
		return -1, cerr
	}
	return fd, err
}

// Wait blocks until fd has no reader left and returns true: poll reports
// POLLERR on a pipe's write end without a reader, and POLLHUP on a socket
// whose peer closed or a terminal's master once nobody holds its slave.
// It returns false when wake (the read end of a pipe) becomes readable or
// is closed at its other end, when poll fails, or when fd is not one poll
// can watch (POLLNVAL: no watch, and no busy loop).
func Wait(fd, wake int) bool {
	fds := []unix.PollFd{{Fd: int32(fd)}, {Fd: int32(wake), Events: unix.POLLIN}}
	for {
		fds[0].Revents, fds[1].Revents = 0, 0
		if _, err := unix.Poll(fds, -1); err == unix.EINTR {
			continue
		} else if err != nil || fds[1].Revents != 0 {
			return false
		}
		switch {
		case fds[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0:
			return true
		case fds[0].Revents&unix.POLLNVAL != 0:
			return false
		}
	}
}
