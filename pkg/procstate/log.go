package procstate

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// DefaultLogCap is how much output is kept per stream of a background
// process: 64 MiB, the newest part.
const DefaultLogCap = 64 << 20

// Log is a capped output file of one stream (stdout.log or stderr.log).
// It keeps the newest output: when the current file reaches half the cap it
// becomes <name>.1 (replacing the previous one) and a new file starts, so at
// most cap bytes are kept. The bytes dropped so far are counted in
// <name>.dropped for readers.
type Log struct {
	mu        sync.Mutex
	dir, name string
	cap       int64
	f         *os.File
	size      int64
	dropped   int64
}

// CreateLog opens a new, empty log.
func CreateLog(dir, name string, cap int64) (*Log, error) {
	if cap < 2 {
		cap = 2
	}
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	return &Log{dir: dir, name: name, cap: cap, f: f}, nil
}

// Write appends p, rotating as needed. It never fails on account of size.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	half := l.cap / 2
	for len(p) > 0 {
		room := half - l.size
		if room <= 0 {
			if err := l.rotate(); err != nil {
				return n - len(p), err
			}
			continue
		}
		chunk := p
		if int64(len(chunk)) > room {
			chunk = chunk[:room]
		}
		w, err := l.f.Write(chunk)
		l.size += int64(w)
		p = p[w:]
		if err != nil {
			return n - len(p), err
		}
	}
	return n, nil
}

func (l *Log) rotate() error {
	cur := filepath.Join(l.dir, l.name)
	old := cur + ".1"
	if fi, err := os.Stat(old); err == nil {
		l.dropped += fi.Size()
		if err := os.WriteFile(cur+".dropped.tmp", []byte(strconv.FormatInt(l.dropped, 10)), 0o600); err == nil {
			os.Rename(cur+".dropped.tmp", cur+".dropped")
		}
	}
	if err := os.Rename(cur, old); err != nil {
		return err
	}
	f, err := os.OpenFile(cur, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	l.f.Close()
	l.f, l.size = f, 0
	return nil
}

// MoveTo tells the log that its directory was renamed to dir.
func (l *Log) MoveTo(dir string) {
	l.mu.Lock()
	l.dir = dir
	l.mu.Unlock()
}

// Close closes the file.
func (l *Log) Close() error { return l.f.Close() }

// ReadLog returns the kept output of a stream and how many older bytes were
// dropped.
func ReadLog(dir, name string) ([]byte, int64, error) {
	cur := filepath.Join(dir, name)
	// Open the older part first: a rotation in between then loses a chunk
	// rather than showing one twice.
	old, err := os.ReadFile(cur + ".1")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, 0, err
	}
	f, err := os.Open(cur)
	if errors.Is(err, fs.ErrNotExist) {
		return old, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	now, err := io.ReadAll(f)
	if err != nil {
		return nil, 0, err
	}
	var dropped int64
	if b, err := os.ReadFile(cur + ".dropped"); err == nil {
		dropped, _ = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	}
	return append(old, now...), dropped, nil
}

// ReadLogFrom returns the kept output of a stream from the absolute
// offset from (counted from the first byte ever written, dropped bytes
// included) to its end, and the absolute offset where the returned bytes
// start: from itself, or later when the bytes at from were dropped. Only
// the part asked for is read, so following a large log costs what is new.
func ReadLogFrom(dir, name string, from int64) ([]byte, int64, error) {
	cur := filepath.Join(dir, name)
	var dropped int64
	if b, err := os.ReadFile(cur + ".dropped"); err == nil {
		dropped, _ = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	}
	// The older part first, as ReadLog does.
	var oldSize int64
	var out []byte
	start := max(from, dropped)
	if f, err := os.Open(cur + ".1"); err == nil {
		fi, err := f.Stat()
		if err == nil {
			oldSize = fi.Size()
			if start < dropped+oldSize {
				out, err = readAt(f, start-dropped)
			}
		}
		f.Close()
		if err != nil {
			return nil, 0, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, 0, err
	}
	f, err := os.Open(cur)
	if errors.Is(err, fs.ErrNotExist) {
		return out, start, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	rest, err := readAt(f, max(start-dropped-oldSize, 0))
	if err != nil {
		return nil, 0, err
	}
	return append(out, rest...), start, nil
}

// LogEnd is the absolute offset of the end of a stream's output: every
// byte written so far, dropped ones included. Nothing is read but sizes.
func LogEnd(dir, name string) (int64, error) {
	cur := filepath.Join(dir, name)
	var end int64
	if b, err := os.ReadFile(cur + ".dropped"); err == nil {
		end, _ = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	}
	for _, p := range []string{cur + ".1", cur} {
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, err
		}
		end += fi.Size()
	}
	return end, nil
}

// readAt reads f from off to its end.
func readAt(f *os.File, off int64) ([]byte, error) {
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return nil, err
	}
	return io.ReadAll(f)
}
