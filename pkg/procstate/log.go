package procstate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// LogNames are the names of the two output logs of a record, stdout's
// and stderr's (a TTY record's stderr.log holds only ws's notes).
var LogNames = [2]string{"stdout.log", "stderr.log"}

// DefaultLogCap is how much output is kept per stream of a background
// process: 64 MiB, the newest part.
const DefaultLogCap = 64 << 20

// Log is a capped output file of one stream (stdout.log or stderr.log).
// It keeps the newest output: when the current file reaches half the cap it
// becomes <name>.1 (replacing the previous one) and a new file starts, so at
// most cap bytes are kept. The bytes dropped so far are counted in
// <name>.dropped for readers, and <name>.lines counts the newlines of each
// part (see logIndex), so that a reader showing the last lines need not
// read the rest to count them.
type Log struct {
	mu        sync.Mutex
	dir, name string
	cap       int64
	f         *os.File
	size      int64
	dropped   int64
	// The newlines in the dropped bytes, in <name>.1 (of oldSize bytes)
	// and in the current file; unmarked: bytes written since the index
	// was last written.
	droppedLines, oldLines, lines int64
	oldSize, unmarked             int64
	// seq counts the rotations begun and finished, in <name>.seq: odd
	// while one is under way (see openLog).
	seq int64
	// lost counts the bytes that could not be written (the file system
	// is full): they are in no part of the log.
	lost int64
}

// indexEvery is how much output may be written before the line index is
// written again: a reader counts the newlines of at most that much.
const indexEvery = 1 << 20

// CreateLog opens a new, empty log.
func CreateLog(dir, name string, cap int64) (*Log, error) {
	if cap < 2 {
		cap = 2
	}
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	l := &Log{dir: dir, name: name, cap: cap, f: f}
	if err := l.writeSeq(); err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

// writeSeq writes the rotation count (atomically).
func (l *Log) writeSeq() error {
	path := filepath.Join(l.dir, l.name) + ".seq"
	if err := os.WriteFile(path+".tmp", strconv.AppendInt(nil, l.seq, 10), 0o600); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
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
				l.lost += int64(len(p))
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
		l.lines += int64(bytes.Count(chunk[:w], []byte{'\n'}))
		l.unmarked += int64(w)
		p = p[w:]
		if err != nil {
			l.lost += int64(len(p))
			return n - len(p), err
		}
	}
	if l.unmarked >= indexEvery {
		l.writeIndex()
	}
	return n, nil
}

// Lost is how many bytes of output could not be written so far (the file
// system is full, say).
func (l *Log) Lost() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lost
}

// writeIndex writes the line index (atomically; a failure only makes
// readers count).
func (l *Log) writeIndex() {
	path := filepath.Join(l.dir, l.name) + ".lines"
	data := fmt.Appendf(nil, "%d %d %d %d %d %d\n", l.dropped, l.droppedLines, l.oldSize, l.oldLines, l.size, l.lines)
	if err := os.WriteFile(path+".tmp", data, 0o600); err == nil {
		os.Rename(path+".tmp", path)
	}
	l.unmarked = 0
}

func (l *Log) rotate() error {
	// Readers open the parts one by one; the odd count tells them that
	// what they opened may mix two states (see openLog).
	l.seq++
	_ = l.writeSeq()
	defer func() {
		l.seq++
		_ = l.writeSeq()
	}()
	cur := filepath.Join(l.dir, l.name)
	old := cur + ".1"
	if fi, err := os.Stat(old); err == nil {
		l.dropped += fi.Size()
		l.droppedLines += l.oldLines
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
	l.oldSize, l.oldLines = l.size, l.lines
	l.f, l.size, l.lines = f, 0, 0
	l.writeIndex()
	return nil
}

// MoveTo tells the log that its directory was renamed to dir.
func (l *Log) MoveTo(dir string) {
	l.mu.Lock()
	l.dir = dir
	l.mu.Unlock()
}

// Close writes the line index a last time and closes the file.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writeIndex()
	return l.f.Close()
}

// ReadLog returns the kept output of a stream and how many older bytes were
// dropped.
func ReadLog(dir, name string) ([]byte, int64, error) {
	s, err := openLog(dir, name)
	if err != nil {
		return nil, 0, err
	}
	defer s.close()
	out, err := s.read(s.dropped, s.end())
	if err != nil {
		return nil, 0, err
	}
	return out, s.dropped, nil
}

// ReadLogFrom returns the kept output of a stream from the absolute
// offset from (counted from the first byte ever written, dropped bytes
// included) to its end, and the absolute offset where the returned bytes
// start: from itself, or later when the bytes at from were dropped. Only
// the part asked for is read, so following a large log costs what is new.
func ReadLogFrom(dir, name string, from int64) ([]byte, int64, error) {
	s, err := openLog(dir, name)
	if err != nil {
		return nil, 0, err
	}
	defer s.close()
	start := max(from, s.dropped)
	out, err := s.read(start, s.end())
	if err != nil {
		return nil, 0, err
	}
	return out, start, nil
}

