package editmatch

import (
	"bytes"

	"golang.org/x/text/unicode/norm"
)

// classify sets the difference bits of p and collects its indentation
// pairs.
func (m *matcher) classify(p *place) {
	c := m.f.c
	o := p.v.old
	n := len(o.lines)
	p.bits |= p.v.bits
	p.pairs = p.pairs[:0]
	var soft *indentPair
	for k, i := range p.omap {
		if i < 0 {
			continue
		}
		rl := p.lines[i]
		if k < n-1 || o.endsNL {
			want := "\n"
			if o.cr[k] {
				want = "\r\n"
			}
			if !rl.term || string(c[rl.end:rl.next]) != want {
				p.bits |= bitEOL
			}
		}
		ot, ft := o.lines[k], c[rl.s:rl.e]
		if len(p.v.keys[k]) == 0 {
			if !bytes.Equal(ot, ft) {
				p.bits |= bitTrailing
			}
			continue
		}
		if _, n := indentOf(c[rl.start:rl.s]); rl.s > rl.start && n == rl.s-rl.start {
			// The first line matched after the file's indentation: old_string
			// starts where the text does. That is its indentation only when
			// other lines show old_string's indentation is not the file's.
			soft = &indentPair{k: k, line: i, file: c[rl.start:rl.s]}
		}
		if rl.s == rl.start {
			oi, on := indentOf(ot)
			fi, fn := indentOf(ft)
			if !bytes.Equal(oi, fi) {
				p.bits |= bitIndent
			}
			if (len(oi) != on || len(fi) != fn) && !bytes.Equal(ot[:on], ft[:fn]) {
				p.bits |= bitUnicode // typographic spaces in the indentation
			}
			p.pairs = append(p.pairs, indentPair{k: k, line: i, old: oi, file: fi})
			ot, ft = ot[on:], ft[fn:]
		}
		if rl.e == rl.end {
			ot2, ft2 := trimSpace(ot, trimRight), trimSpace(ft, trimRight)
			if !bytes.Equal(ot[len(ot2):], ft[len(ft2):]) {
				p.bits |= bitTrailing
			}
			ot, ft = ot2, ft2
		}
		if bytes.Equal(ot, ft) {
			continue
		}
		needFold := !equalKeys(ot, ft, noFold|trimBoth)
		needNFD := !equalKeys(ot, ft, noNFD|trimBoth)
		if needFold || !needNFD {
			p.bits |= bitUnicode
		}
		if needNFD {
			p.bits |= bitNFD
		}
	}
	if soft != nil && p.bits&bitIndent != 0 {
		p.pairs = append([]indentPair{*soft}, p.pairs...)
	}
	if p.bits == 0 {
		p.bits = bitEOL // cannot happen: the exact search would have found it
	}
}

// around returns the file's lines near p (up to 100 each side) and p's
// own, to detect the file's indentation style.
func (m *matcher) around(p *place) [][]byte {
	out := m.texts(p.lines[0].fline, m.f.prev, 100)
	reverse2(out)
	for _, rl := range p.lines {
		out = append(out, m.f.text(rl.fline))
	}
	return append(out, m.texts(p.lines[len(p.lines)-1].fline, m.f.next, 100)...)
}

// texts returns the text of up to n lines met stepping from l (l excluded).
func (m *matcher) texts(l fline, step func(fline) (fline, bool), n int) [][]byte {
	var out [][]byte
	for ; n > 0; n-- {
		q, ok := step(l)
		if !ok {
			break
		}
		out = append(out, m.f.text(q))
		l = q
	}
	return out
}

func reverse2(ls [][]byte) {
	for i, j := 0, len(ls)-1; i < j; i, j = i+1, j-1 {
		ls[i], ls[j] = ls[j], ls[i]
	}
}

