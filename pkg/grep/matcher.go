package grep

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
	es "github.com/dlclark/regexp2/v2/syntax"
	"github.com/wstools/ws/pkg/errs"
)

// Matcher finds the first match of a line: Go's RE2 engine, or an
// ECMAScript engine for patterns that need lookaround or backreferences.
// When every match must contain one of a few literals, those are looked
// for first with a fast byte scan and the regexp runs only on the lines
// that hold one. The ECMAScript engine runs only on the lines an RE2
// superset of its pattern matches (see esSuperset).
type Matcher struct {
	re  *regexp.Regexp  // multi-line mode, for whole-buffer scanning
	re1 *regexp.Regexp  // single-line, for one line
	es  *regexp2.Regexp // the fallback
	// esLong holds copies of es with longer timeouts (esLimit), by
	// timeout, made when a long line needs one; esSrc and esOpts make
	// them.
	esLong sync.Map
	esSrc  string
	esOpts regexp2.RegexOptions
	// needles are the prefilter: every match contains one of them. Nil
	// when the pattern has no such literal.
	needles []needle
	// exact: the pattern is the one needle, so where it is found the
	// match is, and no regexp needs to run.
	exact bool
	// group is the capture group that is the match (-w wraps the
	// pattern); 0 is the whole match.
	group  int
	finder sync.Pool
	// prog is re1's program, for the lazy DFA that finds the lines that
	// match (nil: the ECMAScript engine runs the pattern, or it is one
	// literal). Without it, RE2 would run on every line, or every
	// candidate line, at NFA speed.
	prog *syntax.Prog
	dfas sync.Pool // of *lineDFA
	// approx: prog is the superset of an ECMAScript pattern (see
	// esSuperset) that may match where the pattern does not, so a line
	// the DFA finds is only a candidate, which the ECMAScript engine
	// decides. With approx false the DFA's lines are the matching ones.
	approx bool
	// gate, with -U, is an ECMAScript pattern's superset: a file it does
	// not match holds no match, and the ECMAScript engine never runs.
	gate *regexp.Regexp
	// prefixed: the pattern starts with a literal of three bytes or
	// more, which RE2's own search over the whole buffer skips to.
	prefixed bool
	// multi: a match may span lines (ripgrep's -U); each file is
	// searched whole, by re or es, and every line a match covers is a
	// hit (see eachSpan). crosses: the pattern can match a line end, so
	// a match may in fact cover more than one line.
	multi, crosses bool
	// looksBack: the pattern asserts something of what precedes a place
	// (^, \b, \B), so a multi-line search cannot resume on a slice.
	looksBack bool
	// words lists a line's matches of a -w pattern that RE2 runs (see
	// AppendInLine): the ECMAScript engine with lookaround for the borders,
	// made on first use. RE2's borders are characters of the match, so
	// the next word would lose the one before it ("foo foo").
	words func() *regexp2.Regexp
}

// errNeedsES says RE2 cannot run a pattern as JavaScript reads it.
var errNeedsES = errors.New("needs the ECMAScript engine")

// errTimeout is the ECMAScript engine giving up on a line.
var errTimeout = errors.New("regex match timed out")

// esTimeout bounds one match of the ECMAScript engine on one line: a
// pattern that backtracks catastrophically fails the search instead of
// running for ever. RE2 runs in linear time and needs no bound.
var esTimeout = time.Second

// A line longer than esBytesPerSecond gets esTimeout more for each such
// length, up to esMaxTimeout: regexp2 reads about a megabyte a second on
// a pattern that backtracks a little (`\b(\w+) \1\b`), so a long line
// (a generated table, minified code) would time out where the pattern
// does not run away; one that runs away still takes exponential time.
const (
	esBytesPerSecond = 256 << 10
	esMaxTimeout     = time.Minute
)

// SearchLimit is how long the ECMAScript engine may take to search n
// bytes (a line, or a whole file with -U) before the search fails.
func SearchLimit(n int) time.Duration { return esLimit(n) }

