package search

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/wstools/ws/pkg/statefile"
	"golang.org/x/sys/unix"
)

// File names inside a store directory.
const (
	IndexFile   = "index.bin"
	lockFile    = "lock"
	corruptName = "index.corrupt"
)

// Store is the directory that holds one workspace's index.
type Store struct{ Dir string }

// Path is the index file.
func (s Store) Path() string { return filepath.Join(s.Dir, IndexFile) }

// Mapped is an index file opened for reading.
type Mapped struct {
	*Reader
	data   []byte
	mapped bool
}

// Close releases the file's mapping.
func (m *Mapped) Close() error {
	if m == nil || !m.mapped {
		return nil
	}
	m.mapped = false
	return unix.Munmap(m.data)
}

// Load opens the index for reading: nil (and no error) when there is
// none yet. The file is mapped, not read, so only the pages a query
// touches are loaded.
func (s Store) Load() (*Mapped, error) {
	data, mapped, err := mapFile(s.Path(), 1, "file", 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	r, err := Open(data)
	if err != nil {
		if mapped {
			unix.Munmap(data)
		}
		return nil, err
	}
	return &Mapped{Reader: r, data: data, mapped: mapped}, nil
}

// Save writes the index atomically: a temporary file in the same
// directory, fsynced, renamed over the old one; then the directory is
// fsynced. Readers see the old index or the new one, never a mix.
func (s Store) Save(data []byte) error { return statefile.Write(s.Path(), data) }

// SetAside moves a damaged index file out of the way (to index.corrupt,
// replacing an older one), so it can be looked at and a new one built.
func (s Store) SetAside() error {
	err := os.Rename(s.Path(), filepath.Join(s.Dir, corruptName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// Lock takes the store's lock, an flock(2) on a file in the directory, so
// that one process at a time changes the index; it waits at most timeout.
// A process that dies releases its lock with it.
func (s Store) Lock(timeout time.Duration) (*statefile.Lock, error) {
	l, err := statefile.Acquire(filepath.Join(s.Dir, lockFile), timeout)
	if errors.Is(err, statefile.ErrLockTimeout) {
		return nil, fmt.Errorf("the search index is locked by another ws process (waited %s)", timeout)
	}
	return l, err
}

// Bytes is the file's content (valid until Close).
func (m *Mapped) Bytes() []byte { return m.data }
