package tokens

import "strings"

// StripANSI removes ANSI escape sequences from s, as Mastra does before
// showing sandbox output to a model. It removes:
//
//   - OSC sequences (hyperlinks, window titles): ESC ] followed by anything
//     up to and including the first BEL, ESC \ or U+009C;
//   - CSI-like sequences: ESC or U+009B, any run of the characters [ ] ( ) # ; ?,
//     optional numeric parameters (groups of up to four digits separated by ;
//     or :), and one final character from 0-9, A-P, R-T, Z, c, f-n, q-u, y,
//     =, >, < or ~.
//
// The matches are exactly those of the JavaScript regular expression it
// replaces (leftmost, with that expression's backtracking preferences), but
// without a regular expression engine. An ESC ] with no terminator anywhere
// after it is treated as a CSI-like sequence (']' being one of its leading
// characters).
func StripANSI(s string) string {
	i := nextIntroducer(s, 0)
	if i < 0 {
		return s
	}
	var sb strings.Builder
	sb.Grow(len(s))
	m := ansiMatcher{s: s, noOSCEndFrom: len(s) + 1}
	done := 0 // s[:done] has been dealt with
	for i >= 0 {
		if end := m.match(i); end > 0 {
			sb.WriteString(s[done:i])
			done = end
			i = nextIntroducer(s, end)
		} else {
			i = nextIntroducer(s, i+1)
		}
	}
	sb.WriteString(s[done:])
	return sb.String()
}

// nextIntroducer returns the index of the first ESC or U+009B (C2 9B in
// UTF-8) at or after from, or -1. Neither byte 1B nor C2 can occur inside
// another UTF-8 sequence, so this never lands mid-character.
func nextIntroducer(s string, from int) int {
	for j := from; j < len(s); j++ {
		switch s[j] {
		case 0x1B:
			return j
		case 0xC2:
			if j+1 < len(s) && s[j+1] == 0x9B {
				return j
			}
		}
	}
	return -1
}

type ansiMatcher struct {
	s string
	// noOSCEndFrom is an index from which no OSC terminator is known to
	// exist; it saves rescanning for every unterminated ESC ].
	noOSCEndFrom int
}

// match returns the end of the escape sequence that starts at s[i] (an
// introducer), or -1 if none does.
func (m *ansiMatcher) match(i int) int {
	s := m.s
	p := i + 1 // after ESC
	if s[i] == 0xC2 {
		p = i + 2 // after U+009B
	} else if p < len(s) && s[p] == ']' {
		if end := m.oscEnd(p + 1); end >= 0 {
			return end
		}
	}

	// The CSI-like alternative. A leading character is never a digit or a
	// final character, so the greedy run of them can only succeed whole.
	for p < len(s) && isCSILead(s[p]) {
		p++
	}
	d := digitRun(s, p)
	if d == 0 {
		// No parameters: only a final character can follow.
		if p < len(s) && isCSIFinal(s[p]) {
			return p + 1
		}
		return -1
	}
	// Parameters start with up to four digits. If nothing longer works,
	// the last of those digits serves as the final character (digits are
	// final characters), which ends the match right after them.
	if end := paramsEnd(s, p+d); end >= 0 {
		return end
	}
	return p + d
}

// paramsEnd matches (?:[;:]\d{0,4})* followed by a final character, greedily
// and with backtracking, starting at s[p]. It returns the end of the match or
// -1. Backtracking collapses to a simple rule: if the greedy path fails, the
// match ends after the digits of the last parameter that had any (its last
// digit becoming the final character).
func paramsEnd(s string, p int) int {
	fallback := -1
	for p < len(s) && (s[p] == ';' || s[p] == ':') {
		d := digitRun(s, p+1)
		p += 1 + d
		if d > 0 {
			fallback = p
		}
	}
	if p < len(s) && isCSIFinal(s[p]) {
		return p + 1
	}
	return fallback
}

// oscEnd returns the end of the first OSC terminator (BEL, ESC \ or U+009C)
// at or after s[from], or -1.
func (m *ansiMatcher) oscEnd(from int) int {
	s := m.s
	if from >= m.noOSCEndFrom {
		return -1
	}
	for j := from; j < len(s); j++ {
		switch s[j] {
		case 0x07:
			return j + 1
		case 0x1B:
			if j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
		case 0xC2:
			if j+1 < len(s) && s[j+1] == 0x9C {
				return j + 2
			}
		}
	}
	m.noOSCEndFrom = from
	return -1
}

// digitRun returns how many ASCII digits, at most four, start at s[p].
func digitRun(s string, p int) int {
	n := 0
	for n < 4 && p+n < len(s) && s[p+n] >= '0' && s[p+n] <= '9' {
		n++
	}
	return n
}

// isCSILead reports whether c is one of [ ] ( ) # ; ?.
func isCSILead(c byte) bool {
	switch c {
	case '[', ']', '(', ')', '#', ';', '?':
		return true
	}
	return false
}

// isCSIFinal reports whether c can end a CSI-like sequence.
func isCSIFinal(c byte) bool {
	switch {
	case c >= '0' && c <= '9', c >= 'A' && c <= 'P', c >= 'R' && c <= 'T',
		c >= 'f' && c <= 'n', c >= 'q' && c <= 'u':
		return true
	}
	switch c {
	case 'Z', 'c', 'y', '=', '>', '<', '~':
		return true
	}
	return false
}
