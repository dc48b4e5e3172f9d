package grep

import (
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// lineDFA finds the lines that hold a match of a pattern with a lazy
// DFA: a state is a set of the compiled program's instructions, built the
// first time the scan meets it and kept, so once a text's states are
// built each byte costs one table step. Go's regexp package runs an NFA
// or a backtracker, which costs far more per byte: a pattern with no
// literal for the prefilter (`\s+$`, `\d{4}-\d{2}`) spent all its time
// there. The DFA only says which lines match; the column comes from the
// regexp, run on those lines alone. One lineDFA serves one goroutine.
type lineDFA struct {
	prog   *syntax.Prog
	states map[string]*dstate
	start  *dstate // at the start of a line
	// scanned counts the bytes read; atReset, what it was when the
	// cache was last dropped; gaveUp, that it filled up too fast.
	scanned, atReset int
	gaveUp           bool
	mem              int // what the states take (stateMem)
	// scratch for building states
	stack, out, visited []uint32
	seen                []bool
	key                 []byte
}

// dstate is a DFA state: the instructions to follow next, not yet
// expanded over the empty-width ones (which depend on the character that
// comes), and what is known of the character before.
type dstate struct {
	pcs   []uint32
	begin bool // at the start of the line
	prevW bool // the character before is a word character
	// next is the state after each ASCII character (nil: not built);
	// matched, that a match ends before it.
	next    [utf8.RuneSelf]*dstate
	matched [utf8.RuneSelf]bool
	other   map[rune]*dstate // the steps over other characters (nil: a match)
	endDone bool             // endOK is known
	endOK   bool             // a match ends at the end of the line
}

// maxDFAMem bounds the memory a lineDFA's states take (each about 1.2 KiB
// plus 4 bytes an instruction); past it the cache is dropped and built
// again. When it fills up before the scan has read minBytesPerState
// bytes a state, building states costs more than the regexp would
// (`(a|b)*a(a|b){20}` has 2^21), and the pattern is left to the regexp.
const (
	maxDFAMem        = 4 << 20
	minBytesPerState = 32
)

// stateMem is about what a state of n instructions takes.
func stateMem(n int) int { return 1280 + 8*n }

func newLineDFA(prog *syntax.Prog) *lineDFA {
	d := &lineDFA{prog: prog, seen: make([]bool, len(prog.Inst))}
	d.reset()
	return d
}

// reset drops every state but a new start. A state being stepped from
// lives on until its line ends; the states it leads to are garbage then.
func (d *lineDFA) reset() {
	st := &dstate{pcs: []uint32{uint32(d.prog.Start)}, begin: true}
	d.states = map[string]*dstate{string(d.keyOf(st.pcs, true, false)): st}
	d.start, d.mem = st, stateMem(1)
}

// usable reports whether the DFA still pays (its cache has not filled
// up too fast).
func (d *lineDFA) usable() bool { return !d.gaveUp }

// keyOf is the key of a state in d.states, in d.key's storage.
func (d *lineDFA) keyOf(pcs []uint32, begin, prevW bool) []byte {
	k := append(d.key[:0], b2i(begin)|b2i(prevW)<<1)
	for _, pc := range pcs {
		k = append(k, byte(pc), byte(pc>>8), byte(pc>>16), byte(pc>>24))
	}
	d.key = k
	return k
}

// intern finds or makes the state of pcs (sorted, without duplicates).
func (d *lineDFA) intern(pcs []uint32, begin, prevW bool) *dstate {
	if s, ok := d.states[string(d.keyOf(pcs, begin, prevW))]; ok {
		return s
	}
	if d.mem+stateMem(len(pcs)) > maxDFAMem {
		if d.scanned-d.atReset < minBytesPerState*len(d.states) {
			d.gaveUp = true
		}
		d.atReset = d.scanned
		d.reset()
	}
	d.mem += stateMem(len(pcs))
	s := &dstate{pcs: slices.Clone(pcs), begin: begin, prevW: prevW}
	d.states[string(d.keyOf(pcs, begin, prevW))] = s
	return s
}

func b2i(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// emptyContext is the empty-width context between the character before s and
// r (-1: the end of the line).
func emptyContext(s *dstate, r rune) syntax.EmptyOp {
	var f syntax.EmptyOp
	if s.begin {
		f |= syntax.EmptyBeginLine | syntax.EmptyBeginText
	}
	if r < 0 {
		f |= syntax.EmptyEndLine | syntax.EmptyEndText
	}
	if s.prevW != (r >= 0 && syntax.IsWordChar(r)) {
		f |= syntax.EmptyWordBoundary
	} else {
		f |= syntax.EmptyNoWordBoundary
	}
	return f
}

// step follows s over r (-1: the end of the line): whether a match ends
// before r, and otherwise the state after it.
func (d *lineDFA) step(s *dstate, r rune) (matched bool, next *dstate) {
	f := emptyContext(s, r)
	out, visited := d.out[:0], d.visited[:0]
	stack := d.stack[:0]
	for i := len(s.pcs) - 1; i >= 0; i-- {
		stack = append(stack, s.pcs[i])
	}
	for len(stack) > 0 && !matched {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if d.seen[pc] {
			continue
		}
		d.seen[pc] = true
		visited = append(visited, pc)
		in := &d.prog.Inst[pc]
		switch in.Op {
		case syntax.InstMatch:
			matched = true
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, in.Arg, in.Out)
		case syntax.InstCapture, syntax.InstNop:
			stack = append(stack, in.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(in.Arg)&^f == 0 {
				stack = append(stack, in.Out)
			}
		case syntax.InstRune, syntax.InstRune1:
			if r >= 0 && in.MatchRune(r) {
				out = append(out, in.Out)
			}
		case syntax.InstRuneAny:
			if r >= 0 {
				out = append(out, in.Out)
			}
		case syntax.InstRuneAnyNotNL:
			if r >= 0 && r != '\n' {
				out = append(out, in.Out)
			}
		}
	}
	for _, pc := range visited {
		d.seen[pc] = false
	}
	d.stack, d.visited = stack, visited
	if matched || r < 0 {
		d.out = out
		return matched, nil
	}
	// A match may start at any character: the start is always followed.
	out = append(out, uint32(d.prog.Start))
	slices.Sort(out)
	out = slices.Compact(out)
	d.out = out
	return false, d.intern(out, false, syntax.IsWordChar(r))
}

// atEnd reports whether a match ends at the end of the line in state s.
func (d *lineDFA) atEnd(s *dstate) bool {
	if !s.endDone {
		s.endOK, _ = d.step(s, -1)
		s.endDone = true
	}
	return s.endOK
}

// nextLine returns where the first line at or after pos (the start of a
// line) that holds a match starts, or -1.
func (d *lineDFA) nextLine(buf []byte, pos int) int {
	ls := d.scan(buf, pos)
	if ls < 0 {
		d.scanned += len(buf) - pos
	} else {
		d.scanned += ls - pos // at least: the matching line is not counted
	}
	return ls
}

func (d *lineDFA) scan(buf []byte, pos int) int {
	s, ls := d.start, pos
	for i := pos; i < len(buf); {
		b := buf[i]
		if b == '\n' {
			if d.atEnd(s) {
				return ls
			}
			s, ls = d.start, i+1
			i++
			continue
		}
		if b < utf8.RuneSelf {
			n := s.next[b]
			if n == nil {
				if s.matched[b] {
					return ls
				}
				m, ns := d.step(s, rune(b))
				if m {
					s.matched[b] = true
					return ls
				}
				s.next[b], n = ns, ns
			}
			s = n
			i++
			continue
		}
		r, w := utf8.DecodeRune(buf[i:])
		ns, ok := s.other[r]
		if !ok {
			m, n := d.step(s, r)
			if m {
				n = nil
			}
			if s.other == nil {
				s.other = map[rune]*dstate{}
			}
			s.other[r], ns = n, n
		}
		if ns == nil {
			return ls
		}
		s = ns
		i += w
	}
	if ls < len(buf) && d.atEnd(s) {
		return ls
	}
	return -1
}
