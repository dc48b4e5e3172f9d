package patch

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Level is how loosely a hunk's lines had to be compared with the file's
// to be found: the strictest of the levels below at which they match the
// place where the hunk went (the package documentation says which places
// count).
type Level string

// The leniency levels, from the strictest.
const (
	// LevelExact compares lines as they are (apart from a "\r" before the
	// line ending and a byte-order mark).
	LevelExact Level = ""
	// LevelTrailingWhitespace ignores whitespace at the end of lines.
	LevelTrailingWhitespace Level = "trailing-whitespace"
	// LevelWhitespace ignores whitespace at both ends of lines.
	LevelWhitespace Level = "whitespace"
	// LevelUnicode also reads typographic dashes, quotes and spaces as their
	// ASCII counterparts (U+2010..U+2015 and U+2212 as '-', U+2018..U+201B as
	// '\'', U+201C..U+201F as '"', U+00A0, U+2002..U+200A, U+202F, U+205F and
	// U+3000 as ' ').
	LevelUnicode Level = "unicode"
)

const nLevels = 4

var levels = [nLevels]Level{LevelExact, LevelTrailingWhitespace, LevelWhitespace, LevelUnicode}

// Describe names what l ignores, as a message says it: "trailing
// whitespace", "whitespace at both ends of lines", "whitespace and Unicode
// punctuation" ("nothing" for LevelExact).
func (l Level) Describe() string {
	switch l {
	case LevelTrailingWhitespace:
		return "trailing whitespace"
	case LevelWhitespace:
		return "whitespace at both ends of lines"
	case LevelUnicode:
		return "whitespace and Unicode punctuation"
	}
	return "nothing"
}

const bom = "\uFEFF"

// normalize returns s as level lv compares it.
func normalize(s string, lv int) string {
	s = strings.TrimPrefix(strings.TrimSuffix(s, "\r"), bom)
	switch lv {
	case 1:
		return strings.TrimRightFunc(s, unicode.IsSpace)
	case 2:
		return strings.TrimSpace(s)
	case 3:
		return foldPunct(strings.TrimSpace(s))
	}
	return s
}

func foldPunct(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
			return '-'
		case '\u2018', '\u2019', '\u201A', '\u201B':
			return '\''
		case '\u201C', '\u201D', '\u201E', '\u201F':
			return '"'
		case '\u00A0', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', '\u2007',
			'\u2008', '\u2009', '\u200A', '\u202F', '\u205F', '\u3000':
			return ' '
		}
		return r
	}, s)
}

// fileText is a file cut into lines.
type fileText struct {
	text []string // each line without its line ending
	term []string // each line's ending: "\n", "\r\n", or "" for a last line without one
	norm [nLevels][]string
}

func splitFile(b []byte) *fileText {
	f := &fileText{}
	s := string(b)
	for s != "" {
		k := strings.IndexByte(s, '\n')
		if k < 0 {
			f.text, f.term = append(f.text, s), append(f.term, "")
			break
		}
		line, t := s[:k], "\n"
		if strings.HasSuffix(line, "\r") {
			line, t = line[:len(line)-1], "\r\n"
		}
		f.text, f.term = append(f.text, line), append(f.term, t)
		s = s[k+1:]
	}
	return f
}

// eol returns the file's usual line ending, or "" when it has none.
func (f *fileText) eol() string {
	var lf, crlf int
	for _, t := range f.term {
		switch t {
		case "\n":
			lf++
		case "\r\n":
			crlf++
		}
	}
	switch {
	case lf == 0 && crlf == 0:
		return ""
	case crlf > lf:
		return "\r\n"
	case lf > crlf:
		return "\n"
	}
	for _, t := range f.term {
		if t != "" {
			return t
		}
	}
	return "\n"
}

// head is the first n lines of f, as a file of their own.
func (f *fileText) head(n int) *fileText {
	h := &fileText{text: f.text[:n], term: f.term[:n]}
	for lv := range nLevels {
		h.norm[lv] = f.lines(lv)[:n]
	}
	return h
}

func (f *fileText) lines(lv int) []string {
	if f.norm[lv] == nil {
		n := make([]string, len(f.text))
		for i, s := range f.text {
			n[i] = normalize(s, lv)
		}
		f.norm[lv] = n
	}
	return f.norm[lv]
}

// elem is one thing a hunk looks for: an @@ anchor line, or its old lines.
type elem struct {
	raw    []string
	anchor bool
	norm   [nLevels][]string
	starts [nLevels][]int // every line where it matches, computed on demand
	done   [nLevels]bool
}

func newElem(raw []string, anchor bool) *elem {
	e := &elem{raw: raw, anchor: anchor}
	for lv := range nLevels {
		e.norm[lv] = make([]string, len(raw))
		for i, s := range raw {
			e.norm[lv][i] = normalize(s, lv)
		}
	}
	return e
}

