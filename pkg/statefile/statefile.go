package statefile

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/wstools/ws/pkg/internal/fdread"
	"golang.org/x/sys/unix"
)

// Read returns the content of the state file at path, as os.ReadFile does
// (errors.Is(err, fs.ErrNotExist) holds for a file not there), with plain
// blocking system calls: the state files every run of ws reads are small
// and local, and os.ReadFile would set Go's network poller up for the
// first of them (eight system calls and a thread).
func Read(path string) ([]byte, error) { return fdread.ReadFile(path) }

// List returns the entries of a state directory, sorted by name. A
// directory that does not exist yet (nothing was ever written there) has
// none; any other error is returned as it is.
func List(dir string) ([]fs.DirEntry, error) {
	des, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return des, err
}

// SyncClose ends a write to f whose outcome so far is err: unless that
// failed, f's data is synced to disk; f is closed either way. It returns
// the first failure.
func SyncClose(f *os.File, err error) error {
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Write replaces the file at path with data, creating its directory
// (owner-only) if needed. It is on disk, at its name, when Write returns.
func Write(path string, data []byte) error { return write(path, data, true) }

// WriteUnsynced is Write without the syncs: path has the whole of data
// or what it had before, never a part, but a crash may lose it (or leave
// it empty) until the file system is synced (SyncFS). For many files at
// once, none of which counts until that sync.
func WriteUnsynced(path string, data []byte) error { return write(path, data, false) }

// SyncFS writes to disk all that was written on the file system dir is
// on (syncfs(2)): one sync for many files, where each file's fsync and
// its directory's took two apiece.
func SyncFS(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = unix.Syncfs(int(f.Fd()))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func write(path string, data []byte, sync bool) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if sync {
		err = SyncClose(f, err)
	} else if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if !sync {
		return nil
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// WriteJSON writes v as indented JSON, one trailing newline, atomically:
// the form of ws's records, easy to read for people and for ws.
func WriteJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return Write(path, append(data, '\n'))
}
