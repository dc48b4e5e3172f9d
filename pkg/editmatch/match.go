package editmatch

import (
	"bytes"
	"fmt"
)

// Difference bits, in the order of the cascade: the highest bit a place
// needs is the step that matched it.
const (
	bitEOL = 1 << iota
	bitBOM
	bitTrailing
	bitIndent
	bitGutter
	bitEscapes
	bitBlank
	bitUnicode
	bitNFD
	numBits = iota
)

// maxDrift is how many blank lines more than old_string has the file may
// hold between two lines of the block for the edit to apply. A block
// with more still counts as a place (so it makes another one ambiguous),
// but is not edited.
const maxDrift = 4

// place is one region of the file that old_string matches loosely.
type place struct {
	v          *variant
	start, end int     // the region: content[start:end]
	lines      []rline // its lines, in file order
	omap       []int   // for each old line, its index in lines, or -1
	bits       int     // how the region differs from old_string
	pairs      []indentPair
	reason     string // when set, why this place cannot be edited
	repl       []byte // what replaces the region
	eol        string // the line ending written between new lines
	imap       *indentMap
}

// rline is a line of a region: the part c[s:e] of the file line's text,
// and its line ending when term is set.
type rline struct {
	fline
	s, e int
	term bool
}

// level is the cascade step of the place: its highest difference bit.
func (p *place) level() int {
	for b := numBits - 1; b >= 0; b-- {
		if p.bits&(1<<b) != 0 {
			return b
		}
	}
	return 0
}

// matcher searches one file.
type matcher struct {
	f      *file
	buf    [512]byte
	budget int // lines the walks may still visit
}

// maxVisits bounds the lines all walks of one Apply visit together, which
// only a very repetitive old_string in a very repetitive file reaches. A
// variable for tests.
var maxVisits = 20_000_000

// exhausted reports whether the search ran out of budget: its result is
// then incomplete and must not be used.
func (m *matcher) exhausted() bool { return m.budget < 0 }

// search returns the places that v matches, in file order, stopping after
// limit places. Places may overlap.
func (m *matcher) search(v *variant, limit int) []*place {
	if !v.usable() {
		return nil
	}
	var out []*place
	add := func(p *place) { out = append(out, p) }
	visit := func(l fline) bool {
		m.budget--
		if len(v.old.lines) == 1 {
			for _, se := range m.singles(v, l) {
				add(m.single(v, l, se[0], se[1]))
			}
		} else if p := m.walk(v, l); p != nil {
			add(p)
		}
		return len(out) < limit && !m.exhausted()
	}
	c := m.f.c
	if len(v.anchor) == 0 {
		// Nothing to search for verbatim: try every line.
		l := m.f.lineAt(m.f.base)
		for visit(l) {
			var ok bool
			if l, ok = m.f.next(l); !ok {
				break
			}
		}
		return out
	}
	fd := m.f.finder(v.anchor)
	for pos := 0; pos < len(c); {
		i := fd.index(c[pos:])
		if i < 0 {
			break
		}
		l := m.f.lineAt(pos + i)
		if !visit(l) || l.next == l.end {
			break
		}
		pos = l.next
	}
	return out
}

// single makes the place of a one-line old_string matched at c[s:e].
func (m *matcher) single(v *variant, l fline, s, e int) *place {
	rl := rline{fline: l, s: s, e: e, term: v.old.endsNL && e == l.end}
	p := &place{v: v, lines: []rline{rl}, omap: []int{0}, start: s, end: e}
	if rl.term {
		p.end = l.next
	}
	return p
}

// singles returns where the one-line old_string matches in line l, as
// ranges of the content.
func (m *matcher) singles(v *variant, l fline) [][2]int {
	ol := v.old.lines[0]
	lead := len(ol) > 0 && isSpace(ol[0])
	if v.old.endsNL {
		if !lead {
			if s, ok := m.suffix(ol, l); ok {
				return [][2]int{{s, l.end}}
			}
		}
		if m.full(v, 0, l) {
			return [][2]int{{l.start, l.end}}
		}
		return nil
	}
	if lead {
		// Leading whitespace is read as indentation: old_string is the
		// line or its start. It may also stand inside a line as it is
		// (" b" after "a"): each such place is a candidate too, so that
		// two readings of one text are seen as two places.
		var out [][2]int
		if m.full(v, 0, l) {
			out = append(out, [2]int{l.start, l.end})
		} else if e, ok := m.prefix(ol, l); ok {
			out = append(out, [2]int{l.start, e})
		}
		for _, r := range m.infix(ol, l) {
			if len(out) == 0 || r[0] >= out[0][1] || r[1] <= out[0][0] {
				out = append(out, r)
			}
		}
		return out
	}
	if r := m.infix(ol, l); len(r) > 0 {
		return r
	}
	if m.full(v, 0, l) {
		return [][2]int{{l.start, l.end}}
	}
	return nil
}

