package workspace

import (
	"bytes"
	"io"
	"strconv"
	"strings"

	"github.com/wstools/ws/pkg/js"
)

// lineReader walks a file's lines (POSIX lines: a final line without a
// newline counts, a trailing newline adds no empty line) in large chunks,
// so skipping or counting millions of lines touches no per-line memory.
type lineReader struct {
	r       io.Reader
	buf     []byte
	lo, hi  int
	eof     bool
	err     error
	maxLine int    // bytes kept of one line; the rest is dropped
	scratch []byte // a line that spans chunks
}

func newLineReader(r io.Reader, bufSize, maxLine int) *lineReader {
	return &lineReader{r: r, buf: make([]byte, bufSize), maxLine: maxLine}
}

func (lr *lineReader) fill() bool {
	if lr.eof {
		return false
	}
	if lr.lo > 0 {
		n := copy(lr.buf, lr.buf[lr.lo:lr.hi])
		lr.lo, lr.hi = 0, n
	}
	n, err := lr.r.Read(lr.buf[lr.hi:])
	lr.hi += n
	if err != nil {
		lr.eof = true
		if err != io.EOF {
			lr.err = err
		}
	}
	return n > 0 || !lr.eof
}

// skip consumes up to n lines and returns how many it consumed.
func (lr *lineReader) skip(n int) int {
	done := 0
	partial := false // bytes of a line without its newline were consumed
	for done < n {
		if lr.lo == lr.hi && !lr.fill() {
			if partial {
				done++
			}
			return done
		}
		chunk := lr.buf[lr.lo:lr.hi]
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			partial = true
			lr.lo = lr.hi
			continue
		}
		lr.lo += i + 1
		partial = false
		done++
	}
	return done
}

// count consumes the rest and returns the number of lines in it.
func (lr *lineReader) count() int {
	n := 0
	partial := false
	for {
		if lr.lo == lr.hi && !lr.fill() {
			break
		}
		chunk := lr.buf[lr.lo:lr.hi]
		n += bytes.Count(chunk, []byte{'\n'})
		partial = chunk[len(chunk)-1] != '\n'
		lr.lo = lr.hi
	}
	if partial {
		n++
	}
	return n
}

// next returns the next line without its newline (and cut to maxLine bytes;
// cut reports that). The slice is valid until the following call.
func (lr *lineReader) next() (line []byte, cut bool, ok bool) {
	lr.scratch = lr.scratch[:0]
	spanning := false
	for {
		if lr.lo == lr.hi && !lr.fill() {
			if spanning {
				return lr.scratch, cut, true
			}
			return nil, false, false
		}
		chunk := lr.buf[lr.lo:lr.hi]
		i := bytes.IndexByte(chunk, '\n')
		if i >= 0 {
			lr.lo += i + 1
			if !spanning {
				if i > lr.maxLine {
					return chunk[:lr.maxLine], true, true
				}
				return chunk[:i], false, true
			}
			lr.scratch, cut = appendCapped(lr.scratch, chunk[:i], lr.maxLine, cut)
			return lr.scratch, cut, true
		}
		if !spanning && lr.lo > 0 && !lr.eof {
			// Move the partial line to the front, read more behind it, and
			// look again (the chunk moved).
			lr.fill()
			continue
		}
		spanning = true
		lr.scratch, cut = appendCapped(lr.scratch, chunk, lr.maxLine, cut)
		lr.lo = lr.hi
	}
}

func appendCapped(dst, src []byte, limit int, cut bool) ([]byte, bool) {
	room := limit - len(dst)
	if len(src) > room {
		return append(dst, src[:max(room, 0)]...), true
	}
	return append(dst, src...), cut
}

// jsString decodes bytes as JavaScript's UTF-8 decoder does (one U+FFFD per
// maximal invalid subsequence), so the text matches Mastra's byte for byte.
func jsString(b []byte) string { return js.DecodeUTF8(b) }

// gutter formats one numbered line as Mastra does: the number right-aligned
// in width columns, an arrow (U+2192), the line.
func gutter(sb *strings.Builder, n, width int, line string) {
	num := strconv.Itoa(n)
	for i := len(num); i < width; i++ {
		sb.WriteByte(' ')
	}
	sb.WriteString(num)
	sb.WriteString("→")
	sb.WriteString(line)
}

// gutterWidth is max(6, digits(last)+1).
func gutterWidth(last int) int {
	return max(6, len(strconv.Itoa(last))+1)
}
