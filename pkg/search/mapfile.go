package search

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps the file at path for reading (extra: mmap flags beside
// MAP_SHARED), or reads it when it cannot be mapped. mapped says which, so
// the caller knows to unmap. A file shorter than min is corrupt, with what
// as its name in the message. A missing file is fs.ErrNotExist.
func mapFile(path string, min int64, what string, extra int) (data []byte, mapped bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	size := st.Size()
	if size < min || size != int64(int(size)) {
		return nil, false, corruptf("%s is %d bytes", what, size)
	}
	if data, err = unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED|extra); err == nil {
		return data, true, nil
	}
	data, err = os.ReadFile(path)
	return data, false, err
}