// full reports whether old line k equals line l, both ends trimmed.
func (m *matcher) full(v *variant, k int, l fline) bool {
	return bytes.Equal(key(m.buf[:], m.f.text(l), trimBoth), v.keys[k])
}

// prefix matches ol, indentation ignored, against the start of line l and
// returns where the match ends.
func (m *matcher) prefix(ol []byte, l fline) (int, bool) { return m.edge(ol, l, false) }

// suffix matches ol, trailing whitespace ignored, against the end of line
// l and returns where the match starts.
func (m *matcher) suffix(ol []byte, l fline) (int, bool) { return m.edge(ol, l, true) }

// edge matches ol against one end of line l, compared through keys with
// the whitespace at that end ignored: the start (it returns where the
// match ends) or, atEnd, the end (it returns where the match starts). The
// key of ASCII text is the text itself, so its offsets need no mapping.
func (m *matcher) edge(ol []byte, l fline, atEnd bool) (int, bool) {
	trim := trimLeft
	if atEnd {
		trim = trimRight
	}
	var b [256]byte
	ko := key(b[:], ol, trim)
	t := m.f.text(l)
	ascii := isASCII(t) && isASCII(ol)
	k, segs := t, []seg(nil)
	if !ascii {
		k, segs = keyMap(t)
	}
	kt := trimSpace(k, trim)
	var at int
	switch {
	case atEnd && bytes.HasSuffix(kt, ko):
		// Mapped through the untrimmed key: an empty ol then starts
		// where the trailing whitespace does, as in the ASCII case.
		at = len(kt) - len(ko)
		if !ascii {
			at = srcStart(k, segs, at)
		}
	case !atEnd && bytes.HasPrefix(kt, ko):
		at = len(k) - len(kt) + len(ko)
		if !ascii {
			at = srcEnd(k, segs, at)
		}
	default:
		return 0, false
	}
	if at < 0 {
		return 0, false
	}
	return l.start + at, true
}

// infix finds ol inside line l, compared through keys without trimming.
func (m *matcher) infix(ol []byte, l fline) [][2]int {
	var b [256]byte
	ko := key(b[:], ol, 0)
	if len(ko) == 0 {
		return nil
	}
	t := m.f.text(l)
	var out [][2]int
	if isASCII(t) && isASCII(ol) {
		for pos := 0; ; {
			i := bytes.Index(t[pos:], ko)
			if i < 0 {
				return out
			}
			out = append(out, [2]int{l.start + pos + i, l.start + pos + i + len(ko)})
			pos += i + len(ko)
		}
	}
	k, segs := keyMap(t)
	for pos := 0; pos < len(k); {
		i := bytes.Index(k[pos:], ko)
		if i < 0 {
			break
		}
		at := pos + i
		s, e := srcStart(k, segs, at), srcEnd(k, segs, at+len(ko))
		if s >= 0 && e >= 0 {
			out = append(out, [2]int{l.start + s, l.start + e})
			pos = at + len(ko)
		} else {
			pos = at + 1
		}
	}
	return out
}

// check compares old line k (not blank) of a multi-line old_string with
// line l, as its place in the block allows: a middle line whole, the first
// line as the end of a file line, the last as its start. It returns the
// matched part of the content.
func (m *matcher) check(v *variant, k int, l fline) (s, e int, ok bool) {
	ol := v.old.lines[k]
	startA := k > 0
	endA := k < len(v.old.lines)-1 || v.old.endsNL
	switch {
	case startA && endA:
		return l.start, l.end, m.full(v, k, l)
	case startA:
		if m.full(v, k, l) {
			return l.start, l.end, true
		}
		e, ok := m.prefix(ol, l)
		return l.start, e, ok
	default:
		if len(ol) > 0 && !isSpace(ol[0]) {
			if s, ok := m.suffix(ol, l); ok {
				return s, l.end, true
			}
		}
		return l.start, l.end, m.full(v, k, l)
	}
}

// blank reports whether line l holds whitespace only.
func (m *matcher) blank(l fline) bool { return isBlank(m.buf[:], m.f.text(l)) }

// overBlanks steps from l over blank lines, which the old string has og
// of at this point; it returns them in the order met and the first line
// after them (ok false at the file's edge), and sets *far when there are
// more than og+maxDrift.
func (m *matcher) overBlanks(l fline, step func(fline) (fline, bool), og int, far *bool) ([]fline, fline, bool) {
	var gap []fline
	m.budget--
	p, ok := step(l)
	for ok && m.blank(p) {
		if len(gap) == og+maxDrift {
			*far = true
		}
		m.budget--
		gap = append(gap, p)
		p, ok = step(p)
	}
	return gap, p, ok
}

