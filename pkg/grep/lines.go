package grep

import "bytes"

// Lines knows where the lines of a buffer start (POSIX lines: a final
// newline starts no line).
type Lines struct {
	starts []int
	size   int
}

// IndexLines finds the lines of buf.
func IndexLines(buf []byte) *Lines {
	li := &Lines{size: len(buf), starts: make([]int, 0, 64)}
	if len(buf) == 0 {
		return li
	}
	li.starts = append(li.starts, 0)
	for off := 0; ; {
		i := bytes.IndexByte(buf[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
		if off >= len(buf) {
			break
		}
		li.starts = append(li.starts, off)
	}
	return li
}

// Count is the number of lines.
func (li *Lines) Count() int { return len(li.starts) }

// Bounds is the line's start and end (the end excludes the newline).
func (li *Lines) Bounds(buf []byte, i int) (int, int) {
	s := li.starts[i]
	e := li.size
	if i+1 < len(li.starts) {
		e = li.starts[i+1] - 1
	} else if e > s && buf[e-1] == '\n' {
		e--
	}
	return s, e
}

// Get is line i of buf, without its newline.
func (li *Lines) Get(buf []byte, i int) []byte {
	s, e := li.Bounds(buf, i)
	return buf[s:e]
}
