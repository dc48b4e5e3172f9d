package wording

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Name is a file name found on disk as a line of text shows it: as it is,
// unless it holds a character that does not print as itself, or starts
// with a double quote. Such a name is written in double quotes with those
// characters escaped as JSON escapes them (\n, \t, \u001b, \u202e …), so
// that a newline in a name cannot make a line that looks like another
// file, an escape sequence cannot reach the terminal, and a right-to-left
// override cannot turn the name round where it is shown. The quoted form
// is a JSON string a model can pass back as the path, but for a byte that
// is not UTF-8, which is written \xHH (a name that is not UTF-8 and has
// nothing else to quote keeps its bytes, for a script to use).
func Name(s string) string {
	if !strings.HasPrefix(s, `"`) && !needsQuote(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case unseen(r):
			b.WriteString(`\u`)
			u := strconv.FormatInt(int64(r), 16)
			b.WriteString(strings.Repeat("0", 4-len(u)) + u)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	b.WriteByte('"')
	return b.String()
}

// NameBytes is Name of a name held as bytes.
func NameBytes(b []byte) string { return Name(string(b)) }

func needsQuote(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if unseen(r) {
			return true
		}
		i += n
	}
	return false
}

// unseen reports whether r does not print as itself: a C0 or C1 control,
// DEL, a mark that changes the direction of the text around it, a line or
// paragraph separator, or a character of no width that can hide in a name
// (the zero-width joiner and non-joiner are left alone: emoji and Persian
// words need them). Every such rune is below U+10000, so \uXXXX writes it.
func unseen(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200b, r == 0x200e, r == 0x200f, r == 0xfeff:
		return true
	case r >= 0x2028 && r <= 0x202e, r >= 0x2060 && r <= 0x2069:
		return true
	}
	return false
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}

// Unname is the name a quoted form of Name stands for; ok is false when s
// is not one (no quotes round it, an escape Name does not write, or a
// character Name would have escaped).
func Unname(s string) (name string, ok bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", false
	}
	var b strings.Builder
	for i := 1; i < len(s)-1; i++ {
		c := s[i]
		if c == '"' {
			return "", false
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(s)-1 {
			return "", false
		}
		i++
		switch s[i] {
		case '"', '\\':
			b.WriteByte(s[i])
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'x', 'u':
			width := 2
			if s[i] == 'u' {
				width = 4
			}
			if i+width > len(s)-2 { // the digits end before the closing quote
				return "", false
			}
			v, err := strconv.ParseUint(s[i+1:i+1+width], 16, 32)
			if err != nil {
				return "", false
			}
			if width == 2 {
				b.WriteByte(byte(v))
			} else {
				b.WriteRune(rune(v))
			}
			i += width
		default:
			return "", false
		}
	}
	return b.String(), true
}

// ShellName is name as one word of a bash command: ShellWord's quoting,
// or, for a name Name quotes, bash's $'…' with the same escapes.
func ShellName(name string) string {
	q := Name(name)
	if q == name {
		return ShellWord(name)
	}
	return "$'" + strings.ReplaceAll(q[1:len(q)-1], "'", `\'`) + "'"
}