// blanks returns up to n blank lines met stepping from l, in that order.
func (m *matcher) blanks(l fline, step func(fline) (fline, bool), n int) []fline {
	var out []fline
	for len(out) < n {
		p, ok := step(l)
		if !ok || !m.blank(p) {
			break
		}
		out = append(out, p)
		l = p
	}
	return out
}

// walk tries to match a multi-line old_string around line at, which would
// hold the old line with the anchor.
func (m *matcher) walk(v *variant, at fline) *place {
	f, o, nb := m.f, v.old, v.nb
	n := len(o.lines)
	type core struct {
		l    fline
		s, e int
		gap  []fline // blank file lines before this one (after the previous core line)
	}
	cores := make([]core, len(nb))
	a := v.anchorAt
	s, e, ok := m.check(v, nb[a], at)
	if !ok {
		return nil
	}
	cores[a] = core{l: at, s: s, e: e}
	bits := 0
	far := false // more blank lines than maxDrift in some gap
	// Backwards to the first non-blank old line.
	for j := a - 1; j >= 0; j-- {
		gap, p, ok := m.overBlanks(cores[j+1].l, f.prev, nb[j+1]-nb[j]-1, &far)
		if !ok {
			return nil
		}
		s, e, ok := m.check(v, nb[j], p)
		if !ok {
			return nil
		}
		reverse(gap)
		cores[j+1].gap = gap
		cores[j] = core{l: p, s: s, e: e}
	}
	// Forwards to the last.
	for j := a + 1; j < len(nb); j++ {
		gap, q, ok := m.overBlanks(cores[j-1].l, f.next, nb[j]-nb[j-1]-1, &far)
		if !ok {
			return nil
		}
		s, e, ok := m.check(v, nb[j], q)
		if !ok {
			return nil
		}
		cores[j] = core{l: q, s: s, e: e, gap: gap}
	}

	// Blank old lines before the first and after the last non-blank one.
	// A blank first line is the end of the line before the block (old_string
	// starting with "\n"); a blank unterminated last line is the start of
	// the line after it.
	leadTail, trailHead := v.leadTail(), v.trailHead()
	last := nb[len(nb)-1]
	lb := nb[0]
	if leadTail {
		lb--
	}
	tb := n - 1 - last
	if trailHead {
		tb--
	}
	first, lastL := cores[0].l, cores[len(cores)-1].l
	lead := m.blanks(first, f.prev, lb)
	trail := m.blanks(lastL, f.next, tb)
	if len(lead) > 0 {
		first = lead[len(lead)-1]
		reverse(lead)
	}
	if len(trail) > 0 {
		lastL = trail[len(trail)-1]
	}
	if len(lead) != lb || len(trail) != tb {
		bits |= bitBlank
	}

	// The region's lines, and which old line each one stands for.
	p := &place{v: v, omap: make([]int, n)}
	for i := range p.omap {
		p.omap[i] = -1
	}
	add := func(k int, rl rline) {
		if k >= 0 {
			p.omap[k] = len(p.lines)
		}
		p.lines = append(p.lines, rl)
	}
	whole := func(l fline) rline { return rline{fline: l, s: l.start, e: l.end, term: true} }
	if leadTail {
		if q, ok := f.prev(first); ok {
			add(0, rline{fline: q, s: q.end, e: q.end, term: true})
		} else {
			bits |= bitBlank
		}
	}
	// Old blank lines pair with file blank lines nearest to the block.
	for i, l := range lead {
		add(nb[0]-len(lead)+i, whole(l))
	}
	for j, cr := range cores {
		if j > 0 {
			og := nb[j] - nb[j-1] - 1
			if og != len(cr.gap) {
				bits |= bitBlank
			}
			for i, l := range cr.gap {
				k := -1
				if i < og {
					k = nb[j-1] + 1 + i
				}
				add(k, whole(l))
			}
		}
		add(nb[j], rline{fline: cr.l, s: cr.s, e: cr.e, term: cr.e == cr.l.end})
	}
	for i, l := range trail {
		add(last+1+i, whole(l))
	}
	if trailHead {
		if q, ok := f.next(lastL); ok {
			add(n-1, rline{fline: q, s: q.start, e: q.start})
		} else {
			bits |= bitBlank
		}
	}
	// The last line's ending is in the region only when old_string ends
	// with one (or the old line after it is the next line's start).
	end := &p.lines[len(p.lines)-1]
	if !trailHead {
		end.term = end.term && o.endsNL
	}
	p.start = p.lines[0].s
	p.end = end.e
	if end.term {
		p.end = end.next
	}
	p.bits = bits
	if far {
		p.reason = fmt.Sprintf("the file has more than %d blank lines old_string does not have between two of its lines", maxDrift)
	}
	return p
}

func reverse(ls []fline) {
	for i, j := 0, len(ls)-1; i < j; i, j = i+1, j-1 {
		ls[i], ls[j] = ls[j], ls[i]
	}
}
