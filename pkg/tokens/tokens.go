package tokens

import (
	"math"
	"strings"
	"unicode/utf8"

	"github.com/wstools/ws/pkg/js"
)

// End is the end position to pass to [Slice] to mean "up to the end of the
// text", like omitting the second argument of JavaScript's Array.slice.
const End = math.MaxInt

// Bits of byteClass.
const (
	bitSpace = 1 << iota // ASCII character in JavaScript's \s class
	bitPunct             // one of tokenx's 30 split characters
	bitDigit             // ASCII digit
	bitHigh              // byte of a multi-byte (or invalid) UTF-8 sequence
)

// byteClass classifies every byte for the segment scanner.
var byteClass = func() (t [256]uint8) {
	for _, c := range "\t\n\v\f\r " {
		t[c] |= bitSpace
	}
	for _, c := range ".,!?;(){}[]<>:/\\|@#$%^&*+=`~_-" {
		t[c] |= bitPunct
	}
	for c := '0'; c <= '9'; c++ {
		t[c] |= bitDigit
	}
	for c := utf8.RuneSelf; c < 256; c++ {
		t[c] |= bitHigh
	}
	return t
}()

// Language hints. A segment containing a langDense character is estimated
// at 3 code units per token; failing that, one containing a langPolish
// character at 3.5; otherwise at 6.
const (
	langDense  = 1 << iota // German umlauts and ß, French and Spanish accents
	langPolish             // Polish and Czech letters
)

// langTable holds the language hints of U+00C0 to U+017F. The sets are those
// the case-insensitive tokenx patterns match, upper case included (and, for
// ÿ and œ, the upper-case forms Ÿ U+0178 and Œ U+0152 that sit outside
// Latin-1). The only other hinted character is ẞ U+1E9E, handled in langOf.
var langTable = func() (t [0x180 - 0xC0]uint8) {
	for _, r := range "ÄÖÜßäöü" +
		"ÀÁÂÆÇÈÉÊËÍÎÏÑÓÔÙÚÛàáâæçèéêëíîïñóôùúûÿŒœŸ" {
		t[r-0xC0] |= langDense
	}
	for _, r := range "ÓÚÝóúýĄąĆćČčĎďĘęĚěŁłŃńŇňŘřŚśŠšŤťŮůŹźŻżŽž" {
		t[r-0xC0] |= langPolish
	}
	return t
}()

// langOf returns the language hint bits of a non-ASCII rune.
func langOf(r rune) uint8 {
	if r >= 0xC0 && r < 0x180 {
		return langTable[r-0xC0]
	}
	if r == 0x1E9E { // ẞ
		return langDense
	}
	return 0
}

// isCJK reports whether a BMP rune falls in one of tokenx's CJK ranges
// (Han, kana, Hangul, CJK symbols and full-width forms). Each such character
// costs a token of its own, and so does every other character of its segment.
func isCJK(r rune) bool {
	switch {
	case r < 0x1100:
		return false
	case r <= 0x11FF: // Hangul Jamo
		return true
	case r < 0x2E80:
		return false
	case r <= 0x2EFF: // CJK radicals supplement
		return true
	case r < 0x3000:
		return false
	case r <= 0x303F, // CJK symbols and punctuation
		r >= 0x30A0 && r <= 0x30FF, // katakana
		r >= 0x3130 && r <= 0x318F, // Hangul compatibility Jamo
		r >= 0x31C0 && r <= 0x31EF, // CJK strokes
		r >= 0x3200 && r <= 0x4DBF, // enclosed CJK, compatibility, extension A
		r >= 0x4E00 && r <= 0x9FFF, // CJK unified ideographs
		r >= 0xA960 && r <= 0xA97F, // Hangul Jamo extended A
		r >= 0xAC00 && r <= 0xD7FF, // Hangul syllables, Jamo extended B
		r >= 0xFF00 && r <= 0xFFEF: // half-width and full-width forms
		return true
	}
	return false
}

