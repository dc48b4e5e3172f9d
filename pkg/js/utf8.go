package js

import (
	"strings"
	"unicode/utf8"
)

// DecodeUTF8 decodes bytes as JavaScript's UTF-8 decoder does: each maximal
// invalid subsequence becomes one U+FFFD (the WHATWG rule), so the text
// matches what Mastra shows byte for byte.
func DecodeUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 8)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r != utf8.RuneError || size > 1 {
			sb.Write(b[:size])
			b = b[size:]
			continue
		}
		sb.WriteRune(utf8.RuneError)
		b = b[maximalSubpart(b):]
	}
	return sb.String()
}

// maximalSubpart is the length of the invalid sequence at the start of b
// that the WHATWG decoder replaces with a single U+FFFD: a lead byte plus
// the continuation bytes that could still have completed it.
func maximalSubpart(b []byte) int {
	c := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c >= 0xE0 && c <= 0xEF:
		need = 2
	case c >= 0xF0 && c <= 0xF4:
		need = 3
	default:
		return 1
	}
	// The second byte of these lead bytes has a narrower range (no
	// overlong forms, no surrogates, nothing above U+10FFFF).
	switch c {
	case 0xE0:
		lo = 0xA0
	case 0xED:
		hi = 0x9F
	case 0xF0:
		lo = 0x90
	case 0xF4:
		hi = 0x8F
	}
	n := 1
	for i := 0; i < need && n < len(b); i++ {
		if b[n] < lo || b[n] > hi {
			break
		}
		lo, hi = 0x80, 0xBF
		n++
	}
	return n
}

// nextUnit decodes the piece of b that starts it as DecodeUTF8 does: a
// valid character (its size, and its UTF-16 units), or a maximal invalid
// subsequence, which becomes one U+FFFD (one unit).
func nextUnit(b []byte) (size, units int, valid bool) {
	if b[0] < utf8.RuneSelf {
		return 1, 1, true
	}
	r, size := utf8.DecodeRune(b)
	if r != utf8.RuneError || size > 1 {
		if r > 0xFFFF {
			return size, 2, true
		}
		return size, 1, true
	}
	return maximalSubpart(b), 1, false
}

// UTF16LenUTF8 is the length in UTF-16 code units of DecodeUTF8(b), as
// JavaScript measures the decoded text, without making it: a line of
// hundreds of megabytes is measured in one pass, with no allocation.
func UTF16LenUTF8(b []byte) int {
	n := 0
	for len(b) > 0 {
		if b[0] < utf8.RuneSelf {
			n++
			b = b[1:]
			continue
		}
		size, units, _ := nextUnit(b)
		n += units
		b = b[size:]
	}
	return n
}

// SliceUTF16UTF8 is the text of UTF-16 units [start, end) of
// DecodeUTF8(b), as JavaScript's substring(start, end) of the decoded
// text, with a surrogate pair cut in half read as U+FFFD (how a lone half
// is printed): only the bytes of the window are decoded, so a window of
// a long line costs its size, not the line's.
func SliceUTF16UTF8(b []byte, start, end int) string {
	if start >= end {
		return ""
	}
	var sb strings.Builder
	u := 0
	for len(b) > 0 && u < end {
		if b[0] < utf8.RuneSelf {
			if u >= start {
				sb.WriteByte(b[0])
			}
			u++
			b = b[1:]
			continue
		}
		size, units, valid := nextUnit(b)
		switch {
		case u >= start && u+units <= end:
			if valid {
				sb.Write(b[:size])
			} else {
				sb.WriteRune(utf8.RuneError)
			}
		case u+units > start:
			// Half of a surrogate pair falls in the window.
			sb.WriteRune(utf8.RuneError)
		}
		u += units
		b = b[size:]
	}
	return sb.String()
}
