package gitignore

import "strings"

// Results of dowild, with git's values and meanings.
const (
	wmMatch           = 0
	wmNoMatch         = 1
	wmAbortAll        = -1 // no match, and no longer text can match either
	wmAbortToStarStar = -2 // no match until an enclosing "**" consumes a '/'
)

// isGlobSpecial reports the characters git's is_glob_special knows.
func isGlobSpecial(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}

// at returns s[i], or 0 past the end of s: the C string's terminator.
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// wildmatch reports whether text matches pattern with git's wildmatch
// (wildmatch.c, case sensitive). With pathname (WM_PATHNAME) '*', '?' and
// classes never match '/', and "**" between slashes spans directories;
// without it '*' matches any string, '/' included.
func wildmatch(pattern, text string, pathname bool) bool {
	return dowild(pattern, text, pathname) == wmMatch
}

// dowild is a transcription of git's dowild(). Indices stand for C
// pointers, and the start of pat is the start of the pattern of this
// call, as in C: it matters for a "**" at the very start, which is special
// even when the caller sliced a literal prefix off a longer pattern.
func dowild(pat, text string, pathname bool) int {
	p, t := 0, 0
	for ; p < len(pat); p, t = p+1, t+1 {
		pc := pat[p]
		var tc byte
		if t < len(text) {
			tc = text[t]
		} else if pc != '*' {
			return wmAbortAll
		}
		switch pc {
		case '\\':
			// Literal match with the next character; a trailing
			// backslash compares 0 with a real character and fails.
			p++
			if at(pat, p) != tc {
				return wmNoMatch
			}
		default:
			if tc != pc {
				return wmNoMatch
			}
		case '?':
			if pathname && tc == '/' {
				return wmNoMatch
			}
		case '*':
			var matchSlash bool
			p++
			if at(pat, p) == '*' {
				prev := p - 2
				for p++; at(pat, p) == '*'; p++ {
				}
				switch {
				case !pathname:
					matchSlash = true
				case (prev < 0 || pat[prev] == '/') &&
					(p == len(pat) || pat[p] == '/' || (pat[p] == '\\' && at(pat, p+1) == '/')):
					// "**/" may match no directory at all: try the rest
					// of the pattern right here first.
					if p < len(pat) && pat[p] == '/' && dowild(pat[p+1:], text[t:], pathname) == wmMatch {
						return wmMatch
					}
					matchSlash = true
				default:
					matchSlash = false
				}
			} else {
				matchSlash = !pathname
			}
			if p == len(pat) {
				// A trailing "**" matches everything, a trailing '*'
				// only when no slash follows.
				if !matchSlash && strings.IndexByte(text[t:], '/') >= 0 {
					return wmNoMatch
				}
				return wmMatch
			}
			if !matchSlash && pat[p] == '/' {
				// One '*' before a slash eats the rest of this
				// directory name; the loop step consumes both slashes.
				slash := strings.IndexByte(text[t:], '/')
				if slash < 0 {
					return wmNoMatch
				}
				t += slash
				continue
			}
			for tc != 0 {
				if c := pat[p]; !isGlobSpecial(c) {
					// Skip ahead to the next occurrence of the literal
					// that follows the star.
					for {
						tc = at(text, t)
						if tc == 0 || tc == c || (!matchSlash && tc == '/') {
							break
						}
						t++
					}
					if tc != c {
						if matchSlash {
							return wmAbortAll
						}
						return wmAbortToStarStar
					}
				}
				if m := dowild(pat[p:], text[t:], pathname); m != wmNoMatch {
					if !matchSlash || m != wmAbortToStarStar {
						return m
					}
				} else if !matchSlash && tc == '/' {
					return wmAbortToStarStar
				}
				t++
				tc = at(text, t)
			}
			return wmAbortAll
		case '[':
			p++
			pc = at(pat, p)
			if pc == '^' {
				pc = '!'
			}
			negated := pc == '!'
			if negated {
				p++
				pc = at(pat, p)
			}
			var prevc byte
			matched := false
			for {
				switch {
				case pc == 0:
					return wmAbortAll
				case pc == '\\':
					p++
					pc = at(pat, p)
					if pc == 0 {
						return wmAbortAll
					}
					if tc == pc {
						matched = true
					}
				case pc == '-' && prevc != 0 && at(pat, p+1) != 0 && at(pat, p+1) != ']':
					p++
					pc = pat[p]
					if pc == '\\' {
						p++
						pc = at(pat, p)
						if pc == 0 {
							return wmAbortAll
						}
					}
					if tc <= pc && tc >= prevc {
						matched = true
					}
					pc = 0 // no range may start at the end of this one
				case pc == '[' && at(pat, p+1) == ':':
					p += 2
					s := p
					for p < len(pat) && pat[p] != ']' {
						p++
					}
					if p == len(pat) {
						return wmAbortAll
					}
					if n := p - s - 1; n < 0 || pat[p-1] != ':' {
						// No ":]": the '[' is an ordinary member.
						p = s - 2
						pc = '['
						if tc == pc {
							matched = true
						}
					} else {
						ok, known := inClass(pat[s:s+n], tc)
						if !known {
							return wmAbortAll
						}
						if ok {
							matched = true
						}
						pc = 0
					}
				default:
					if tc == pc {
						matched = true
					}
				}
				prevc = pc
				p++
				pc = at(pat, p)
				if pc == ']' {
					break
				}
			}
			if matched == negated || (pathname && tc == '/') {
				return wmNoMatch
			}
		}
	}
	if t < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

// inClass reports whether c is in the POSIX class name, with git's ASCII
// ctype (bytes from 0x80 are in no class), and whether name is a class.
func inClass(name string, c byte) (in, known bool) {
	lower := c >= 'a' && c <= 'z'
	upper := c >= 'A' && c <= 'Z'
	digit := c >= '0' && c <= '9'
	switch name {
	case "alnum":
		return lower || upper || digit, true
	case "alpha":
		return lower || upper, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return digit, true
	case "graph":
		return c > 0x20 && c < 0x7f, true
	case "lower":
		return lower, true
	case "print":
		return c >= 0x20 && c < 0x7f, true
	case "punct":
		return c > 0x20 && c < 0x7f && !lower && !upper && !digit, true
	case "space":
		// git's own isspace: no '\v' nor '\f'.
		return c == ' ' || c == '\t' || c == '\n' || c == '\r', true
	case "upper":
		return upper, true
	case "xdigit":
		return digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'), true
	}
	return false, false
}
