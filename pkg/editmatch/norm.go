package editmatch

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Lines are compared through keys: the text with typographic punctuation
// and spaces folded to ASCII (fold), each character in canonical
// decomposition (NFD), and, depending on where the line sits in the block,
// its leading and trailing whitespace trimmed. Two lines with equal keys
// differ in formatting only. Every step maps one character to one non-empty
// string, so a key position always falls back on a character boundary of the
// original text (see keyMap), and ASCII letters, digits and most ASCII
// punctuation are kept as they are (see anchor).

// fold returns the ASCII stand-in of a typographic character, or "".
func fold(r rune) string {
	switch r {
	case '\u2018', '\u2019', '\u201A', '\u201B', '\u2032', '\u2035':
		return "'"
	case '\u201C', '\u201D', '\u201E', '\u201F', '\u2033', '\u2036':
		return "\""
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
		return "-"
	case '\u2026':
		return "..."
	case '\u00A0', '\u1680', '\u2000', '\u2001', '\u2002', '\u2003', '\u2004', '\u2005',
		'\u2006', '\u2007', '\u2008', '\u2009', '\u200A', '\u202F', '\u205F', '\u3000':
		return " "
	}
	return ""
}

// Key options.
const (
	trimLeft  = 1 << iota // drop leading whitespace
	trimRight             // drop trailing whitespace
	noNFD                 // fold only, no decomposition
	noFold                // decompose only, no folding
	trimBoth  = trimLeft | trimRight
)

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\r' || b == '\v' || b == '\f'
}

// trimSpace cuts ASCII whitespace off the ends of b as opts say.
func trimSpace(b []byte, opts int) []byte {
	if opts&trimLeft != 0 {
		i := 0
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		b = b[i:]
	}
	if opts&trimRight != 0 {
		j := len(b)
		for j > 0 && isSpace(b[j-1]) {
			j--
		}
		b = b[:j]
	}
	return b
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// key returns the key of text. When text is ASCII the result is a sub-slice
// of text; otherwise it is appended to buf[:0], so it is valid until buf is
// used again.
func key(buf, text []byte, opts int) []byte {
	text = trimSpace(text, opts)
	if isASCII(text) {
		return text
	}
	out := appendNorm(buf[:0], text, opts)
	return trimSpace(out, opts&trimBoth)
}

// appendNorm appends text with fold and NFD applied, character by
// character. A byte that is not valid UTF-8 stands for itself.
func appendNorm(dst, text []byte, opts int) []byte {
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(text[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, c)
		case opts&noFold == 0 && fold(r) != "":
			dst = append(dst, fold(r)...)
		case opts&noNFD == 0:
			dst = norm.NFD.Append(dst, text[i:i+size]...)
		default:
			dst = append(dst, text[i:i+size]...)
		}
		i += size
	}
	return dst
}

// seg ties the characters text[src0:src1] to key[k0:k1].
type seg struct{ src0, src1, k0, k1 int }

// keyMap returns the untrimmed key of text with, for each character, where
// it came from. Used for the lines where a match starts or ends inside the
// line.
func keyMap(text []byte) ([]byte, []seg) {
	k := make([]byte, 0, len(text)+8)
	segs := make([]seg, 0, len(text))
	for i := 0; i < len(text); {
		_, size := utf8.DecodeRune(text[i:])
		k0 := len(k)
		k = appendNorm(k, text[i:i+size], 0)
		segs = append(segs, seg{i, i + size, k0, len(k)})
		i += size
	}
	return k, segs
}

// srcStart maps a key offset where a match starts to the text offset, or
// -1 when it is not a character boundary or starts with a combining mark
// (the match would split a character).
func srcStart(k []byte, segs []seg, at int) int {
	if at == len(k) {
		if len(segs) == 0 {
			return 0
		}
		return segs[len(segs)-1].src1
	}
	i := segIndex(segs, at)
	if i < 0 || segs[i].k0 != at || startsWithMark(k[at:]) {
		return -1
	}
	return segs[i].src0
}

// srcEnd maps a key offset where a match ends to the text offset, or -1 when
// it is not a boundary or the next character is a combining mark.
func srcEnd(k []byte, segs []seg, at int) int {
	if at == 0 {
		return 0
	}
	i := segIndex(segs, at-1)
	if i < 0 || segs[i].k1 != at || startsWithMark(k[at:]) {
		return -1
	}
	return segs[i].src1
}

// segIndex finds the segment holding key byte at.
func segIndex(segs []seg, at int) int {
	lo, hi := 0, len(segs)
	for lo < hi {
		mid := (lo + hi) / 2
		switch {
		case segs[mid].k1 <= at:
			lo = mid + 1
		case segs[mid].k0 > at:
			hi = mid
		default:
			return mid
		}
	}
	return -1
}

func startsWithMark(b []byte) bool {
	if len(b) == 0 || b[0] < utf8.RuneSelf {
		return false
	}
	r, _ := utf8.DecodeRune(b)
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc)
}

// indentOf returns the indentation of a line as spaces and tabs, a
// typographic space (NBSP, thin space…) counting as a space, and its
// length in bytes.
func indentOf(b []byte) ([]byte, int) {
	n := len(leadingSpace(b))
	if n == len(b) || b[n] < utf8.RuneSelf {
		return b[:n], n
	}
	ind := append([]byte(nil), b[:n]...)
	for n < len(b) {
		c := b[n]
		if c == ' ' || c == '\t' {
			ind = append(ind, c)
			n++
			continue
		}
		r, size := utf8.DecodeRune(b[n:])
		if c < utf8.RuneSelf || fold(r) != " " {
			break
		}
		ind = append(ind, ' ')
		n += size
	}
	return ind, n
}

// leadingSpace returns the leading spaces and tabs of a line.
func leadingSpace(b []byte) []byte {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return b[:i]
}

// isBlank reports whether a line holds whitespace only (typographic spaces
// included).
func isBlank(buf, text []byte) bool {
	return len(key(buf, text, trimBoth)) == 0
}

// nfcForm says which normalisation form text is in: 'C', 'D', or 0 for
// both or neither (ASCII, or mixed).
func nfcForm(text []byte) byte {
	c, d := norm.NFC.IsNormal(text), norm.NFD.IsNormal(text)
	switch {
	case c && !d:
		return 'C'
	case d && !c:
		return 'D'
	}
	return 0
}

// equalKeys compares a and b under opts without keeping either key.
func equalKeys(a, b []byte, opts int) bool {
	var ba, bb [256]byte
	return bytes.Equal(key(ba[:], a, opts), key(bb[:], b, opts))
}
