package udiff

import (
	"bytes"
	"hash/maphash"
	"strconv"
	"strings"
)

// noNewline is the marker GNU diff prints after a last line without "\n".
const noNewline = "\\ No newline at end of file\n"

// Unified returns the unified diff turning a into b, with the header lines
// "--- aName" and "+++ bName" and context lines of context around each
// change (a negative context counts as 0), or "" when a and b are equal.
// Hunk ranges follow GNU diff: "-l,n +l,n", with ",1" left out and an empty
// range given as the line before it ("-0,0" for an empty file).
func Unified(aName, bName string, a, b []byte, context int) string {
	return UnifiedAt(aName, bName, a, b, context, 0)
}

// UnifiedAt is Unified for pieces of two files: a and b both start after
// the first line lines (0-based), which the files have in common, and
// end on a line boundary, or at their files' ends. The hunks are numbered
// as in the whole files, so a caller that knows where two big files
// differ diffs only the lines around that.
func UnifiedAt(aName, bName string, a, b []byte, context, line int) string {
	if bytes.Equal(a, b) {
		return ""
	}
	context = max(context, 0)

	// The common prefix and suffix, in whole lines.
	p := commonPrefix(a, b)
	p = bytes.LastIndexByte(a[:p], '\n') + 1
	s := commonSuffix(a[p:], b[p:])
	for s > 0 && !(lineStart(a, p, len(a)-s) && lineStart(b, p, len(b)-s)) {
		s--
	}

	before := lastLines(a[:p], context)
	after := firstLines(a[len(a)-s:], context)
	la, lb := splitLines(a[p:len(a)-s]), splitLines(b[p:len(b)-s])
	first := line + bytes.Count(a[:p], []byte("\n")) - len(before) // index of before[0]

	// One numbering for the lines of both sides, through 64-bit hashes
	// (a string-keyed map is several times slower on a million lines);
	// lines whose hashes collide are told apart by a map of their text.
	type entry struct {
		id   int
		line []byte
	}
	seed := maphash.MakeSeed()
	byHash := make(map[uint64]entry, len(la)+len(lb))
	var collided map[string]int
	nids := 0
	intern := func(lines [][]byte) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			h := maphash.Bytes(seed, l)
			e, ok := byHash[h]
			switch {
			case !ok:
				e = entry{nids, l}
				byHash[h] = e
				nids++
			case !bytes.Equal(e.line, l):
				if collided == nil {
					collided = map[string]int{}
				}
				id, ok := collided[string(l)]
				if !ok {
					id = nids
					collided[string(l)] = id
					nids++
				}
				e.id = id
			}
			out[i] = e.id
		}
		return out
	}
	ops := make([]op, 0, len(before)+len(la)+len(lb)+len(after))
	for i := range before {
		ops = append(ops, op{opEqual, i, i})
	}
	nb := len(before)
	ia, ib := intern(la), intern(lb)
	for _, o := range diffLines(ia, ib, nids) {
		o.a += nb
		o.b += nb
		ops = append(ops, o)
	}
	for i := range after {
		ops = append(ops, op{opEqual, nb + len(la) + i, nb + len(lb) + i})
	}
	// A side's line i: the common lines before, its own middle, the
	// common lines after.
	lineOf := func(mid [][]byte) func(int) []byte {
		return func(i int) []byte {
			switch {
			case i < nb:
				return before[i]
			case i < nb+len(mid):
				return mid[i-nb]
			}
			return after[i-nb-len(mid)]
		}
	}
	lineA, lineB := lineOf(la), lineOf(lb)

	var sb strings.Builder
	sb.WriteString("--- " + aName + "\n+++ " + bName + "\n")
	for i := 0; i < len(ops); {
		if ops[i].kind == opEqual {
			i++
			continue
		}
		// A hunk: this change and every change within 2*context equal
		// lines of the previous one, with context lines around.
		start := max(i-context, 0)
		end := i // last change
		for j := i + 1; j < len(ops); j++ {
			if ops[j].kind == opEqual {
				continue
			}
			if j-end-1 > 2*context {
				break
			}
			end = j
		}
		stop := min(end+context, len(ops)-1)
		writeHunk(&sb, ops[start:stop+1], first, lineA, lineB)
		i = stop + 1
	}
	return sb.String()
}

// writeHunk writes one hunk; first is the 0-based line number of index 0.
func writeHunk(sb *strings.Builder, ops []op, first int, lineA, lineB func(int) []byte) {
	na, nb := 0, 0
	for _, o := range ops {
		if o.kind != opInsert {
			na++
		}
		if o.kind != opDelete {
			nb++
		}
	}
	sb.WriteString("@@ -" + hunkRange(first+ops[0].a, na) + " +" + hunkRange(first+ops[0].b, nb) + " @@\n")
	for _, o := range ops {
		var mark byte
		var l []byte
		switch o.kind {
		case opEqual:
			mark, l = ' ', lineA(o.a)
		case opDelete:
			mark, l = '-', lineA(o.a)
		default:
			mark, l = '+', lineB(o.b)
		}
		sb.WriteByte(mark)
		sb.Write(l)
		if len(l) == 0 || l[len(l)-1] != '\n' {
			sb.WriteString("\n" + noNewline)
		}
	}
}

// hunkRange formats a hunk's range from its 0-based first line and count.
func hunkRange(first, n int) string {
	switch n {
	case 0:
		return strconv.Itoa(first) + ",0" // the line before the empty range
	case 1:
		return strconv.Itoa(first + 1)
	}
	return strconv.Itoa(first+1) + "," + strconv.Itoa(n)
}

// chunk is the block size of the fast prefix and suffix comparisons.
const chunk = 4096

// commonPrefix returns the length of the longest common prefix of a and b,
// comparing whole blocks first (bytes.Equal is vectorised).
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	p := 0
	for p+chunk <= n && bytes.Equal(a[p:p+chunk], b[p:p+chunk]) {
		p += chunk
	}
	for p < n && a[p] == b[p] {
		p++
	}
	return p
}

// commonSuffix returns the length of the longest common suffix of a and b.
func commonSuffix(a, b []byte) int {
	n := min(len(a), len(b))
	s := 0
	for s+chunk <= n && bytes.Equal(a[len(a)-s-chunk:len(a)-s], b[len(b)-s-chunk:len(b)-s]) {
		s += chunk
	}
	for s < n && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return s
}

// lineStart reports whether offset i of b, at or after lo, starts a line
// of the middle part (lo itself always does).
func lineStart(b []byte, lo, i int) bool {
	return i == lo || b[i-1] == '\n'
}

// splitLines cuts b into lines that keep their "\n"; only the last may
// lack one.
func splitLines(b []byte) [][]byte {
	return firstLines(b, bytes.Count(b, []byte("\n"))+1)
}

// lastLines returns the last n lines of b, which is empty or ends with "\n".
func lastLines(b []byte, n int) [][]byte {
	out := make([][]byte, 0, n)
	end := len(b)
	for len(out) < n && end > 0 {
		start := bytes.LastIndexByte(b[:end-1], '\n') + 1
		out = append(out, b[start:end])
		end = start
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// firstLines returns the first n lines of b.
func firstLines(b []byte, n int) [][]byte {
	out := make([][]byte, 0, n)
	for len(out) < n && len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, b)
			break
		}
		out = append(out, b[:i+1])
		b = b[i+1:]
	}
	return out
}