// LogEnd is the absolute offset of the end of a stream's output: every
// byte written so far, dropped ones included. Nothing is read but sizes.
func LogEnd(dir, name string) (int64, error) {
	s, err := openLog(dir, name)
	if err != nil {
		return 0, err
	}
	defer s.close()
	return s.end(), nil
}

// LogTail is the end of a stream's kept output, as a read that shows only
// its last lines needs it.
type LogTail struct {
	// Data is the last n lines of the range (all of it when it holds no
	// more), starting at the absolute offset Start.
	Data  []byte
	Start int64
	// From is where the range begins: the offset asked for, or later when
	// the bytes there were dropped. End is where it ends.
	From, End int64
	// Lines is how many lines the whole range holds, a last one without a
	// newline included (as tokens.TailLines counts them).
	Lines int
}

// Cut reports whether lines of the range come before Data.
func (t *LogTail) Cut() bool { return t.Start > t.From }

// ReadLogTail reads the last n lines (n > 0) of a stream's kept output
// from the absolute offset from to its end. Only those lines are read:
// the line count of the rest comes from the log's line index, with the
// bytes between its points and the range's ends counted (at most about
// indexEvery at the end, of a log still written). A log without an index
// (or a stale one) is counted in pieces, never kept whole.
func ReadLogTail(dir, name string, from int64, n int) (*LogTail, error) {
	s, err := openLog(dir, name)
	if err != nil {
		return nil, err
	}
	defer s.close()
	t, err := s.tail(from, n)
	if err != nil || len(t.Data) == 0 {
		return t, err
	}
	// The lines of Data: n, or fewer when Data is the whole range.
	t.Lines = bytes.Count(t.Data, []byte{'\n'})
	if t.Data[len(t.Data)-1] != '\n' {
		t.Lines++
	}
	if t.Cut() {
		before, err := s.linesBetween(t.From, t.Start)
		if err != nil {
			return nil, err
		}
		t.Lines += before
	}
	return t, nil
}

// TailStart is the absolute offset where the last n lines of a stream's
// kept output begin, or 0 (the very start, dropped bytes included) when
// it holds no more than n lines or n <= 0. Only the end of the log is
// read.
func TailStart(dir, name string, n int) (int64, error) {
	if n <= 0 {
		return 0, nil
	}
	s, err := openLog(dir, name)
	if err != nil {
		return 0, err
	}
	defer s.close()
	t, err := s.tail(0, n)
	if err != nil || !t.Cut() {
		return 0, err
	}
	return t.Start, nil
}

// tail reads the last n lines of [from, end) (LogTail without Lines):
// a window from the end that grows until it holds them.
func (s *logSnapshot) tail(from int64, n int) (*LogTail, error) {
	t := &LogTail{From: max(from, s.dropped), End: s.end()}
	for window := int64(64 << 10); ; window *= 4 {
		start := max(t.End-window, t.From)
		b, err := s.read(start, t.End)
		if err != nil {
			return nil, err
		}
		if at := tailStart(b, n); at > 0 || start == t.From {
			t.Data, t.Start = b[at:], start+int64(at)
			return t, nil
		}
	}
}

// tailStart is where the last n lines of b begin (0: all of b, or n <= 0).
func tailStart(b []byte, n int) int {
	if n <= 0 {
		return 0
	}
	end := len(b)
	if end > 0 && b[end-1] == '\n' {
		end--
	}
	for i := end - 1; i >= 0; i-- {
		if b[i] == '\n' {
			n--
			if n == 0 {
				return i + 1
			}
		}
	}
	return 0
}

// logSnapshot is a stream's log files, open: what they held when opened
// stays readable through a rotation (a renamed or replaced file keeps its
// bytes for an open descriptor).
type logSnapshot struct {
	dropped          int64 // bytes dropped before the older part
	old, cur         *os.File
	oldSize, curSize int64
	path             string    // the current part's path
	index            *logIndex // read by linesBetween; nil: none that fits these files
	indexRead        bool
}

// logIndex is a Log's <name>.lines: the bytes dropped and the newlines in
// them, then the size and newlines of <name>.1 and of the current file,
// as they were when it was written.
type logIndex struct {
	dropped, droppedLines, oldSize, oldLines, size, lines int64
}

// readIndex reads a log's line index; nil when there is none (a log of an
// older ws), it cannot be read, or it is not about the parts s holds (a
// rotation came between).
func (s *logSnapshot) readIndex(path string) *logIndex {
	data, err := os.ReadFile(path + ".lines")
	if err != nil {
		return nil
	}
	var x logIndex
	if _, err := fmt.Sscanf(string(data), "%d %d %d %d %d %d", &x.dropped, &x.droppedLines, &x.oldSize, &x.oldLines, &x.size, &x.lines); err != nil {
		return nil
	}
	if x.dropped != s.dropped || x.oldSize != s.oldSize || x.size > s.curSize || x.lines > x.size || x.oldLines > x.oldSize {
		return nil
	}
	return &x
}

