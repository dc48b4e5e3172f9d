//go:build linux

package fsroot

import (
	"sync"

	"golang.org/x/sys/unix"
)

var (
	openat2Once sync.Once
	openat2OK   bool
)

// HaveOpenat2 reports whether the kernel offers openat2(2) with
// RESOLVE_BENEATH (Linux 5.6 and later, and not filtered by a seccomp policy).
func HaveOpenat2() bool {
	openat2Once.Do(func() {
		fd, err := unix.Openat2(unix.AT_FDCWD, ".", &unix.OpenHow{
			Flags:   unix.O_PATH | unix.O_CLOEXEC,
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
		})
		if err == nil {
			unix.Close(fd)
			openat2OK = true
		}
	})
	return openat2OK && !ForceNoOpenat2
}

// openat2Beneath opens name below dirfd; any path (symlinks and ".."
// included) that would leave dirfd fails with EXDEV, atomically with the open.
func openat2Beneath(dirfd int, name string, flags int, mode uint32) (int, error) {
	for {
		fd, err := unix.Openat2(dirfd, name, &unix.OpenHow{
			Flags:   uint64(flags | unix.O_CLOEXEC),
			Mode:    uint64(mode),
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
		})
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		return fd, err
	}
}