// esLimit is the match timeout for a line of n bytes.
func esLimit(n int) time.Duration {
	return min(esTimeout*time.Duration(1+n/esBytesPerSecond), esMaxTimeout)
}

// CompileOptions say how a pattern is read.
type CompileOptions struct {
	CaseSensitive bool
	Fixed         bool // the pattern is a plain string, not a regexp
	Word          bool // a match stands between non-word characters or line ends
	// Multiline lets a match span lines (ripgrep's -U): `\n`, `\s`, `[^…]`
	// and `[^]` match line ends; `.` still does not, and `^` and `$` match
	// at each line's start and end.
	Multiline bool
}

// Compile makes the matcher of a pattern: Go RE2 first, the ECMAScript
// engine when RE2 refuses the pattern (lookaround, backreferences).
func Compile(pattern string, caseSensitive bool) (*Matcher, error) {
	return CompileWith(pattern, CompileOptions{CaseSensitive: caseSensitive})
}

// CompileWith is Compile with ripgrep's -F and -w.
func CompileWith(pattern string, o CompileOptions) (*Matcher, error) {
	return compileWith(pattern, o, true)
}

// compileWith is CompileWith; without prefilter, a pattern the ECMAScript
// engine runs gets no superset (see esSuperset), as tests compare.
func compileWith(pattern string, o CompileOptions, prefilter bool) (*Matcher, error) {
	if o.Fixed {
		pattern = regexp.QuoteMeta(pattern)
	}
	flags := ""
	if !o.CaseSensitive {
		flags = "i"
	}
	// RE2 runs the pattern with `\s`, `\S` and `.` spelled as JavaScript
	// reads them; when they cannot be spelled so, the ECMAScript engine
	// runs it.
	js, ok := jsClasses(pattern)
	src, group := js, 0
	if o.Word {
		// The match is the group; what stands around it is not.
		src, group = `(?:^|[^`+wordRE2+`])(`+js+`)(?:[^`+wordRE2+`]|$)`, 1
	}
	re1, err := regexp.Compile(prefixFlags(flags, src))
	if !ok || o.Word && o.Multiline {
		// RE2's -w borders are characters of the match: across lines the
		// next match would lose the one before it ("foo\nbar foo\nbar"
		// finds one). The ECMAScript engine borders with lookaround.
		re1, err = nil, errNeedsES
	}
	if err == nil {
		m := &Matcher{re: regexp.MustCompile(prefixFlags(flags+"m", src)), re1: re1, group: group, multi: o.Multiline}
		if o.Word {
			opts := regexp2.ECMAScript
			if !o.CaseSensitive {
				opts |= regexp2.IgnoreCase
			}
			m.words = sync.OnceValue(func() *regexp2.Regexp {
				re, err := regexp2.Compile(wordES(pattern), opts)
				if err != nil {
					return nil
				}
				re.MatchTimeout = esTimeout
				return re
			})
		}
		if o.Multiline {
			nl, anchored := true, true
			if tree, perr := syntax.Parse(prefixFlags(flags+"m", src), syntax.Perl); perr == nil {
				nl, anchored, m.looksBack = matchesNewline(tree), lineAnchored(tree), looksBack(tree)
			}
			if nl || anchored {
				m.crosses = true
				m.looksBack = m.looksBack || group > 0 // -w's border looks back too
				return m, nil                          // no prefilter or DFA: they look at one line at a time
			}
			// A pattern that cannot match a line end, nor asserts one,
			// matches within lines: it is searched a line at a time, as
			// ripgrep searches it even with -U, with the prefilter and the
			// DFA.
			m.multi = false
		}
		if tree, perr := syntax.Parse(prefixFlags(flags, src), syntax.Perl); perr == nil {
			tree = tree.Simplify()
			m.setNeedles(requiredRE2(tree))
			m.exact = len(m.needles) == 1 && m.needles[0].whole && isLiteral(tree)
			// Several needles cost a pass each; when the pattern starts
			// with a literal of three bytes or more, RE2's own prefix
			// search over the whole buffer is faster (measured on the Go
			// tree: Err(UnexpectedEOF|ShortWrite|ClosedPipe)).
			if p, _ := re1.LiteralPrefix(); len(m.needles) > 1 && len(p) >= 3 {
				m.needles = nil
			}
			if !m.exact {
				m.setDFA(tree)
			}
		}
		return m, nil
	}
	opts := regexp2.ECMAScript
	if !o.CaseSensitive {
		opts |= regexp2.IgnoreCase
	}
	if o.Multiline {
		opts |= regexp2.Multiline // ^ and $ at line ends, as in RE2's (?m)
	}
	if o.Word {
		pattern = wordES(pattern)
	}
	re2, err2 := regexp2.Compile(pattern, opts)
	if err2 != nil {
		// Go's message, on the pattern as it was given.
		_, err = regexp.Compile(prefixFlags(flags, pattern))
		if err == nil {
			err = err2
		}
		return nil, errs.InvalidRegex(err.Error())
	}
	re2.MatchTimeout = esTimeout
	// What an ECMAScript pattern can match is not worked out: it is taken
	// to cross lines.
	m := &Matcher{es: re2, esSrc: pattern, esOpts: opts, multi: o.Multiline, crosses: o.Multiline}
	tree, perr := es.Parse(pattern, es.ParseOptions{RegexOptions: es.ECMAScript})
	if perr != nil {
		return m, nil
	}
	if prefilter {
		m.setSuperset(pattern, tree, !o.CaseSensitive, o.Multiline)
	}
	if !o.Multiline && m.needles == nil {
		m.setNeedles(requiredES(tree.Root, !o.CaseSensitive))
	}
	return m, nil
}

