package js

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// IsSpace reports whether r is in JavaScript's \s class, which is also what
// String.prototype.trim removes. Unlike [unicode.IsSpace] it includes U+FEFF
// and excludes U+0085.
func IsSpace(r rune) bool {
	if r < 0x80 {
		return r == ' ' || r >= '\t' && r <= '\r'
	}
	if r < 0x1680 {
		return r == 0xA0
	}
	switch {
	case r == 0x1680, r >= 0x2000 && r <= 0x200A,
		r == 0x2028, r == 0x2029, r == 0x202F, r == 0x205F,
		r == 0x3000, r == 0xFEFF:
		return true
	}
	return false
}

// TrimSpace is JavaScript's String.prototype.trim.
func TrimSpace(s string) string { return strings.TrimFunc(s, IsSpace) }

// Fields splits s around runs of \s, as s.split(/\s+/) does once empty
// strings at the ends are dropped.
func Fields(s string) []string { return strings.FieldsFunc(s, IsSpace) }

// FormatNumber formats f as Number.prototype.toString does (NaN and the
// infinities as JSON.stringify prints them: null).
func FormatNumber(f float64) string {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return "null"
	case f == 0:
		return "0"
	}
	abs := math.Abs(f)
	if abs >= 1e21 || abs < 1e-6 {
		s := strconv.FormatFloat(f, 'e', -1, 64) // 1e+21, 1.5e-07
		mant, exp, _ := strings.Cut(s, "e")
		sign := exp[0]
		exp = strings.TrimLeft(exp[1:], "0")
		return mant + "e" + string(sign) + exp
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// Quote writes s quoted as JSON.stringify quotes strings: only '"', '\\'
// and control characters are escaped (lower-case hex); everything else is
// written as is.
func Quote(sb *strings.Builder, s string) {
	sb.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			sb.WriteString(`\"`)
		case '\\':
			sb.WriteString(`\\`)
		case '\b':
			sb.WriteString(`\b`)
		case '\f':
			sb.WriteString(`\f`)
		case '\n':
			sb.WriteString(`\n`)
		case '\r':
			sb.WriteString(`\r`)
		case '\t':
			sb.WriteString(`\t`)
		default:
			if r < 0x20 {
				fmt.Fprintf(sb, `\u%04x`, r)
			} else {
				sb.WriteRune(r)
			}
		}
	}
	sb.WriteByte('"')
}
