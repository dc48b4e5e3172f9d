package js

import "unicode/utf16"

// UTF16Len is a string's length as JavaScript counts it: UTF-16 code units
// (invalid bytes count one each, as their U+FFFD would).
func UTF16Len(s string) int {
	n := 0
	for _, r := range s {
		if u := utf16.RuneLen(r); u > 0 {
			n += u
		} else {
			n++
		}
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
