package procstate

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/wstools/ws/pkg/statefile"
)

// Cursor is how far one reader (a thread) has seen a process's output:
// the end of each stream at its last read, counted from the first byte
// the process wrote (dropped bytes included), so a rotated log does not
// move it.
type Cursor struct {
	Stdout int64 `json:"stdout"`
	Stderr int64 `json:"stderr"`
}

// cursorPath is the cursor file of thread ("" is the workspace's own) in
// a record directory; the thread id is data, so only its hash names the
// file.
func cursorPath(dir, thread string) string {
	sum := sha256.Sum256([]byte(thread))
	return filepath.Join(dir, "seen", hex.EncodeToString(sum[:8])+".json")
}

// ReadCursor returns thread's cursor in the record directory dir; a
// thread that never read starts at zero.
func ReadCursor(dir, thread string) (Cursor, error) {
	var c Cursor
	err := readJSON(cursorPath(dir, thread), &c)
	if errors.Is(err, fs.ErrNotExist) {
		return Cursor{}, nil
	}
	return c, err
}

// WriteCursor records thread's cursor (atomically). A record directory
// that is gone (removed by ws destroy or ws ps --prune while its output
// was read) is not made again: that fails.
func WriteCursor(dir, thread string, c Cursor) error {
	path := cursorPath(dir, thread)
	if err := os.Mkdir(filepath.Dir(path), 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return statefile.WriteJSON(path, c)
}
