package workspace

import (
	"os"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// dirEntry is one entry of a directory listing.
type dirEntry struct {
	name   string
	isDir  bool // for a symlink: whether its target is a directory
	isLink bool
	target string // a symlink's text
}

// openDirAt opens the directory name inside the open directory dirfd,
// refusing to follow a symlink, so a walk that started beneath the root
// stays beneath it.
func openDirAt(dirfd int, name string) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// readDirFD lists the directory open at fd (which it does not close). Types
// come from the directory itself; symlinks are stat'ed for their target's
// type and read for their text only when wantLinks is set.
func readDirFD(fd int, wantLinks bool) ([]dirEntry, error) {
	dup, err := unix.Dup(fd)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(dup), ".")
	defer f.Close()
	if _, err := f.Seek(0, 0); err != nil {
		return nil, err
	}
	ents, err := f.ReadDir(-1)
	if err != nil && len(ents) == 0 {
		return nil, err
	}
	out := make([]dirEntry, 0, len(ents))
	for _, e := range ents {
		de := dirEntry{name: e.Name()}
		t := e.Type()
		switch {
		case t&os.ModeSymlink != 0:
			de.isLink = true
			if wantLinks {
				var st unix.Stat_t
				if unix.Fstatat(fd, de.name, &st, 0) == nil {
					de.isDir = st.Mode&unix.S_IFMT == unix.S_IFDIR
				}
				de.target = readlinkAt(fd, de.name)
			}
		case t.IsDir():
			de.isDir = true
		case t&os.ModeType == os.ModeIrregular:
			// Filesystems without d_type: ask.
			var st unix.Stat_t
			if unix.Fstatat(fd, de.name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
				de.isDir = st.Mode&unix.S_IFMT == unix.S_IFDIR
				de.isLink = st.Mode&unix.S_IFMT == unix.S_IFLNK
			}
		}
		out = append(out, de)
	}
	return out, nil
}

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

// lessUTF16 orders strings by UTF-16 code units, as JavaScript sorts them.
func lessUTF16(a, b string) bool {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			return utf16Key(ra) < utf16Key(rb)
		}
		a, b = a[na:], b[nb:]
	}
	return len(a) < len(b)
}

// utf16Key maps a rune to a value that sorts as its first UTF-16 unit
// would: supplementary characters (surrogate pairs, D800…) come before
// U+E000…U+FFFF.
func utf16Key(r rune) int {
	if r >= 0x10000 {
		hi, _ := utf16.EncodeRune(r)
		return int(hi)<<16 | int(r&0xffff)
	}
	return int(r) << 16
}

// sortEntries puts directories first, then names in UTF-16 order.
func sortEntries(es []dirEntry) {
	sort.Slice(es, func(i, j int) bool {
		if es[i].isDir != es[j].isDir {
			return es[i].isDir
		}
		return lessUTF16(es[i].name, es[j].name)
	})
}

// isHidden reports a dot-name.
func isHidden(name string) bool { return strings.HasPrefix(name, ".") }
