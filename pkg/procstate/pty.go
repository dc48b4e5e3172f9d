package procstate

import (
	"bytes"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// The window size of a background command's terminal (Spec.TTY).
const (
	TTYCols = 80
	TTYRows = 24
)

// EOFChar is what ws send --eof sends to a command on a terminal: ^D, the
// terminal's end-of-file character (VEOF). A terminal is not closed: a
// program reading it in canonical mode, or through readline, takes ^D at
// the start of a line as end of file.
const EOFChar = "\x04"

// openPTY opens a new pseudo-terminal of cols×rows: the master (for Go's
// poller: non-blocking, close-on-exec) and the slave, which the command
// gets as its stdin, stdout, stderr and controlling terminal. Neither
// becomes the caller's controlling terminal (O_NOCTTY: a supervisor is a
// session leader without one).
func openPTY(cols, rows uint16) (master, slave *os.File, err error) {
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, &os.PathError{Op: "open", Path: "/dev/ptmx", Err: err}
	}
	fail := func(op string, err error) (*os.File, *os.File, error) {
		unix.Close(fd)
		return nil, nil, &os.PathError{Op: op, Path: "/dev/ptmx", Err: err}
	}
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		return fail("unlock (TIOCSPTLCK)", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		return fail("name (TIOCGPTN)", err)
	}
	name := "/dev/pts/" + strconv.FormatUint(uint64(n), 10)
	sfd, err := unix.Open(name, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fail("open "+name, err)
	}
	if err := unix.IoctlSetWinsize(sfd, unix.TIOCSWINSZ, &unix.Winsize{Col: cols, Row: rows}); err != nil {
		unix.Close(sfd)
		return fail("set the window size of "+name, err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(sfd)
		return fail("set non-blocking", err)
	}
	return os.NewFile(uintptr(fd), "/dev/ptmx"), os.NewFile(uintptr(sfd), name), nil
}

// dupFile is a second descriptor of f (close-on-exec), as its own File:
// the stdin relay writes to a terminal's master through one, and closes
// it, while the output copy reads the master through f.
func dupFile(f *os.File) (*os.File, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	if cerr := rc.Control(func(x uintptr) { fd, err = unix.FcntlInt(x, unix.F_DUPFD_CLOEXEC, 0) }); cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}

// lineEnds turns the line ends of a terminal's output into plain line
// feeds: its output translation (ONLCR) writes every LF as CR LF, and a
// program that wrote CR LF itself gives CR CR LF. Carriage returns right
// before a line feed are dropped, across chunks; any other carriage
// return (a progress bar redrawn in place) is kept.
type lineEnds struct{ cr int } // carriage returns held back: a line feed may follow

// translate returns p with its line ends translated; CRs at its end are
// held back for the next chunk (or flush).
func (l *lineEnds) translate(p []byte) []byte {
	out := make([]byte, 0, len(p)+l.cr)
	for len(p) > 0 {
		if l.cr > 0 && p[0] == '\n' {
			l.cr = 0 // the CRs were part of the line end
		}
		i := bytes.IndexByte(p, '\r')
		if i < 0 {
			out = l.release(out)
			return append(out, p...)
		}
		if i > 0 {
			out = l.release(out)
			out = append(out, p[:i]...)
		}
		for p = p[i:]; len(p) > 0 && p[0] == '\r'; p = p[1:] {
			l.cr++
		}
	}
	return out
}

// release appends the CRs held back, which no line feed followed.
func (l *lineEnds) release(out []byte) []byte {
	for ; l.cr > 0; l.cr-- {
		out = append(out, '\r')
	}
	return out
}

// flush returns the CRs still held back (the output ended with them).
func (l *lineEnds) flush() []byte { return l.release(nil) }
