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