// wordRE2 is the class of ripgrep's word characters (Unicode's \w:
// letters, marks, decimal digits, letter numbers, connector punctuation,
// the joiners), for -w's borders in RE2: RE2's \w and \b are ASCII, so
// "caf" was a whole word in "café".
const wordRE2 = `\p{L}\p{M}\p{Nd}\p{Nl}\p{Pc}\x{200C}\x{200D}`

// wordES borders pattern as -w does, for the ECMAScript engine, whose \w is
// ASCII and which reads no \p{…}: with lookaround on the same class as
// wordRE2, spelled out (the characters of the Basic Multilingual Plane;
// regexp2 takes no escape beyond it).
func wordES(pattern string) string {
	c := esWordClass()
	return `(?<![` + c + `])(?:` + pattern + `)(?![` + c + `])`
}

var esWordClass = sync.OnceValue(func() string {
	var sb strings.Builder
	for _, t := range []*unicode.RangeTable{unicode.L, unicode.M, unicode.Nd, unicode.Nl, unicode.Pc} {
		for _, r := range t.R16 {
			if r.Stride == 1 {
				fmt.Fprintf(&sb, `\u%04X-\u%04X`, r.Lo, r.Hi)
				continue
			}
			for c := r.Lo; c <= r.Hi; c += r.Stride {
				fmt.Fprintf(&sb, `\u%04X`, c)
				if c > r.Hi-r.Stride {
					break // c + Stride would wrap past 0xFFFF
				}
			}
		}
	}
	sb.WriteString(`\u200C\u200D`)
	return sb.String()
})

