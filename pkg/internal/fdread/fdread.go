// Package fdread reads files with plain blocking system calls: no *os.File,
// so nothing is handed to Go's network poller, which sets itself up (an
// epoll, an eventfd, a waiting thread) on the first file a process opens
// with package os, and registers and unregisters every file after it.
package fdread

import (
	"io/fs"
	"syscall"
)

// ReadAll reads the file open at fd into buf (from its start: buf's length
// is dropped), growing it when full, and returns it. size is what fstat
// said the file holds: once that much is read and the last read left room
// in buf, the file is at its end (a regular file reads short only there),
// so no read is spent to see it; a file that grew since is read on to its
// end.
func ReadAll(fd int, size int64, buf []byte) ([]byte, error) {
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return buf, err
		}
		buf = buf[:len(buf)+n]
		if n == 0 || int64(len(buf)) == size && len(buf) < cap(buf) {
			return buf, nil
		}
	}
}

// ReadFile returns the content of the file at path, as os.ReadFile does:
// its errors are *fs.PathError, so errors.Is(err, fs.ErrNotExist) holds
// for a file that is not there.
func ReadFile(path string) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	size := int64(-1) // not known: read to the end
	if syscall.Fstat(fd, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFREG && st.Size > 0 {
		size = st.Size
	}
	data, err := ReadAll(fd, size, make([]byte, 0, max(size+1, 512)))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return data, nil
}