// prepare decides how p is written: its indentation mapping (or why there
// is none) and its line ending. p has been classified.
func (m *matcher) prepare(p *place) {
	if p.bits&bitIndent != 0 && p.reason == "" {
		first := func() int { return m.f.lineNo(p.lines[0].start) }
		p.imap, p.reason = buildIndentMap(p.pairs, p.v.old.lines, p.v.new.lines, m.around(p), first)
	}
	// The line ending: the region's most common one, else the nearest.
	crlf, lf := 0, 0
	for _, rl := range p.lines {
		switch rl.next - rl.end {
		case 2:
			crlf++
		case 1:
			lf++
		}
	}
	switch {
	case crlf > lf:
		p.eol = "\r\n"
	case lf > 0:
		p.eol = "\n"
	default:
		p.eol = m.f.eolNear(p.start)
	}
	if p.eol == "" {
		p.eol = "\n"
		if len(p.v.new.cr) > 0 && p.v.new.cr[0] {
			p.eol = "\r\n"
		}
	}
}

// out is one line of a replacement: its text, and, for a line kept from
// the file, its line ending, its index in the region and new_string's
// text for it (nil for a blank line old_string lacks).
type out struct {
	text  []byte
	term  []byte
	line  int // -1 for a written line
	agent []byte
}

// build makes p's replacement: new_string, with the lines that new_string
// leaves unchanged from old_string kept as the file has them (their own
// whitespace, quotes, normalisation and line endings), blank lines the
// file has and old_string lacks kept, and the other lines written with the
// file's line ending and, when the indentation differed, re-indented.
func (m *matcher) build(p *place) {
	c := m.f.c
	v := p.v
	ops := editScript(v)
	var outs []out
	// Blank file lines old_string has no line for (blank-line drift) are
	// kept where they are when lines are written on both sides of them.
	var pending []int
	emit := func(o out) {
		if len(outs) > 0 {
			for _, i := range pending {
				rl := p.lines[i]
				outs = append(outs, out{text: c[rl.s:rl.e], term: c[rl.end:rl.next], line: i})
			}
		}
		pending = pending[:0]
		outs = append(outs, o)
	}
	startsLine := p.start == p.lines[0].start
	// cutIndent is the indentation before a region that starts after it
	// (old_string's first line copied without it).
	var cutIndent []byte
	if pre := c[p.lines[0].start:p.start]; len(trimSpace(pre, trimBoth)) == 0 {
		cutIndent = pre
	}
	kept := func(i int, agent []byte) {
		rl := p.lines[i]
		o := out{text: c[rl.s:rl.e], line: i, agent: agent}
		if p.imap != nil && p.imap.keep && agent != nil {
			// new_string is in the file's frame: its indentation says
			// where the line goes (a line moved into a new block may
			// equal an old_string line indented as deep).
			ind, _ := indentOf(agent)
			if i == 0 && !startsLine {
				ind = bytes.TrimPrefix(ind, cutIndent)
			}
			_, n := indentOf(o.text)
			o.text = append(bytes.Clone(ind), o.text[n:]...)
		}
		if rl.term {
			o.term = c[rl.end:rl.next]
		}
		emit(o)
	}
	form := byte(0)
	if p.bits&bitNFD != 0 {
		var all []byte
		for _, rl := range p.lines {
			all = append(all, c[rl.s:rl.e]...)
		}
		form = nfcForm(all)
	}
	fpos := 0 // next region line not yet consumed
	lastRL := p.lines[len(p.lines)-1]
	cutEnd := lastRL.e < lastRL.end
	// gluedEnd: what follows the region continues new_string's last line.
	gluedEnd := !v.new.endsNL && (cutEnd || lastRL.term)
	for _, op := range ops {
		switch op.kind {
		case opEqual, opDelete:
			i := p.omap[op.a]
			if i < 0 {
				// A blank line old_string has and the file lacks: nothing to
				// keep, unless new_string's line continues a line of the
				// file (after a cut first line, or before what follows the
				// region), where dropping it would join two lines.
				if op.kind == opEqual && (len(outs) == 0 && !startsLine ||
					op.b == len(v.new.lines)-1 && gluedEnd) {
					emit(out{text: v.new.lines[op.b], line: -1})
				}
				continue
			}
			for ; fpos < i; fpos++ {
				pending = append(pending, fpos)
			}
			if op.kind == opEqual {
				kept(i, v.new.lines[op.b])
			}
			fpos = i + 1
		case opInsert:
			t := v.new.lines[op.b]
			switch {
			case p.imap == nil:
			case len(outs) > 0 || startsLine:
				if len(trimSpace(t, trimBoth)) == 0 {
					t = nil
				} else {
					ti, n := indentOf(t)
					ind, _ := p.imap.apply(ti)
					t = append(ind, t[n:]...)
				}
			case p.imap.keep:
				// new_string's first line, indented as the file is, goes
				// after the part of the line that stays (its indentation).
				t = bytes.TrimPrefix(t, cutIndent)
			}
			switch form {
			case 'C':
				t = norm.NFC.Bytes(t)
			case 'D':
				t = norm.NFD.Bytes(t)
			}
			emit(out{text: t, line: -1})
		}
	}
	// A kept line that continues a line of the file (after the start of a
	// cut first line, or before what follows the region when new_string
	// has no final line ending) takes new_string's whitespace on that
	// side: the file's indentation or trailing whitespace would otherwise
	// land mid-line.
	if n := len(outs); n > 0 {
		if o := &outs[0]; !startsLine && o.line > 0 && o.agent != nil {
			_, an := indentOf(o.agent)
			_, fn := indentOf(o.text)
			o.text = append(bytes.Clone(o.agent[:an]), o.text[fn:]...)
		}
		last := len(p.lines) - 1
		if o := &outs[n-1]; gluedEnd && o.agent != nil && !(o.line == last && cutEnd) {
			core := trimSpace(o.text, trimRight)
			o.text = append(bytes.Clone(core), o.agent[len(trimSpace(o.agent, trimRight)):]...)
		}
	}
	var b bytes.Buffer
	for i, o := range outs {
		b.Write(o.text)
		if i < len(outs)-1 || v.new.endsNL {
			if len(o.term) > 0 {
				b.Write(o.term)
			} else {
				b.WriteString(p.eol)
			}
		}
	}
	p.repl = b.Bytes()
}