// setSuperset readies the prefilter of an ECMAScript pattern (see
// esSuperset): with -U, an RE2 test of the whole file (one that cannot
// match holds no match); otherwise the lazy DFA that finds the lines the
// superset matches, and the literals every such line holds.
func (m *Matcher) setSuperset(pattern string, tree *es.RegexTree, fold, multi bool) {
	src, exact, ok := esSuperset(pattern, tree, fold, multi)
	if !ok {
		return
	}
	sup, err := regexp.Compile(src)
	if err != nil {
		return // too big for RE2
	}
	if multi {
		m.gate = sup
		return
	}
	stree, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return
	}
	stree = stree.Simplify()
	prog, err := syntax.Compile(stree)
	if err != nil {
		return
	}
	m.setNeedles(requiredRE2(stree))
	m.prog, m.approx = prog, !exact
	m.dfas.New = func() any { return newLineDFA(prog) }
}

// isLiteral reports a pattern that is one literal string, nothing else.
func isLiteral(re *syntax.Regexp) bool {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	return re.Op == syntax.OpLiteral
}

// setNeedles keeps the prefilter when every literal gives a needle worth
// scanning for: at least two bytes, or a whole one-character pattern.
func (m *Matcher) setNeedles(alts []lit, ok bool) {
	if !ok || len(alts) == 0 {
		return
	}
	ns := make([]needle, 0, len(alts))
	for _, l := range alts {
		n := needleOf(l)
		if len(n.b) < 2 && !(len(alts) == 1 && n.whole && len(n.b) == 1) {
			return
		}
		ns = append(ns, n)
	}
	m.needles = ns
	m.finder.New = func() any { return newFinder(m.needles) }
}

// setDFA readies the lazy DFA that finds the lines that match.
func (m *Matcher) setDFA(tree *syntax.Regexp) {
	p, _ := m.re1.LiteralPrefix()
	m.prefixed = len(p) >= 3
	prog, err := syntax.Compile(tree)
	if err != nil {
		return
	}
	m.prog = prog
	m.dfas.New = func() any { return newLineDFA(prog) }
}

func prefixFlags(flags, pattern string) string {
	if flags == "" {
		return pattern
	}
	return "(?" + flags + ")" + pattern
}

// FirstInLine returns the byte offset of the first match in line, or -1.
// It fails only when the ECMAScript engine runs out of time.
func (m *Matcher) FirstInLine(line []byte) (int, error) {
	if m.es != nil {
		mt, err := m.esFor(len(line)).FindStringMatch(string(line))
		if err != nil {
			return -1, errTimeout
		}
		if mt == nil {
			return -1, nil
		}
		i, _ := mt.ByteRange()
		return i, nil
	}
	if m.group > 0 {
		if loc := m.re1.FindSubmatchIndex(line); loc != nil {
			return loc[2*m.group], nil
		}
		return -1, nil
	}
	loc := m.re1.FindIndex(line)
	if loc == nil {
		return -1, nil
	}
	return loc[0], nil
}

// esFor is the ECMAScript engine for a line of n bytes, with its timeout.
func (m *Matcher) esFor(n int) *regexp2.Regexp {
	d := esLimit(n)
	if d == m.es.MatchTimeout {
		return m.es
	}
	if re, ok := m.esLong.Load(d); ok {
		return re.(*regexp2.Regexp)
	}
	re, err := regexp2.Compile(m.esSrc, m.esOpts)
	if err != nil {
		return m.es // it compiled once: not reached
	}
	re.MatchTimeout = d
	got, _ := m.esLong.LoadOrStore(d, re)
	return got.(*regexp2.Regexp)
}

// TimeoutError says the ECMAScript engine gave up on a line.
type TimeoutError struct {
	Line  int // 0-based
	Limit time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("regex match timed out on line %d", e.Line+1)
}

// Hit is a matching line of one file.
type Hit struct {
	Line int // 0-based
	Col  int // byte offset of the first match in the line
}

// Scan finds the first match of each line of buf, at most limit lines (0:
// no limit). With a prefilter, only the lines that hold a needle are
// matched; without one, RE2 scans the whole buffer at once (a file without
// a match costs one search), counting newlines only up to each match, and
// the ECMAScript engine goes line by line.
func (m *Matcher) Scan(buf []byte, limit int) ([]Hit, error) {
	return m.collect(buf, limit, true)
}

