package jsonenc

import "bytes"

// SkipSpace is the index of the first byte at or after i that is not
// JSON whitespace (len(b) when there is none).
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// StringEnd is the index just past the JSON string that opens at b[i]:
// after its closing quote, the first quote that no backslash escapes
// (len(b) when there is none). It trusts b to be valid JSON, checked
// before (json.Valid, or a scanner of its own): it skips to each quote
// with bytes.IndexByte and looks at nothing else.
func StringEnd(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b)
		}
		q := j + k
		n := 0 // backslashes just before the quote: an odd count escapes it
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// Nest walks b from i over the brackets that stand outside strings,
// calling at with the depth each leaves (counted from 0 at i: 1 after the
// first '{' or '['); it stops at the bracket for which at returns false
// and returns its index, or len(b) when none did. It does not check that
// brackets pair by kind, or that b is JSON at all.
func Nest(b []byte, i int, at func(depth int) bool) int {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			j = StringEnd(b, j) - 1
		case '{', '[':
			if depth++; !at(depth) {
				return j
			}
		case '}', ']':
			if depth--; !at(depth) {
				return j
			}
		}
	}
	return len(b)
}

// ValueEnd is the index just past the value that starts at b[i]: a
// string's closing quote, the bracket that closes an object or an array,
// else the byte before the next delimiter (len(b) when the value does not
// end). Like StringEnd, it trusts b to be JSON; on other text its answer
// is only a place to check from.
func ValueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return StringEnd(b, i)
	case '{', '[':
		return min(Nest(b, i, func(depth int) bool { return depth > 0 })+1, len(b))
	}
	j := i // a number, true, false or null
	for j < len(b) && !delimiter(b[j]) {
		j++
	}
	return j
}

// delimiter reports whether c ends a number or a literal.
func delimiter(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', ',', ']', '}':
		return true
	}
	return false
}