// linesBetween returns the newlines in [from, to). With a line index only
// the bytes between each end and the nearest point the index knows are
// read; without one, all of them.
func (s *logSnapshot) linesBetween(from, to int64) (int, error) {
	if !s.indexRead {
		s.index, s.indexRead = s.readIndex(s.path), true
	}
	if s.index == nil {
		return s.count(from, to)
	}
	a, err := s.linesBefore(from)
	if err != nil {
		return 0, err
	}
	b, err := s.linesBefore(to)
	return b - a, err
}

// linesBefore is the number of newlines in the kept bytes before the
// absolute offset x, from the index point nearest to x.
func (s *logSnapshot) linesBefore(x int64) (int, error) {
	x = min(max(x, s.dropped), s.end())
	ix := s.index
	best, at := int64(0), s.dropped
	for _, p := range []struct{ off, lines int64 }{
		{s.dropped + ix.oldSize, ix.oldLines}, {s.dropped + ix.oldSize + ix.size, ix.oldLines + ix.lines},
	} {
		if abs(p.off-x) < abs(at-x) {
			best, at = p.lines, p.off
		}
	}
	if at <= x {
		n, err := s.count(at, x)
		return int(best) + n, err
	}
	n, err := s.count(x, at)
	return int(best) - n, err
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// openLog opens a stream's parts, the older first (as ReadLog does). A
// rotation between the opens would give the older part of one state and
// the current part of the next (output missing from the middle, or put at
// the wrong offsets), so the parts are opened again until the rotation
// count (<name>.seq) is even and the same before and after. A count that
// stays odd for rotationWait (a writer killed while it rotated) is given
// up on, and so is a writer that rotates without pause for ten times as
// long; a log without a count (of an older ws) is taken as it is.
func openLog(dir, name string) (*logSnapshot, error) {
	path := filepath.Join(dir, name)
	start := time.Now()
	stuck, stuckSince := int64(-1), start
	for {
		before, counted := readSeq(path)
		s, err := openParts(path)
		if err != nil || !counted {
			return s, err
		}
		after, _ := readSeq(path)
		now := time.Now()
		if after != stuck {
			stuck, stuckSince = after, now
		}
		if after == before && before%2 == 0 || now.Sub(stuckSince) > rotationWait || now.Sub(start) > 10*rotationWait {
			return s, nil
		}
		s.close()
		time.Sleep(50 * time.Microsecond)
	}
}

// rotationWait bounds openLog's wait for one rotation to finish (a
// variable for the tests: a writer that is only slow, on a loaded
// machine, must not pass for one killed mid-rotation).
var rotationWait = 100 * time.Millisecond

// readSeq reads a log's rotation count; false when it has none.
func readSeq(path string) (int64, bool) {
	b, err := os.ReadFile(path + ".seq")
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n, err == nil
}

// openParts opens a stream's parts as they are now.
func openParts(path string) (*logSnapshot, error) {
	s := &logSnapshot{}
	if b, err := os.ReadFile(path + ".dropped"); err == nil {
		s.dropped, _ = strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	}
	for _, p := range []struct {
		path string
		f    **os.File
		size *int64
	}{{path + ".1", &s.old, &s.oldSize}, {path, &s.cur, &s.curSize}} {
		f, err := os.Open(p.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			s.close()
			return nil, err
		}
		*p.f = f
		fi, err := f.Stat()
		if err != nil {
			s.close()
			return nil, err
		}
		*p.size = fi.Size()
	}
	s.path = path
	return s, nil
}

func (s *logSnapshot) close() {
	for _, f := range []*os.File{s.old, s.cur} {
		if f != nil {
			f.Close()
		}
	}
}

// end is the absolute offset of the snapshot's last byte, plus one.
func (s *logSnapshot) end() int64 { return s.dropped + s.oldSize + s.curSize }

// each calls fn with the pieces of the absolute range [from, to), at most
// buf's size each, in order.
func (s *logSnapshot) each(from, to int64, buf []byte, fn func([]byte)) error {
	base := s.dropped
	for _, p := range []struct {
		f    *os.File
		size int64
	}{{s.old, s.oldSize}, {s.cur, s.curSize}} {
		lo, hi := max(from, base), min(to, base+p.size)
		for lo < hi {
			k, err := p.f.ReadAt(buf[:min(int64(len(buf)), hi-lo)], lo-base)
			if k > 0 {
				fn(buf[:k])
				lo += int64(k)
			}
			if errors.Is(err, io.EOF) {
				break // a part never shrinks; this is only a guard
			}
			if err != nil {
				return err
			}
		}
		base += p.size
	}
	return nil
}

// read returns the bytes of [from, to).
func (s *logSnapshot) read(from, to int64) ([]byte, error) {
	out := make([]byte, 0, max(to-from, 0))
	err := s.each(from, to, make([]byte, max(min(to-from, 1<<20), 1)), func(b []byte) { out = append(out, b...) })
	return out, err
}

// count returns the newlines in [from, to), read a piece at a time.
func (s *logSnapshot) count(from, to int64) (int, error) {
	n := 0
	err := s.each(from, to, make([]byte, max(min(to-from, 1<<20), 1)), func(b []byte) { n += bytes.Count(b, []byte{'\n'}) })
	return n, err
}