// ScanLines is Scan for a caller that needs only which lines match (-l,
// -c, -v): a hit's Col may be 0 where the DFA found the line, which
// saves running the regexp on it.
func (m *Matcher) ScanLines(buf []byte, limit int) ([]Hit, error) {
	return m.collect(buf, limit, false)
}

func (m *Matcher) collect(buf []byte, limit int, cols bool) ([]Hit, error) {
	var hits []Hit
	err := m.each(buf, cols, false, func(line, col int) bool {
		hits = append(hits, Hit{line, col})
		return limit <= 0 || len(hits) < limit
	})
	return hits, err
}

// each calls add with each line of buf that matches, in order: its number
// (0-based) and the column of its first match (with cols false, 0 where
// the DFA found the line), until add returns false. With misses, add also
// hears of the lines without a match as soon as they are known: add(n, -1)
// says that the lines up to n not passed on before hold none (-v stops
// there once it has its fill, rather than at the next match). Nothing is
// kept: a caller that only counts holds no places. It fails only when the
// ECMAScript engine runs out of time on a line (a *TimeoutError).
func (m *Matcher) each(buf []byte, cols, misses bool, add func(line, col int) bool) error {
	switch {
	case m.multi:
		return m.eachSpan(buf, misses, add)
	case m.needles != nil:
		return m.eachCandidate(buf, cols, misses, add)
	case m.prog != nil && (m.group > 0 || !m.prefixed):
		d := m.dfas.Get().(*lineDFA)
		defer m.dfas.Put(d)
		if d.usable() {
			m.eachDFA(d, buf, cols, misses, add)
			return nil
		}
		fallthrough
	case m.es != nil, m.group > 0:
		// A -w pattern's border may be the newline before the line: it
		// is matched line by line.
		return m.eachLine(buf, misses, add)
	}
	m.eachInBuffer(buf, misses, add)
	return nil
}

func (m *Matcher) eachCandidate(buf []byte, cols, misses bool, add func(line, col int) bool) error {
	f := m.finder.Get().(*finder)
	defer m.finder.Put(f)
	f.reset()
	var d *lineDFA
	if m.prog != nil {
		d = m.dfas.Get().(*lineDFA)
		defer m.dfas.Put(d)
	}
	return collectHits(buf, func(pos int) (int, int) {
		c := f.find(buf, pos)
		return c, c
	}, func(line []byte, start, _ int) (int, error) {
		if m.exact {
			return start, nil
		}
		if d != nil && d.usable() {
			if d.nextLine(line, 0) < 0 {
				return -1, nil // the DFA says no, at a table step a byte
			}
			if !cols && !m.approx {
				return 0, nil
			}
		}
		return m.FirstInLine(line)
	}, misses, add)
}

// collectHits drives a scan of buf, a line at a time: next(pos) is where
// the first match (or candidate) at or after pos starts and ends (-1: none
// left), and col(line, start, end), given that line and the offsets in it,
// is the column of the line's first match (-1: the line has none); each
// matching line goes to add, and with misses what is known not to match
// (see each), until add returns false. It fails only when col does (a
// timeout).
func collectHits(buf []byte, next func(pos int) (start, end int), col func(line []byte, start, end int) (int, error), misses bool, add func(line, col int) bool) error {
	pos, line := 0, 0 // pos starts line (0-based)
	for pos < len(buf) {
		start, end := next(pos)
		if start < 0 {
			break
		}
		ls, le, n := lineOf(buf, pos, line, start)
		if start == len(buf) && ls == start {
			break // an empty match after the final newline: no line there
		}
		if misses && n > line && !add(n-1, -1) {
			break // next passed over lines line to n-1
		}
		line = n
		c, err := col(buf[ls:le], start-ls, end-ls)
		if err != nil {
			return &TimeoutError{Line: line, Limit: esLimit(le - ls)}
		}
		if (c >= 0 || misses) && !add(line, c) {
			break
		}
		if le >= len(buf) {
			break
		}
		pos, line = le+1, line+1
	}
	return nil
}

