package grep

import (
	"bytes"
	"sort"
)

// Lines knows where the lines of a buffer start (POSIX lines: a final
// newline starts no line).
type Lines struct {
	starts []int
	size   int

	// A file searched in windows holds only the lines it prints (see
	// sparseLines): nums are their numbers in the file, in order, ends
	// says where each ends in the buffer, abs where it starts in the
	// file; count is the file's lines.
	nums  []int
	ends  []int
	abs   []int64
	count int
}

// held is the index of line i among the lines held, or -1.
func (li *Lines) held(i int) int {
	j := sort.SearchInts(li.nums, i)
	if j < len(li.nums) && li.nums[j] == i {
		return j
	}
	return -1
}

// Held is the numbers of the lines held, in order, when only some are
// (a file that keeps the lines it prints); nil when all are.
func (li *Lines) Held() []int { return li.nums }

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
	if li.nums != nil {
		return li.count
	}
	return len(li.starts)
}

// Offset is where line i starts in the file.
func (li *Lines) Offset(i int) int64 {
	if li.nums != nil {
		return li.abs[li.held(i)]
	}
	return int64(li.starts[i])
}

// Bounds is the line's start and end (the end excludes the newline). Of
// a file searched in windows only the lines it holds have bounds (any
// other is empty).
func (li *Lines) Bounds(buf []byte, i int) (int, int) {
	if li.nums != nil {
		j := li.held(i)
		if j < 0 {
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

// weight is about the bytes li holds.
func (li *Lines) weight() int {
	return 8 * (cap(li.starts) + cap(li.nums) + cap(li.ends) + cap(li.abs))
}

// LineOf is the number of the line that holds byte off of the file, for
// lines indexed whole (not those of a file searched in windows).
func (li *Lines) LineOf(off int) int {
	return max(sort.SearchInts(li.starts, off+1)-1, 0)
}
