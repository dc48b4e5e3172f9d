package grep

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"time"

	"github.com/dlclark/regexp2/v2"
	"github.com/wstools/ws/pkg/errs"
)

// Matcher finds the first match of a line: Go's RE2 engine, or an
// ECMAScript engine for patterns that need lookaround or backreferences.
type Matcher struct {
	re  *regexp.Regexp  // multi-line mode, for whole-buffer scanning
	re1 *regexp.Regexp  // single-line, for one line
	es  *regexp2.Regexp // the fallback
	// literal is the whole pattern when it is a plain string: searched
	// with bytes.Index, without the regexp machine.
	literal []byte
	// required is a string every match contains: a file without it is
	// passed over after one fast search.
	required []byte
}

// Compile makes the matcher of a pattern: Go RE2 first, the ECMAScript
// engine when RE2 refuses the pattern (lookaround, backreferences).
func Compile(pattern string, caseSensitive bool) (*Matcher, error) {
	flags := ""
	if !caseSensitive {
		flags = "i"
	}
	re1, err := regexp.Compile(prefixFlags(flags, pattern))
	if err == nil {
		m := &Matcher{re: regexp.MustCompile(prefixFlags(flags+"m", pattern)), re1: re1}
		if caseSensitive {
			if lit, complete := re1.LiteralPrefix(); complete && lit != "" {
				m.literal = []byte(lit)
			}
			m.required = requiredLiteral(pattern)
		}
		return m, nil
	}
	opts := regexp2.ECMAScript
	if !caseSensitive {
		opts |= regexp2.IgnoreCase
	}
	es, err2 := regexp2.Compile(pattern, opts)
	if err2 != nil {
		return nil, errs.InvalidRegex(err.Error())
	}
	es.MatchTimeout = 5 * time.Second
	return &Matcher{es: es}, nil
}

func prefixFlags(flags, pattern string) string {
	if flags == "" {
		return pattern
	}
	return "(?" + flags + ")" + pattern
}

// requiredLiteral finds a string of at least three bytes that every match
// of pattern must contain (the longest literal of a top-level
// concatenation), or nil.
func requiredLiteral(pattern string) []byte {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	for re.Op == syntax.OpCapture && len(re.Sub) == 1 {
		re = re.Sub[0]
	}
	var best []rune
	consider := func(r *syntax.Regexp) {
		if r.Op == syntax.OpLiteral && r.Flags&syntax.FoldCase == 0 && len(r.Rune) > len(best) {
			best = r.Rune
		}
	}
	switch re.Op {
	case syntax.OpLiteral:
		consider(re)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			for sub.Op == syntax.OpCapture && len(sub.Sub) == 1 {
				sub = sub.Sub[0]
			}
			consider(sub)
		}
	}
	if b := []byte(string(best)); len(b) >= 3 {
		return b
	}
	return nil
}

// FirstInLine returns the byte offset of the first match in line, or -1.
func (m *Matcher) FirstInLine(line []byte) int {
	if m.es != nil {
		mt, err := m.es.FindStringMatch(string(line))
		if err != nil || mt == nil {
			return -1
		}
		i, _ := mt.ByteRange()
		return i
	}
	loc := m.re1.FindIndex(line)
	if loc == nil {
		return -1
	}
	return loc[0]
}

// Hit is a matching line of one file.
type Hit struct {
	Line int // 0-based
	Col  int // byte offset of the first match in the line
}

// Scan finds the first match of each line of buf, at most limit
// lines (0: no limit). RE2 scans the whole buffer at once (a file without
// a match costs one search), counting newlines only up to each match; a
// match that runs past its line's end is checked against that line alone.
func (m *Matcher) Scan(buf []byte, limit int) []Hit {
	var hits []Hit
	if m.es != nil {
		li := IndexLines(buf)
		for i := 0; i < li.Count(); i++ {
			if c := m.FirstInLine(li.Get(buf, i)); c >= 0 {
				hits = append(hits, Hit{i, c})
				if limit > 0 && len(hits) >= limit {
					break
				}
			}
		}
		return hits
	}
	if len(m.required) > 0 && !bytes.Contains(buf, m.required) {
		return nil
	}
	pos, line := 0, 0 // pos starts line (0-based)
	for pos < len(buf) {
		var start, end int
		if m.literal != nil {
			i := bytes.Index(buf[pos:], m.literal)
			if i < 0 {
				break
			}
			start, end = pos+i, pos+i+len(m.literal)
		} else {
			loc := m.re.FindIndex(buf[pos:])
			if loc == nil {
				break
			}
			start, end = pos+loc[0], pos+loc[1]
		}
		ls := pos
		if k := bytes.LastIndexByte(buf[pos:start], '\n'); k >= 0 {
			line += bytes.Count(buf[pos:start], []byte{'\n'})
			ls = pos + k + 1
		}
		le := len(buf)
		if k := bytes.IndexByte(buf[start:], '\n'); k >= 0 {
			le = start + k
		}
		if start == len(buf) && ls == start {
			break // an empty match after the final newline: no line there
		}
		col := start - ls
		if end > le {
			col = m.FirstInLine(buf[ls:le])
		}
		if col >= 0 {
			hits = append(hits, Hit{line, col})
			if limit > 0 && len(hits) >= limit {
				break
			}
		}
		if le >= len(buf) {
			break
		}
		pos, line = le+1, line+1
	}
	return hits
}

// MatchLen is the byte length of the match found at col (at least 0).
func (m *Matcher) MatchLen(line []byte, col int) int {
	if m.re1 != nil {
		if loc := m.re1.FindIndex(line[col:]); loc != nil && loc[0] == 0 {
			return loc[1]
		}
		return 0
	}
	if mt, err := m.es.FindStringMatch(string(line)); err == nil && mt != nil {
		_, n := mt.ByteRange()
		return n
	}
	return 0
}