var newline = []byte{'\n'}

// lineOf finds the line that holds buf[at]: where it starts and ends (the
// end excludes the newline) and its number, counted on from line, the
// number of the line that starts at pos (pos <= at).
func lineOf(buf []byte, pos, line, at int) (ls, le, n int) {
	ls, n = pos, line
	if k := bytes.LastIndexByte(buf[pos:at], '\n'); k >= 0 {
		ls = pos + k + 1
		n += bytes.Count(buf[pos:ls], newline)
	}
	le = len(buf)
	if k := bytes.IndexByte(buf[at:], '\n'); k >= 0 {
		le = at + k
	}
	return ls, le, n
}

// eachDFA runs the regexp only on the lines the DFA says match. When the
// DFA stops paying part way (see usable), the rest of buf is matched line
// by line.
func (m *Matcher) eachDFA(d *lineDFA, buf []byte, cols, misses bool, add func(line, col int) bool) {
	found := false // the DFA found the line now asked about
	_ = collectHits(buf, func(pos int) (int, int) {
		if found = d.usable(); !found {
			return pos, pos
		}
		ls := d.nextLine(buf, pos)
		return ls, ls
	}, func(line []byte, _, _ int) (int, error) {
		if found && !cols && !m.approx {
			return 0, nil
		}
		return m.FirstInLine(line)
	}, misses, add)
}

// eachLine matches every line on its own.
func (m *Matcher) eachLine(buf []byte, misses bool, add func(line, col int) bool) error {
	return collectHits(buf, func(pos int) (int, int) { return pos, pos },
		func(line []byte, _, _ int) (int, error) { return m.FirstInLine(line) }, misses, add)
}

func (m *Matcher) eachInBuffer(buf []byte, misses bool, add func(line, col int) bool) {
	_ = collectHits(buf, func(pos int) (int, int) {
		loc := m.re.FindIndex(buf[pos:])
		if loc == nil {
			return -1, -1
		}
		return pos + loc[0], pos + loc[1]
	}, func(line []byte, start, end int) (int, error) {
		if end > len(line) {
			// The match runs past the line's end: the line's own first
			// match, if it has one, is somewhere else.
			c, _ := m.FirstInLine(line)
			return c, nil
		}
		return start, nil
	}, misses, add)
}

// Span is a match: where it starts and ends.
type Span struct{ Start, End int }

// AppendInLine appends to dst each match of line, in order, leftmost
// first and not overlapping, as ripgrep lists a line's submatches; col is
// where the first one starts (the hit's column). A match that is empty
// next to the one before it is not one, nor, as in ripgrep, an empty one
// at the end of a last line that has no newline (final).
func (m *Matcher) AppendInLine(dst []Span, line []byte, col int, final bool) []Span {
	k := len(dst)
	switch {
	case m.exact && m.group == 0 && !m.multi:
		n := &m.needles[0]
		for pos := col; pos+len(n.b) <= len(line); {
			if n.at(line[pos : pos+len(n.b)]) {
				dst = append(dst, Span{pos, pos + len(n.b)})
				pos += max(len(n.b), 1)
				continue
			}
			if n.fold {
				pos++
				continue
			}
			i := bytes.Index(line[pos+1:], n.b)
			if i < 0 {
				break
			}
			pos += 1 + i
		}
	case m.re1 != nil && m.group > 0 && m.words() != nil:
		dst = appendES(dst, m.words(), line)
	case m.re1 != nil && m.group > 0:
		for _, loc := range m.re1.FindAllSubmatchIndex(line, -1) {
			dst = append(dst, Span{loc[2*m.group], loc[2*m.group+1]})
		}
	case m.re1 != nil:
		for _, loc := range m.re1.FindAllIndex(line, -1) {
			dst = append(dst, Span{loc[0], loc[1]})
		}
	default:
		dst = appendES(dst, m.esFor(len(line)), line)
	}
	if final && len(dst) > k {
		if l := dst[len(dst)-1]; l.Start == len(line) && l.End == l.Start {
			dst = dst[:len(dst)-1]
		}
	}
	return dst
}

