package notebook

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/wstools/ws/pkg/internal/jsonenc"
)

// A notebook is read by one pass of this scanner over its bytes, which
// checks the JSON grammar and gives the place of each object field and
// array element; only the small values the tools use are then decoded
// with encoding/json. (Decoding the whole file with encoding/json went
// over each byte five times: a 24 MB notebook of plots took seconds.)

// scanError is where the JSON stops being JSON, and why.
type scanError struct {
	at  int
	why string
}

func (e *scanError) Error() string { return e.why }

// checked, when set, is a notebook's bytes as a first pass checked them
// all: the passes after it look for the ends of strings with
// bytes.IndexByte instead of checking each byte again.
type checked bool

// skipValue is the end of the JSON value that starts at src[i].
func skipValue(src []byte, i int) (int, error) { return skipValueOf(src, i, false) }

func skipValueOf(src []byte, i int, ok checked) (int, error) {
	if i >= len(src) {
		return 0, &scanError{i, "it ends too soon"}
	}
	switch c := src[i]; {
	case c == '"' && bool(ok):
		return jsonenc.StringEnd(src, i), nil
	case c == '"':
		return skipString(src, i)
	case c == '{':
		obj, err := scanObjectOf(src, i, nil, ok)
		if err != nil {
			return 0, err
		}
		return obj.close + 1, nil
	case c == '[':
		end, err := scanArrayOf(src, i, nil, ok)
		return end, err
	case c == '-' || c >= '0' && c <= '9':
		return skipNumber(src, i)
	case c == 't':
		return skipLiteral(src, i, "true")
	case c == 'f':
		return skipLiteral(src, i, "false")
	case c == 'n':
		return skipLiteral(src, i, "null")
	}
	return 0, &scanError{i, fmt.Sprintf("unexpected %q", src[i])}
}

func skipLiteral(src []byte, i int, lit string) (int, error) {
	if !bytes.HasPrefix(src[i:], []byte(lit)) {
		return 0, &scanError{i, fmt.Sprintf("unexpected %q", src[i])}
	}
	return i + len(lit), nil
}

// skipNumber is the end of the JSON number at src[i].
func skipNumber(src []byte, i int) (int, error) {
	start := i
	digits := func() int {
		n := 0
		for i < len(src) && src[i] >= '0' && src[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if src[i] == '-' {
		i++
	}
	switch {
	case i < len(src) && src[i] == '0':
		i++
	case digits() == 0:
		return 0, &scanError{start, "a number without digits"}
	}
	if i < len(src) && src[i] == '.' {
		i++
		if digits() == 0 {
			return 0, &scanError{i, "a number without digits after its point"}
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if digits() == 0 {
			return 0, &scanError{i, "a number without digits in its exponent"}
		}
	}
	return i, nil
}

// plain marks the bytes a string holds as they are: not a quote, a
// backslash or a control character.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// skipString is the end (after the closing quote) of the JSON string that
// opens at src[i].
func skipString(src []byte, i int) (int, error) {
	for j := i + 1; j < len(src); j++ {
		for j < len(src) && plain[src[j]] {
			j++
		}
		if j == len(src) {
			break
		}
		switch c := src[j]; {
		case c == '"':
			return j + 1, nil
		case c == '\\':
			j++
			if j >= len(src) {
				return 0, &scanError{j, "it ends too soon"}
			}
			switch src[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(src) || !isHex(src[j+1]) || !isHex(src[j+2]) || !isHex(src[j+3]) || !isHex(src[j+4]) {
					return 0, &scanError{j, `a \u escape without four hex digits`}
				}
				j += 4
			default:
				return 0, &scanError{j, fmt.Sprintf("an invalid escape \\%c in a string", src[j])}
			}
		case c < 0x20:
			return 0, &scanError{j, "a control character in a string"}
		}
	}
	return 0, &scanError{len(src), "a string that never ends"}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// scanObject reads the object that opens at src[i] into its fields;
// with fields nil it only checks it (and keeps nothing).
func scanObject(src []byte, i int, fields *[]field) (*object, error) {
	return scanObjectOf(src, i, fields, false)
}

func scanObjectOf(src []byte, i int, fields *[]field, ok checked) (*object, error) {
	obj := &object{open: i}
	i = jsonenc.SkipSpace(src, i+1)
	if i < len(src) && src[i] == '}' {
		obj.close = i
		return obj, nil
	}
	for {
		if i >= len(src) || src[i] != '"' {
			return nil, expected(src, i, "a key in quotes")
		}
		keyEnd, err := skipValueOf(src, i, ok)
		if err != nil {
			return nil, err
		}
		keyStart := i
		i = jsonenc.SkipSpace(src, keyEnd)
		if i >= len(src) || src[i] != ':' {
			return nil, expected(src, i, "':' after a key")
		}
		valStart := jsonenc.SkipSpace(src, i+1)
		valEnd, err := skipValueOf(src, valStart, ok)
		if err != nil {
			return nil, err
		}
		if fields != nil {
			*fields = append(*fields, field{key: keyOf(src[keyStart:keyEnd]), keyStart: keyStart, keyEnd: keyEnd, valStart: valStart, valEnd: valEnd})
		}
		i = jsonenc.SkipSpace(src, valEnd)
		if i < len(src) && src[i] == ',' {
			i = jsonenc.SkipSpace(src, i+1)
			continue
		}
		if i < len(src) && src[i] == '}' {
			obj.close = i
			return obj, nil
		}
		return nil, expected(src, i, "',' or '}' after a value")
	}
}

// scanArray checks the array that opens at src[i], calling elem (when not
// nil) with the span of each element; it returns the array's end.
func scanArray(src []byte, i int, elem func(start, end int)) (int, error) {
	return scanArrayOf(src, i, elem, false)
}

func scanArrayOf(src []byte, i int, elem func(start, end int), ok checked) (int, error) {
	i = jsonenc.SkipSpace(src, i+1)
	if i < len(src) && src[i] == ']' {
		return i + 1, nil
	}
	for {
		end, err := skipValueOf(src, i, ok)
		if err != nil {
			return 0, err
		}
		if elem != nil {
			elem(i, end)
		}
		i = jsonenc.SkipSpace(src, end)
		if i < len(src) && src[i] == ',' {
			i = jsonenc.SkipSpace(src, i+1)
			continue
		}
		if i < len(src) && src[i] == ']' {
			return i + 1, nil
		}
		return 0, expected(src, i, "',' or ']' after a value")
	}
}

func expected(src []byte, i int, what string) error {
	if i >= len(src) {
		return &scanError{i, "it ends too soon"}
	}
	return &scanError{i, fmt.Sprintf("expected %s, found %q", what, src[i])}
}

// keyOf is a quoted key's text: its bytes when it has no escapes.
func keyOf(q []byte) string {
	raw := q[1 : len(q)-1]
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw)
	}
	var s string
	_ = json.Unmarshal(q, &s) // checked by skipString
	return s
}

// stringBytes is the text of the JSON string src[start:end] without a
// copy when it holds no escapes (ok false when it does, or is not a
// string).
func stringBytes(src []byte, start, end int) (raw []byte, ok bool) {
	if end-start < 2 || src[start] != '"' {
		return nil, false
	}
	raw = src[start+1 : end-1]
	return raw, bytes.IndexByte(raw, '\\') < 0
}