// nextSegment scans the segment that starts at s[i] (i < len(s)). Segments
// are what tokenx gets from splitting on /(\s+|[punct]+)/: maximal runs of
// whitespace, of punctuation, or of anything else. It returns the end of the
// segment, its token estimate and its length in UTF-16 code units (the length
// is only computed for segments that have tokens; whitespace has none).
func nextSegment(s string, i int) (end, tokens, units int) {
	switch cl := byteClass[s[i]]; {
	case cl&bitSpace != 0:
		return skipSpace(s, i+1), 0, 0
	case cl&bitPunct != 0:
		j := i + 1
		for j < len(s) && byteClass[s[j]]&bitPunct != 0 {
			j++
		}
		n := j - i
		if n <= 3 {
			return j, 1, n
		}
		return j, (n + 1) / 2, n
	case cl&bitHigh != 0:
		if r, size := utf8.DecodeRuneInString(s[i:]); js.IsSpace(r) {
			return skipSpace(s, i+size), 0, 0
		}
	}
	return wordSegment(s, i)
}

// skipSpace returns the end of the whitespace run that continues at s[i].
func skipSpace(s string, i int) int {
	for i < len(s) {
		cl := byteClass[s[i]]
		if cl&bitSpace != 0 {
			i++
			continue
		}
		if cl&bitHigh == 0 {
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !js.IsSpace(r) {
			break
		}
		i += size
	}
	return i
}

// wordSegment scans a run of characters that are neither whitespace nor
// punctuation, starting at s[i], and estimates its tokens.
func wordSegment(s string, i int) (end, tokens, units int) {
	var (
		j = i
		// all is the AND of the classes of the ASCII characters, and 0 once
		// a non-ASCII one is seen: its bitDigit says "only ASCII digits".
		all    uint8 = bitDigit
		cjk    bool
		lang   uint8
		fewerU int // bytes minus UTF-16 code units
		fewerP int // bytes minus code points
	)
	for j < len(s) {
		cl := byteClass[s[j]]
		if cl&(bitSpace|bitPunct|bitHigh) == 0 {
			all &= cl
			j++
			continue
		}
		if cl&bitHigh == 0 {
			break
		}
		r, size := utf8.DecodeRuneInString(s[j:])
		if js.IsSpace(r) {
			break
		}
		all = 0
		if size == 4 {
			// A supplementary character: two code units, one code point.
			fewerU += 2
			fewerP += 3
		} else {
			// An invalid byte decodes as U+FFFD with size 1.
			fewerU += size - 1
			fewerP += size - 1
			if isCJK(r) {
				cjk = true
			}
			lang |= langOf(r)
		}
		j += size
	}
	units = j - i - fewerU
	switch {
	case cjk:
		tokens = j - i - fewerP
	case all&bitDigit != 0, units <= 3:
		tokens = 1
	case lang&langDense != 0:
		tokens = (units + 2) / 3 // ceil(units / 3)
	case lang&langPolish != 0:
		tokens = (2*units + 6) / 7 // ceil(units / 3.5)
	default:
		tokens = (units + 5) / 6 // ceil(units / 6)
	}
	return j, tokens, units
}

// Estimate returns tokenx 1.3.0's estimate of the number of tokens in s
// (its estimateTokenCount). Whitespace is free; a run of CJK text costs a
// token per character; a number or any run of at most three code units costs
// one; a punctuation run costs one token per two characters; any other word
// costs one token per six code units, or per three (German, French, Spanish
// accents) or 3.5 (Polish and Czech letters).
func Estimate(s string) int {
	n, _ := estimate(s, math.MaxInt)
	return n
}

// Exceeds reports whether Estimate(s) > limit, reading s only until the
// estimate passes limit: no segment takes tokens away, so a text whose
// start is over the limit is over it whole.
func Exceeds(s string, limit int) bool {
	if limit < 0 {
		return true // no text is estimated below 0
	}
	_, over := estimate(s, limit)
	return over
}

// estimate sums the segments' tokens, stopping once the sum passes limit.
func estimate(s string, limit int) (total int, over bool) {
	for i := 0; i < len(s); {
		var n int
		i, n, _ = nextSegment(s, i)
		if total += n; total > limit {
			return total, true
		}
	}
	return total, false
}

// Slice returns the part of s between the token positions start (inclusive)
// and end (exclusive), as tokenx's sliceByTokens followed by Mastra's
// surrogate repair does. The positions work like those of JavaScript's
// Array.slice: a negative position counts back from [Estimate](s) (and stops
// at 0), and an end of [End] means the end of the text. The result is empty
// if start is not before end.
//
// Segments that lie wholly inside the range are kept whole, and whitespace
// is kept when its position is inside the range. A segment that straddles a
// bound is cut in proportion to its length in UTF-16 code units, so a cut can
// fall inside a word. Apart from a U+FFFD standing in for half of a split
// surrogate pair, the result is a substring of s.
func Slice(s string, start, end int) string {
	return slice(s, start, end, -1)
}

// HeadTokens returns the first n tokens of s, or "" if n <= 0.
// It is Slice(s, 0, n).
func HeadTokens(s string, n int) string {
	if n <= 0 {
		return ""
	}
	return slice(s, 0, n, -1)
}

// TailTokens returns the last n tokens of s, or "" if n <= 0.
// It is Slice(s, -n, End).
func TailTokens(s string, n int) string {
	if n <= 0 {
		return ""
	}
	return slice(s, -n, End, -1)
}

// slice implements Slice. total is Estimate(s) if the caller already knows
// it, or -1.
func slice(s string, start, end, total int) string {
	if s == "" {
		return ""
	}
	if start < 0 || end < 0 {
		if total < 0 {
			total = Estimate(s)
		}
		if start < 0 {
			start = max(0, total+start)
		}
		if end < 0 {
			end = max(0, total+end)
		}
	}
	if start >= end {
		return ""
	}

	// The kept segments are contiguous: only the first can be cut at its
	// start and only the last at its end. So the result is s[lo:hi], plus a
	// U+FFFD on either side when a cut splits a surrogate pair.
	lo, hi := -1, -1
	var fixLo, fixHi bool
	pos := 0
	for i := 0; i < len(s) && pos < end; {
		j, n, units := nextSegment(s, i)
		switch {
		case n == 0:
			if pos >= start {
				if lo < 0 {
					lo = i
				}
				hi, fixHi = j, false
			}
		case pos+n > start:
			a := max(0, start-pos)
			b := min(n, end-pos)
			segLo, segHi := i, j
			var cutLo, cutHi bool
			if a != 0 || b != n {
				// Same floating-point arithmetic as tokenx, so that the
				// rounding matches exactly.
				u0 := int(math.Floor(float64(a) / float64(n) * float64(units)))
				u1 := int(math.Ceil(float64(b) / float64(n) * float64(units)))
				var before, after int
				before, after, cutLo = unitOffset(s, i, u0)
				segLo = before
				if cutLo {
					segLo = after
				}
				before, _, cutHi = unitOffset(s, i, u1)
				segHi = before
			}
			if lo < 0 {
				lo, fixLo = segLo, cutLo
			}
			hi, fixHi = segHi, cutHi
		}
		pos += n
		i = j
	}
	if lo < 0 {
		return ""
	}
	if !fixLo && !fixHi {
		return s[lo:hi]
	}
	var sb strings.Builder
	sb.Grow(hi - lo + 2*utf8.UTFMax)
	if fixLo {
		sb.WriteRune(utf8.RuneError)
	}
	sb.WriteString(s[lo:hi])
	if fixHi {
		sb.WriteRune(utf8.RuneError)
	}
	return sb.String()
}

// unitOffset finds the byte offset of UTF-16 offset u counted from s[i].
// Normally before == after is that offset and split is false. If u falls
// between the two halves of a surrogate pair, split is true and before and
// after are the offsets of the start and end of that character.
func unitOffset(s string, i, u int) (before, after int, split bool) {
	for u > 0 {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			u--
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		if size == 4 {
			if u == 1 {
				return i, i + size, true
			}
			u -= 2
		} else {
			u--
		}
		i += size
	}
	return i, i, false
}