// appendES appends the matches of line that re finds, until it finds no
// more or runs out of time.
func appendES(dst []Span, re *regexp2.Regexp, line []byte) []Span {
	mt, err := re.FindStringMatch(string(line))
	for ; err == nil && mt != nil; mt, err = re.FindNextMatch(mt) {
		i, n := mt.ByteRange()
		dst = append(dst, Span{i, i + n})
	}
	return dst
}

// MatchLen is the byte length of the match found at col (at least 0).
func (m *Matcher) MatchLen(line []byte, col int) int {
	if m.exact && m.group == 0 {
		// The pattern is its one needle: where it stands, it is the
		// match, and no regexp needs to run (--jsonl asks on every line).
		if n := &m.needles[0]; col >= 0 && col+len(n.b) <= len(line) && n.at(line[col:col+len(n.b)]) {
			return len(n.b)
		}
	}
	if m.group > 0 {
		if loc := m.re1.FindSubmatchIndex(line); loc != nil && loc[2*m.group] == col {
			return loc[2*m.group+1] - col
		}
		return 0
	}
	if m.re1 != nil {
		if loc := m.re1.FindIndex(line[col:]); loc != nil && loc[0] == 0 {
			return loc[1]
		}
		return 0
	}
	if mt, err := m.esFor(len(line)).FindStringMatch(string(line)); err == nil && mt != nil {
		_, n := mt.ByteRange()
		return n
	}
	return 0
}

// eachSpan is each for a pattern whose matches may span lines: it finds
// the matches in the whole of buf, one after another, and passes on every
// line a match covers, once, in order: the line it starts on with its
// column, the lines after it with column 0. A match that ends with a
// newline covers the line that newline ends; an empty one, the line it
// stands on. The ECMAScript engine's timeout is for buf (esLimit), and a
// timeout names the line the search had reached.
func (m *Matcher) eachSpan(buf []byte, misses bool, add func(line, col int) bool) error {
	next := m.spans(buf)
	pos, line := 0, 0 // pos starts line (0-based)
	done := -1        // the last line passed on
	for {
		start, end, err := next()
		if err != nil {
			return &TimeoutError{Line: line, Limit: esLimit(len(buf))}
		}
		if start < 0 || start == len(buf) && (start == 0 || buf[start-1] == '\n') {
			return nil // no more, or an empty match after the final newline
		}
		ls, _, n := lineOf(buf, pos, line, start)
		pos, line = ls, n
		last := n
		if end > start {
			last += bytes.Count(buf[start:end-1], newline)
		}
		for l := max(n, done+1); l <= last; l++ {
			if misses && l > done+1 && !add(l-1, -1) {
				return nil
			}
			col := 0
			if l == n {
				col = start - ls
			}
			if !add(l, col) {
				return nil
			}
			done = l
		}
	}
}

// CrossesLines reports a multi-line matcher whose pattern can match a
// line end, or asserts one (^, $): its matches may cover several lines,
// and a run of lines they cover is one --jsonl message. (ripgrep searches
// any other pattern line by line, even with -U.)
func (m *Matcher) CrossesLines() bool { return m.crosses }

// Spans calls yield with each match of buf, in order, for a multi-line
// matcher, until yield returns false. It fails only when the ECMAScript
// engine runs out of time.
func (m *Matcher) Spans(buf []byte, yield func(start, end int) bool) error {
	next := m.spans(buf)
	for {
		start, end, err := next()
		if err != nil {
			return err
		}
		if start < 0 || !yield(start, end) {
			return nil
		}
	}
}

