package mcp

import (
	"errors"
	"io"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/wstools/ws/pkg/internal/hangup"
)

// errReaderGone is Serve's error when the client closed its end of ws's
// stdout while calls still ran.
var errReaderGone = errors.New("stdout has no reader: the MCP client closed it (it quit or crashed); the calls in flight were stopped")

// watchReader calls gone once out, a pipe or a socket, has nobody left
// to read it: poll reports POLLERR on a pipe's write end without a
// reader, and POLLHUP on a socket whose peer closed. A client that quits
// or crashes closes ws's stdin and stdout at once; without this, a call
// whose command never ends (timeout 0) would keep ws and the command
// running, since only a write would learn that the reader is gone and
// nothing more is written until the call answers. A client that only
// ends ws's input (a request file, a pipe's writer) is not gone.
// The returned stop ends the watch; it does nothing for another writer.
func watchReader(out io.Writer, gone func()) (stop func()) {
	sc, ok := out.(syscall.Conn)
	if !ok {
		return func() {}
	}
	fd, err := hangup.Dup(sc)
	if err != nil {
		return func() {}
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO && st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		unix.Close(fd)
		return func() {}
	}
	var p [2]int
	if unix.Pipe2(p[:], unix.O_CLOEXEC) != nil {
		unix.Close(fd)
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer unix.Close(fd)
		defer unix.Close(p[0])
		if hangup.Wait(fd, p[0]) {
			gone()
		}
	}()
	return func() {
		unix.Close(p[1]) // wakes the poll
		<-done
	}
}
