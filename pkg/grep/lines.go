package grep

import "bytes"

// Lines knows where the lines of a buffer start (POSIX lines: a final
// newline starts no line).
type Lines struct {
	starts []int
	size   int

	// A file searched in windows holds only the lines it prints (see
	// sparseLines): at finds each by its number in the file, ends says
	// where it ends in the buffer, abs where it starts in the file; count
	// is the file's lines.
	at    map[int]int
	ends  []int
	abs   []int64
	count int
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
func (li *Lines) Count() int {
	if li.at != nil {
		return li.count
	}
	return len(li.starts)
}

// Offset is where line i starts in the file.
func (li *Lines) Offset(i int) int64 {
	if li.at != nil {
		return li.abs[li.at[i]]
	}
	return int64(li.starts[i])
}

// Bounds is the line's start and end (the end excludes the newline). Of
// a file searched in windows only the lines it holds have bounds (any
// other is empty).
func (li *Lines) Bounds(buf []byte, i int) (int, int) {
	if li.at != nil {
		j, ok := li.at[i]
		if !ok {
			return 0, 0
		}
		return li.starts[j], li.ends[j]
	}
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
