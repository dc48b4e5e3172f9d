//go:build unix && !linux

package fsroot

import "golang.org/x/sys/unix"

func HaveOpenat2() bool { return false }

func openat2Beneath(dirfd int, name string, flags int, mode uint32) (int, error) {
	return -1, unix.ENOSYS
}