// matchStarts returns every 0-based line of f where e matches at level lv.
// At the loosest level, an anchor that is no whole line of the file matches
// the lines it begins, up to a word's end (see anchorPrefixStarts).
func (f *fileText) matchStarts(e *elem, lv int) []int {
	if e.done[lv] {
		return e.starts[lv]
	}
	lines, pat := f.lines(lv), e.norm[lv]
	var out []int
	for p := 0; p+len(pat) <= len(lines); p++ {
		ok := true
		for k, s := range pat {
			if lines[p+k] != s {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, p)
		}
	}
	if out == nil && e.anchor && lv == nLevels-1 {
		out = anchorPrefixStarts(lines, pat[0])
	}
	e.starts[lv], e.done[lv] = out, true
	return out
}

// anchorPrefixStarts returns the lines that begin with the anchor a where
// a word ends: "@@ def parse" finds "def parse(self, text):" and "@@ func
// (p *Parser) Next" finds "func (p *Parser) Next() (Token, error) {", but not
// "def parser():" (unless the anchor is longAnchor bytes or more). Models
// often write an anchor so; Codex, which compares
// whole lines, does not find it. An anchor without a letter or digit is
// only ever a whole line. Both sides are as the loosest level has them.
func anchorPrefixStarts(lines []string, a string) []int {
	if strings.IndexFunc(a, isWordRune) < 0 {
		return nil
	}
	var out []int
	for p, l := range lines {
		if len(l) > len(a) && strings.HasPrefix(l, a) {
			next, _ := utf8.DecodeRuneInString(l[len(a):])
			last, _ := utf8.DecodeLastRuneInString(a)
			if !isWordRune(next) || !isWordRune(last) || len(a) >= longAnchor {
				out = append(out, p)
			}
		}
	}
	return out
}

// longAnchor is the length from which an anchor may begin a line mid-word:
// git cuts the function names of its hunk headers at 80 bytes, wherever
// that falls, and a prefix so long is not a shorter name's by chance.
const longAnchor = 40

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// occurrences returns where e matches at or after line from, each with the
// strictest level at which it matches there, by the rule edit_file's
// matcher follows (see package editmatch): the exact matches when there are
// any (a looser match elsewhere is no rival), else every match at any
// looser level, so that two places that each need some leniency are both
// candidates however differently loose. With atEnd, only a match that ends
// the file counts.
func (f *fileText) occurrences(e *elem, from int, atEnd bool) []occurrence {
	var occ []occurrence
	seen := map[int]bool{}
	for lv := range nLevels {
		for _, p := range f.matchStarts(e, lv) {
			if p >= from && (!atEnd || p+len(e.raw) == len(f.text)) && !seen[p] {
				seen[p] = true
				occ = append(occ, occurrence{p, lv})
			}
		}
		if lv == 0 && len(occ) > 0 {
			return occ
		}
	}
	sort.Slice(occ, func(i, j int) bool { return occ[i].pos < occ[j].pos })
	return occ
}

// occurrence is a line where an elem matches, and the strictest level at
// which it does.
type occurrence struct{ pos, level int }

// nearest returns the first match of e at or after line from, by the rule
// of occurrences: the first exact match when there is one, else the first
// at any looser level.
func (f *fileText) nearest(e *elem, from int, atEnd bool) (int, int, bool) {
	if atEnd {
		p := len(f.text) - len(e.raw)
		for lv := range nLevels {
			s := f.matchStarts(e, lv)
			if k := sort.SearchInts(s, p); p >= from && k < len(s) && s[k] == p {
				return p, lv, true
			}
		}
		return 0, -1, false
	}
	if s := f.matchStarts(e, 0); sort.SearchInts(s, from) < len(s) {
		return s[sort.SearchInts(s, from)], 0, true
	}
	best, level := -1, -1
	for lv := 1; lv < nLevels; lv++ {
		s := f.matchStarts(e, lv)
		if k := sort.SearchInts(s, from); k < len(s) && (best < 0 || s[k] < best) {
			best, level = s[k], lv
		}
	}
	return best, level, best >= 0
}

// anyMatch returns the first match of e in [lo, hi) at any level, or -1.
func (f *fileText) anyMatch(e *elem, lo, hi int) int {
	best := -1
	for lv := range nLevels {
		for _, p := range f.matchStarts(e, lv) {
			if p >= lo && p < hi && (best < 0 || p < best) {
				best = p
				break
			}
		}
	}
	return best
}

// closest finds the region at or after line from that is most like e's
// lines: the start with the most lines equal at the loosest level. It
// returns that start and the offset of its first differing line, or ok false
// when no line of e is there, or when the region is not different at all.
func (f *fileText) closest(e *elem, from int) (start, diff int, ok bool) {
	lines, pat := f.lines(nLevels-1), e.norm[nLevels-1]
	best, bestScore := -1, 0
	for p := from; p < len(lines); p++ {
		score := 0
		for k, s := range pat {
			if p+k < len(lines) && lines[p+k] == s {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = p, score
		}
	}
	if best < 0 || bestScore == len(pat) {
		return 0, 0, false
	}
	for k, s := range pat {
		if best+k >= len(lines) || lines[best+k] != s {
			return best, k, true
		}
	}
	return 0, 0, false
}
