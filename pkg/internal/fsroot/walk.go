package fsroot

import (
	"bytes"
	"encoding/binary"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// DirEntry is one entry of a directory listing.
type DirEntry struct {
	Name   string
	IsDir  bool // for a symlink: whether its target is a directory
	IsLink bool
	// Special: a FIFO, a socket or a device (never a symlink, whatever
	// its target), which a search passes over without opening it: an
	// open can block, fail (a socket) or act (a tape rewinds, a watchdog
	// starts).
	Special bool
	Target  string // a symlink's text
}

// special reports a file type that is not a regular file, a directory or
// a symlink.
func special(mode uint32) bool {
	switch mode & unix.S_IFMT {
	case unix.S_IFIFO, unix.S_IFSOCK, unix.S_IFCHR, unix.S_IFBLK:
		return true
	}
	return false
}

// OpenDirAt opens the directory name inside the open directory dirfd,
// refusing to follow a symlink, so a walk that started beneath the root
// stays beneath it.
func OpenDirAt(dirfd int, name string) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// ReadDirFD lists the directory open at fd (which it does not close, and
// which must not have been read from yet), reading the kernel's dirent
// records directly: a listing costs one allocation per name. Types come from the directory itself; symlinks are
// stat'ed for their target's type and read for their text only when
// wantLinks is set.
func ReadDirFD(fd int, wantLinks bool) ([]DirEntry, error) {
	bp := direntPool.Get().(*[]byte)
	defer direntPool.Put(bp)
	buf := *bp
	var out []DirEntry
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return out, err
		}
		if n <= 0 {
			return out, nil
		}
		for off := 0; off < n; {
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			typ := buf[off+18]
			nameB := buf[off+19 : off+reclen]
			if i := bytes.IndexByte(nameB, 0); i >= 0 {
				nameB = nameB[:i]
			}
			off += reclen
			if len(nameB) == 0 || nameB[0] == '.' && (len(nameB) == 1 || len(nameB) == 2 && nameB[1] == '.') {
				continue
			}
			de := DirEntry{Name: string(nameB)}
			switch typ {
			case unix.DT_DIR:
				de.IsDir = true
			case unix.DT_FIFO, unix.DT_SOCK, unix.DT_CHR, unix.DT_BLK:
				de.Special = true
			case unix.DT_LNK:
				de.IsLink = true
				if wantLinks {
					var st unix.Stat_t
					if unix.Fstatat(fd, de.Name, &st, 0) == nil {
						de.IsDir = st.Mode&unix.S_IFMT == unix.S_IFDIR
					}
					de.Target = readlinkAt(fd, de.Name)
				}
			case unix.DT_UNKNOWN:
				// Filesystems without d_type: ask.
				var st unix.Stat_t
				if unix.Fstatat(fd, de.Name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
					de.IsDir = st.Mode&unix.S_IFMT == unix.S_IFDIR
					de.IsLink = st.Mode&unix.S_IFMT == unix.S_IFLNK
					de.Special = special(st.Mode)
				}
				if de.IsLink && wantLinks {
					if unix.Fstatat(fd, de.Name, &st, 0) == nil {
						de.IsDir = st.Mode&unix.S_IFMT == unix.S_IFDIR
					} else {
						de.IsDir = false
					}
					de.Target = readlinkAt(fd, de.Name)
				}
			}
			out = append(out, de)
		}
	}
}

var direntPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func readlinkAt(dirfd int, name string) string {
	buf := make([]byte, 256)
	for {
		n, err := unix.Readlinkat(dirfd, name, buf)
		if err != nil {
			return ""
		}
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, len(buf)*2)
	}
}

// IsHidden reports a dot-name.
func IsHidden(name string) bool { return strings.HasPrefix(name, ".") }

// JoinRel joins a slash-separated relative directory and a name ("" and
// "." are the top).
func JoinRel(dir, name string) string {
	if dir == "." || dir == "" {
		return name
	}
	return dir + "/" + name
}