// keepFinalNewline makes the edit of p keep whether the file ends with a
// line ending, when p reaches the end of the file. lo is where the previous
// place ended: p never grows back over it.
func (m *matcher) keepFinalNewline(p *place, lo int) {
	p.start, p.repl = keepFinalNewline(m.f, lo, p.start, p.end, p.repl, p.eol)
}

// keepFinalNewline adjusts the replacement repl of c[start:end] so that
// the file still ends, or still does not end, with a line ending. It
// returns the region's start (moved back over a line ending, not before
// lo, when the last line is deleted from a file without a final newline)
// and the replacement.
func keepFinalNewline(f *file, lo, start, end int, repl []byte, eol string) (int, []byte) {
	c := f.c
	if end != len(c) || len(c) == 0 {
		return start, repl
	}
	had := c[len(c)-1] == '\n'
	has := len(repl) > 0 && repl[len(repl)-1] == '\n' ||
		len(repl) == 0 && start > 0 && c[start-1] == '\n'
	switch {
	case had && !has && (len(repl) > 0 || start > f.base):
		if eol == "" || bytes.HasSuffix(repl, []byte("\r")) {
			eol = "\n" // (a CR that ends repl makes it a CRLF)
		}
		repl = append(repl, eol...)
	case !had && has:
		if len(repl) > 0 {
			cut := bytes.TrimSuffix(bytes.TrimSuffix(repl, []byte("\n")), []byte("\r"))
			if !bytes.HasSuffix(cut, nl) {
				repl = cut
			} // else repl ends with a blank line, which ends the file with a newline anyway: repl stays whole
		} else if start-1 >= lo {
			// Deleting the last line: take the line ending before it too.
			start--
			if start-1 >= lo && c[start-1] == '\r' {
				start--
			}
		}
	}
	return start, repl
}

// Line diff of old_string against new_string, to tell the lines new_string
// keeps from the ones it changes.