// matchesNewline reports a regexp that can match '\n' somewhere: a
// literal, a class or an any-character that holds it. ripgrep searches
// such a pattern, or one that asserts a line's start or end (see
// lineAnchored), across lines with -U, and any other line by line.
func matchesNewline(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		return slices.Contains(re.Rune, '\n')
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] {
				return true
			}
		}
		return false
	case syntax.OpAnyChar:
		return true
	}
	return slices.ContainsFunc(re.Sub, matchesNewline)
}

// lineAnchored reports a regexp that asserts a line's start or end.
func lineAnchored(re *syntax.Regexp) bool {
	if re.Op == syntax.OpBeginLine || re.Op == syntax.OpEndLine {
		return true
	}
	return slices.ContainsFunc(re.Sub, lineAnchored)
}

// AsksLineEnd reports a pattern that holds a line end as such (a literal
// newline, or a class of it alone), which a search a line at a time never
// finds; ok is false when RE2 cannot read the pattern to tell.
func AsksLineEnd(pattern string) (asks, ok bool) {
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return false, false
	}
	return asksLineEnd(tree), true
}

func asksLineEnd(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		return slices.Contains(re.Rune, '\n')
	case syntax.OpCharClass:
		return len(re.Rune) == 2 && re.Rune[0] == '\n' && re.Rune[1] == '\n'
	}
	return slices.ContainsFunc(re.Sub, asksLineEnd)
}

// looksBack reports a regexp with an assertion about what precedes a
// place: a line's or the text's start, or a word boundary.
func looksBack(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpBeginText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	return slices.ContainsFunc(re.Sub, looksBack)
}

// spans returns a function that gives buf's matches one at a time (start
// and end; -1 when there are none left), for eachSpan: leftmost first, not
// overlapping, and an empty match next to the one before it is none.
func (m *Matcher) spans(buf []byte) func() (int, int, error) {
	if m.es != nil && m.gate != nil && !m.gate.Match(buf) {
		return func() (int, int, error) { return -1, -1, nil }
	}
	if m.es != nil {
		var mt *regexp2.Match
		var err error
		re := m.esFor(len(buf))
		s := string(buf)
		first := true
		return func() (int, int, error) {
			if first {
				mt, err = re.FindStringMatch(s)
				first = false
			} else if mt != nil {
				mt, err = re.FindNextMatch(mt)
			}
			if err != nil {
				return -1, -1, err
			}
			if mt == nil {
				return -1, -1, nil
			}
			i, n := mt.ByteRange()
			return i, i + n, nil
		}
	}
	if !m.looksBack {
		// One match at a time, each search resumed where the last match
		// ended: nothing in the pattern looks at what comes before it,
		// so a slice of buf reads as buf does there.
		pos, prevEnd := 0, -1
		return func() (int, int, error) {
			for pos <= len(buf) {
				loc := m.re.FindIndex(buf[pos:])
				if loc == nil {
					break
				}
				start, end := pos+loc[0], pos+loc[1]
				if end > start {
					pos = end
				} else {
					_, w := utf8.DecodeRune(buf[end:])
					pos = end + max(w, 1)
					if start == prevEnd {
						continue // empty, next to the match before it: none
					}
				}
				prevEnd = end
				return start, end, nil
			}
			pos = len(buf) + 1
			return -1, -1, nil
		}
	}
	// All of them at once: RE2 searches a slice as a text of its own, so
	// a search resumed inside buf would see a line start (^, \b) where
	// the match before it ended.
	var locs [][]int
	if m.group > 0 {
		locs = m.re.FindAllSubmatchIndex(buf, -1)
	} else {
		locs = m.re.FindAllIndex(buf, -1)
	}
	return func() (int, int, error) {
		if len(locs) == 0 {
			return -1, -1, nil
		}
		loc := locs[0]
		locs = locs[1:]
		// -w's match is its group, not the borders around it.
		return loc[2*m.group], loc[2*m.group+1], nil
	}
}
