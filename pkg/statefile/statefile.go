package statefile

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/wstools/ws/pkg/internal/fdread"
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
// (owner-only) if needed.
func Write(path string, data []byte) error {
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
	if err = SyncClose(f, err); err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
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