type opKind byte

const (
	opEqual opKind = iota
	opDelete
	opInsert
)

type op struct {
	kind opKind
	a, b int
}

// maxDiffCells bounds the LCS table; beyond it the differing middle is
// taken as replaced whole.
const maxDiffCells = 4 << 20

// editScript returns the edit script from old_string's lines to
// new_string's. A blank first line (followed by others) is the end of the
// line before the block, and a blank unterminated last line the start of
// the line after it: such a line of old_string pairs only with the same
// kind of line in new_string, and is deleted otherwise; such a line of
// new_string is inserted otherwise.
func editScript(v *variant) []op {
	a, b := v.old.lines, v.new.lines
	var buf [64]byte
	var head, tail []op
	lo, hi, nlo, nhi := 0, len(a), 0, len(b)
	newLead := len(b) > 1 && isBlank(buf[:], b[0])
	switch {
	case v.leadTail() && newLead:
		head, lo, nlo = []op{{opEqual, 0, 0}}, 1, 1
	case v.leadTail():
		head, lo = []op{{opDelete, 0, 0}}, 1
	case newLead:
		head, nlo = []op{{opInsert, 0, 0}}, 1
	}
	newTrail := !v.new.endsNL && nhi-1 > nlo && isBlank(buf[:], b[nhi-1])
	switch {
	case v.trailHead() && newTrail:
		hi, nhi = hi-1, nhi-1
		tail = []op{{opEqual, hi, nhi}}
	case v.trailHead():
		hi--
		tail = []op{{opDelete, hi, nhi}}
	case newTrail:
		nhi--
		tail = []op{{opInsert, hi, nhi}}
	}
	ops := head
	for _, o := range lineDiff(a[lo:hi], b[nlo:nhi]) {
		ops = append(ops, op{o.kind, o.a + lo, o.b + nlo})
	}
	return append(ops, tail...)
}

// lineDiff returns the edit script from a to b. Two blank lines are equal
// whatever whitespace they hold.
func lineDiff(a, b [][]byte) []op {
	var buf [64]byte
	same := func(x, y []byte) bool { return bytes.Equal(x, y) || isBlank(buf[:], x) && isBlank(buf[:], y) }
	var ops []op
	p := 0
	for p < len(a) && p < len(b) && same(a[p], b[p]) {
		ops = append(ops, op{opEqual, p, p})
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && same(a[len(a)-1-s], b[len(b)-1-s]) {
		s++
	}
	ma, mb := a[p:len(a)-s], b[p:len(b)-s]
	if len(ma)*len(mb) <= maxDiffCells {
		// LCS table over the middle, walked from the start.
		w := len(mb) + 1
		t := make([]int32, (len(ma)+1)*w)
		for i := len(ma) - 1; i >= 0; i-- {
			for j := len(mb) - 1; j >= 0; j-- {
				if same(ma[i], mb[j]) {
					t[i*w+j] = t[(i+1)*w+j+1] + 1
				} else {
					t[i*w+j] = max(t[(i+1)*w+j], t[i*w+j+1])
				}
			}
		}
		i, j := 0, 0
		for i < len(ma) || j < len(mb) {
			switch {
			case i < len(ma) && j < len(mb) && same(ma[i], mb[j]):
				ops = append(ops, op{opEqual, p + i, p + j})
				i, j = i+1, j+1
			case i < len(ma) && (j == len(mb) || t[(i+1)*w+j] >= t[i*w+j+1]):
				ops = append(ops, op{opDelete, p + i, p + j})
				i++
			default:
				ops = append(ops, op{opInsert, p + i, p + j})
				j++
			}
		}
	} else {
		for i := range ma {
			ops = append(ops, op{opDelete, p + i, p})
		}
		for j := range mb {
			ops = append(ops, op{opInsert, p + len(ma), p + j})
		}
	}
	for i := 0; i < s; i++ {
		ops = append(ops, op{opEqual, len(a) - s + i, len(b) - s + i})
	}
	return ops
}
