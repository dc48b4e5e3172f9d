package js

import (
	"unicode/utf16"
	"unicode/utf8"
)

// UTF16Len is a string's length as JavaScript counts it: UTF-16 code units
// (invalid bytes count one each, as their U+FFFD would).
func UTF16Len(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		n += utf16.RuneLen(r) // an invalid byte is U+FFFD: 1
		i += size
	}
	return n
}

// CutUTF16 is JavaScript's s.substring(0, n): the first n UTF-16 code
// units. A surrogate pair cut in half leaves U+FFFD, which is how Node
// prints the lone half.
func CutUTF16(s string, n int) string {
	u := 0
	for i, r := range s {
		ru := utf16.RuneLen(r)
		if ru < 0 {
			ru = 1
		}
		if u+ru > n {
			if u < n {
				return s[:i] + "\uFFFD"
			}
			return s[:i]
		}
		u += ru
	}
	return s
}

// LessUTF16 orders strings by UTF-16 code units, as JavaScript sorts them.
// Byte order is the same unless the first difference lies in a character
// at or above U+E000 (UTF-8 lead byte 0xEE or more). Bytes that are not
// UTF-8 read as U+FFFD, as JavaScript would see them, and two different
// such bytes (or one and a real U+FFFD) are ordered by the bytes, so the
// order stays total for any names.
func LessUTF16(a, b string) bool {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	// Two ASCII bytes decide in any names, valid or not: no character
	// before them reaches into them, so both are read as themselves.
	if i < n && a[i] < utf8.RuneSelf && b[i] < utf8.RuneSelf {
		return a[i] < b[i]
	}
	if !utf8.ValidString(a) || !utf8.ValidString(b) {
		return lessRunes(a, b)
	}
	if i == n {
		return len(a) < len(b)
	}
	if a[i] < 0xEE && b[i] < 0xEE {
		return a[i] < b[i]
	}
	// Back to the start of the differing characters and compare by units.
	for i > 0 && !utf8.RuneStart(a[i]) {
		i--
	}
	return lessRunes(a[i:], b[i:])
}

// CompareUTF16 is LessUTF16 as a three-way comparison (for
// slices.SortFunc): negative, zero only for the same string, or positive.
func CompareUTF16(a, b string) int {
	switch {
	case a == b:
		return 0
	case LessUTF16(a, b):
		return -1
	}
	return 1
}

// lessRunes compares character by character by first UTF-16 unit; equal
// characters spelt in different bytes (invalid ones, all U+FFFD) by their
// bytes.
func lessRunes(a, b string) bool {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			return utf16Key(ra) < utf16Key(rb)
		}
		if a[:na] != b[:nb] {
			return a[:na] < b[:nb]
		}
		a, b = a[na:], b[nb:]
	}
	return len(a) < len(b)
}

// utf16Key maps a rune to a value that sorts as its first UTF-16 unit
// would: supplementary characters (surrogate pairs, D800…) come before
// U+E000…U+FFFF.
func utf16Key(r rune) int {
	if r >= 0x10000 {
		hi, _ := utf16.EncodeRune(r)
		return int(hi)<<16 | int(r&0xffff)
	}
	return int(r) << 16
}
