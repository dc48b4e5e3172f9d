package grep

import (
	"bytes"

	"github.com/wstools/ws/pkg/internal/fsroot"
	"golang.org/x/sys/unix"
)

// A file bigger than windowFrom is searched in windows of windowSize
// bytes, each cut at a line's end, rather than read whole: the memory a
// search takes stays bounded by the window, however big the file (a log
// of gigabytes), and a file with hits keeps only its hit lines and their
// context, not its content. So is a file bigger than one window when the
// search reports a bounded part of each file (see grepRun.bounded): it
// is read no further than that. A window of 1 MiB stays in the CPU's
// caches while it is scanned; 16 MiB windows made a count of a 1 GB log
// 1.5-2 times slower. Variables, so that tests can make them small.
var (
	windowFrom int64 = 256 << 20
	windowSize       = 1 << 20
)

// keptLine is a line a windowed search holds for the printer: its number,
// where it starts in the file, and its bytes with its newline, if it has one.
type keptLine struct {
	n    int
	abs  int64
	text []byte
}

// windowed is what a windowed search of one file gathers.
type windowed struct {
	before int
	after  int
	kept   []keptLine // the lines to print, in order, each once
	lastN  int        // the last line kept (-1: none), though kept may have been sent
	ring   []keptLine // the last lines before the current window, for a hit's before-context
	wantTo int        // the last line an after-context wants (-1: none)
}

func newWindowed(before, after int) *windowed {
	return &windowed{before: before, after: after, lastN: -1, wantTo: -1}
}

// keep holds line kl, unless it is held already (lines come in order).
func (w *windowed) keep(kl keptLine) {
	if kl.n <= w.lastN {
		return
	}
	kl.text = bytes.Clone(kl.text)
	w.kept = append(w.kept, kl)
	w.lastN = kl.n
}

// scanWindows searches the file open at fd, of size bytes, window by
// window, and fills f as scan does (f.Lines then holds only the kept
// lines; see Lines). It stops reading once the file has all the lines it
// can report and their after-context. buf is the worker's read buffer;
// scanWindows returns the one to use for the next file.
func (g *grepRun) scanWindows(f *File, fd int, size int64, buf []byte) []byte {
	w := newWindowed(g.before, g.after)
	if cap(buf) < windowSize {
		buf = make([]byte, windowSize)
	}
	buf = buf[:windowSize]
	carry := 0    // bytes at buf's start carried over: the start of a line
	var off int64 // where buf[0] is in the file
	line := 0     // the number of buf[0]'s line
	t := g.newTally()
	for {
		if g.ctx.Err() != nil {
			return reuse(buf) // the search is over: nobody takes this file's hits
		}
		n, err := preadFull(fd, buf[carry:], off+int64(carry))
		if err != nil {
			f.err = fsroot.SkipReason(err)
			return reuse(buf)
		}
		data := buf[:carry+n]
		eof := carry+n < len(buf)
		end := len(data)
		if !eof {
			i := bytes.LastIndexByte(data, '\n')
			if i < 0 { // a line longer than the window: a bigger window
				buf = append(buf, make([]byte, len(buf))...)
				carry = len(data)
				continue
			}
			end = i + 1
		}
		win := data[:end]
		count := countLines(win)
		if !t.full() {
			k := len(t.hits)
			if te := g.scanInto(win, line, count, t); te != nil {
				te.Line += line
				f.timeout = te
				return reuse(buf)
			}
			if !g.noContent {
				w.gather(win, count, line, off, t.hits[k:])
			}
		} else {
			w.gather(win, count, line, off, nil)
		}
		line += count
		off += int64(end)
		carry = copy(buf, data[end:])
		if g.parts && len(w.kept) > 0 && g.c.isNext(f) {
			// Every file before this one is taken: what it has found
			// goes out now, not when the whole file is searched.
			f.Hits, f.Count = t.hits, t.n
			f.Buf, f.Lines = sparseLines(w.kept, line)
			f.More = true
			g.onFile(f)
			f.Continued = true
			t.hits, w.kept = t.hits[:0], w.kept[:0]
		}
		if eof || t.full() && (g.noContent || w.wantTo < line) {
			break
		}
	}
	f.Hits, f.Count = t.hits, t.n
	f.Size = size
	f.More = false
	if f.Count > 0 && !g.noContent {
		f.Buf, f.Lines = sparseLines(w.kept, line)
	}
	return reuse(buf)
}

