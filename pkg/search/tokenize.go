package search

import (
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// stopwords are Mastra's DEFAULT_STOPWORDS.
var stopwords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true, "by": true,
	"for": true, "from": true, "has": true, "he": true, "in": true, "is": true, "it": true, "its": true,
	"of": true, "on": true, "or": true, "that": true, "the": true, "to": true, "was": true, "were": true,
	"will": true, "with": true,
}

// minTokenUnits is the shortest token kept, in UTF-16 code units.
const minTokenUnits = 2

// Tokenize splits text into search terms exactly as Mastra's default
// tokenizer does: lower-case (JavaScript's toLowerCase), replace everything
// that is not a letter, a number, '_' or whitespace by a space, split on
// whitespace, and drop tokens shorter than two UTF-16 code units and the
// stopwords. A token is therefore a maximal run of letters, numbers and
// underscores, taken after lower-casing.
func Tokenize(text string) []string {
	return (*Tokenizer)(nil).Tokenize(text)
}

// eachToken calls f with every token of text, in order: the default
// pipeline in one pass, with the given stopwords and shortest length.
func eachToken(text string, stop map[string]bool, minLen float64, f func(string)) {
	var cur strings.Builder
	units := 0
	flush := func() {
		if cur.Len() == 0 {
			return
		}
		tok := cur.String()
		if float64(units) >= minLen && !stop[tok] {
			f(tok)
		}
		cur.Reset()
		units = 0
	}
	// Fast path for ASCII text, which is most of it.
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			switch {
			case 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_':
				cur.WriteByte(c)
				units++
			case 'A' <= c && c <= 'Z':
				cur.WriteByte(c + 'a' - 'A')
				units++
			default:
				flush()
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == 'İ':
			// Full lower-casing: U+0130 becomes "i" and a combining dot
			// above (U+0307), which is no letter, so the token ends there.
			cur.WriteByte('i')
			units++
			flush()
		case r == 'Σ':
			if finalSigma(text, i, size) {
				cur.WriteRune('ς')
			} else {
				cur.WriteRune('σ')
			}
			units++
		default:
			lr := unicode.ToLower(r)
			if r == utf8.RuneError && size == 1 {
				lr = r // an invalid byte decodes as U+FFFD, which is no letter
			}
			if unicode.IsLetter(lr) || unicode.IsNumber(lr) {
				cur.WriteRune(lr)
				units += utf16.RuneLen(lr)
			} else {
				flush()
			}
		}
		i += size
	}
	flush()
}

// finalSigma reports whether the capital sigma at text[i:i+size] lowers to
// the final form ς: preceded by a cased letter (case-ignorable characters
// in between allowed) and not followed by one (Unicode's Final_Sigma).
func finalSigma(text string, i, size int) bool {
	before := false
	for j := i; j > 0; {
		r, n := utf8.DecodeLastRuneInString(text[:j])
		j -= n
		if caseIgnorable(r) {
			continue
		}
		before = cased(r)
		break
	}
	if !before {
		return false
	}
	for j := i + size; j < len(text); {
		r, n := utf8.DecodeRuneInString(text[j:])
		j += n
		if caseIgnorable(r) {
			continue
		}
		return !cased(r)
	}
	return true
}

func cased(r rune) bool {
	return unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r) ||
		unicode.Is(unicode.Other_Lowercase, r) || unicode.Is(unicode.Other_Uppercase, r)
}

func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '·', 0x387, 0x5F4, 0x2018, 0x2019, 0x2024, 0x2027, 0xFE13, 0xFE52, 0xFE55, 0xFF07, 0xFF0E, 0xFF1A:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// LineRange is a 1-based, inclusive range of lines.
type LineRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// FindLineRange returns the first and last line of content (split on "\n")
// that hold one of the query terms, as Mastra's findLineRange does; ok is
// false when no line does.
func FindLineRange(content string, queryTerms []string) (r LineRange, ok bool) {
	return findLineRange(nil, content, queryTerms)
}

func findLineRange(t *Tokenizer, content string, queryTerms []string) (r LineRange, ok bool) {
	if len(queryTerms) == 0 {
		return r, false
	}
	terms := make(map[string]bool, len(queryTerms))
	for _, t := range queryTerms {
		terms[t] = true
	}
	line := 0
	for rest := content; ; {
		line++
		cur, next, more := strings.Cut(rest, "\n")
		hit := false
		t.each(cur, func(tok string) {
			if !hit && terms[tok] {
				hit = true
			}
		})
		if hit {
			if !ok {
				r.Start, ok = line, true
			}
			r.End = line
		}
		if !more {
			break
		}
		rest = next
	}
	return r, ok
}

// LowerJS lower-cases s as JavaScript's String.prototype.toLowerCase does
// (full case mapping: "İ" becomes "i̇", a capital sigma at the end of a word
// becomes "ς"), where Go's strings.ToLower uses the simple mapping.
func LowerJS(s string) string {
	var sb strings.Builder
	sb.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			sb.WriteByte(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			sb.WriteByte(s[i])
		case r == 'İ':
			sb.WriteString("i\u0307")
		case r == 'Σ':
			if finalSigma(s, i, size) {
				sb.WriteRune('ς')
			} else {
				sb.WriteRune('σ')
			}
		default:
			sb.WriteRune(unicode.ToLower(r))
		}
		i += size
	}
	return sb.String()
}