// gather keeps, of the window win of count lines (whose first line is
// first, at offset off in the file), the lines the hits wh (of this
// window, numbered in the file) and the after-context of earlier hits
// want; then it moves the ring on. Only the lines wanted are found, in
// order, skipping those between by counting newlines: a window's lines
// are not indexed (that was half the time of a search whose files each
// had a hit).
func (w *windowed) gather(win []byte, count, first int, off int64, wh []Hit) {
	cur := lineCursor{buf: win}
	at := func(i int) keptLine { // line i of the window
		s := cur.seek(i)
		e := len(win)
		if k := bytes.IndexByte(win[s:], '\n'); k >= 0 {
			e = s + k + 1 // with its newline
		}
		return keptLine{n: first + i, abs: off + int64(s), text: win[s:e]}
	}
	for i := 0; i < count && first+i <= w.wantTo; i++ {
		w.keep(at(i))
	}
	for _, h := range wh {
		hl := h.Line - first      // in the window
		from := h.Line - w.before // may start in an earlier window
		for _, kl := range w.ring {
			if kl.n >= from {
				w.keep(kl)
			}
		}
		start := max(hl-w.before, 0, w.lastN-first+1) // the lines before are kept
		for i := start; i <= min(count-1, hl+w.after); i++ {
			w.keep(at(i))
		}
		w.wantTo = max(w.wantTo, h.Line+w.after)
	}
	if w.before == 0 {
		return
	}
	// The ring: the last `before` lines seen, copied (the window's
	// buffer is reused), found from the window's end.
	for _, kl := range lastLines(win, first, count, off, w.before) {
		kl.text = bytes.Clone(kl.text)
		w.ring = append(w.ring, kl)
	}
	if extra := len(w.ring) - w.before; extra > 0 {
		w.ring = append(w.ring[:0], w.ring[extra:]...)
	}
}

// lineCursor finds the lines of a buffer in increasing order.
type lineCursor struct {
	buf  []byte
	line int // the line that starts at off
	off  int
}

// seek is where line i of the buffer starts (a line it has): found on
// from the last one asked for, a block of newlines at a time while the
// line is further than the block holds (a seek back starts over).
func (c *lineCursor) seek(i int) int {
	const block = 4096
	if i < c.line {
		c.line, c.off = 0, 0
	}
	for c.line < i {
		rest := c.buf[c.off:]
		if len(rest) > block {
			if n := bytes.Count(rest[:block], newline); n < i-c.line {
				c.line += n
				c.off += block
				continue
			}
		}
		k := bytes.IndexByte(rest, '\n')
		if k < 0 {
			return len(c.buf) // past the last line: not asked for
		}
		c.off += k + 1
		c.line++
	}
	return c.off
}

// countLines is the number of lines of win (POSIX lines: a final newline
// starts no line).
func countLines(win []byte) int {
	n := bytes.Count(win, []byte{'\n'})
	if len(win) > 0 && win[len(win)-1] != '\n' {
		n++
	}
	return n
}

// lastLines is the last k (at most) of the count lines of win, whose
// first is numbered first and starts at off in the file, in order.
func lastLines(win []byte, first, count int, off int64, k int) []keptLine {
	k = min(k, count)
	out := make([]keptLine, k)
	end := len(win) // the end of the line being found, its newline included
	for j := k - 1; j >= 0; j-- {
		s := 0
		if end > 0 {
			s = bytes.LastIndexByte(win[:end-1], '\n') + 1
		}
		out[j] = keptLine{n: first + count - k + j, abs: off + int64(s), text: win[s:end]}
		end = s
	}
	return out
}

// sparseLines lays the kept lines out in one buffer, with the Lines that
// finds them there by their numbers in the file (count in all).
func sparseLines(kept []keptLine, count int) ([]byte, *Lines) {
	size := 0
	for _, kl := range kept {
		size += len(kl.text)
	}
	buf := make([]byte, 0, size)
	li := &Lines{count: count, nums: make([]int, 0, len(kept)), starts: make([]int, 0, len(kept)),
		ends: make([]int, 0, len(kept)), abs: make([]int64, 0, len(kept))}
	for _, kl := range kept {
		li.nums = append(li.nums, kl.n)
		li.starts = append(li.starts, len(buf))
		li.ends = append(li.ends, len(buf)+len(bytes.TrimSuffix(kl.text, []byte("\n"))))
		li.abs = append(li.abs, kl.abs)
		buf = append(buf, kl.text...)
	}
	li.size = len(buf)
	return buf, li
}

// preadFull reads len(p) bytes at off, fewer only at the end of the file.
func preadFull(fd int, p []byte, off int64) (int, error) {
	n := 0
	for n < len(p) {
		m, err := unix.Pread(fd, p[n:], off+int64(n))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return n, err
		}
		if m == 0 {
			return n, nil
		}
		n += m
	}
	return n, nil
}
