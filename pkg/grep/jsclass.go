package grep

import "strings"

// jsSpace is what `\s` matches in a JavaScript RegExp: white space and
// line ends, Unicode's spaces included. RE2's `\s` is ASCII only
// ([\t\n\f\r ]), so a no-break space or a vertical tab would not match.
const jsSpace = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`

// jsDot is what `.` matches in a JavaScript RegExp without the s flag:
// any character but a line end. RE2's `.` takes '\r' (so `c.$` would
// match the CRLF line "abc\r"), U+2028 and U+2029.
const jsDot = `[^\n\r\x{2028}\x{2029}]`

// jsClasses rewrites an RE2 pattern so that `\s`, `\S`, `.`, `[]` and
// `[^]` match what they match in JavaScript, leaving escapes, `\Q…\E` quoting and the
// insides of classes alone otherwise. ok is false when the pattern needs
// what RE2 cannot say (a `\S` inside a class); the ECMAScript engine,
// which reads these as JavaScript does, then runs it.
func jsClasses(p string) (out string, ok bool) {
	var sb strings.Builder
	inClass := false // inside [...]
	classStart := 0  // where the current class's items begin
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			e := p[i+1]
			switch {
			case e == 'Q' && !inClass:
				// Quoted text runs to \E (or the end), taken as it is.
				end := strings.Index(p[i+2:], `\E`)
				if end < 0 {
					sb.WriteString(p[i:])
					return sb.String(), true
				}
				sb.WriteString(p[i : i+2+end+2])
				i += 2 + end + 1
				continue
			case e == 's' && inClass:
				sb.WriteString(jsSpace)
			case e == 's':
				sb.WriteString("[" + jsSpace + "]")
			case e == 'S' && inClass:
				return "", false
			case e == 'S':
				sb.WriteString("[^" + jsSpace + "]")
			default:
				sb.WriteString(p[i : i+2])
			}
			i++
		case inClass:
			if c == '[' && i+1 < len(p) && p[i+1] == ':' {
				// A POSIX class such as [:alpha:] keeps its brackets.
				if end := strings.Index(p[i+2:], ":]"); end >= 0 {
					sb.WriteString(p[i : i+2+end+2])
					i += 2 + end + 1
					continue
				}
			}
			if c == ']' && i > classStart {
				inClass = false
			}
			sb.WriteByte(c)
		case c == '[' && strings.HasPrefix(p[i+1:], "]"):
			// JavaScript's empty class matches nothing (RE2 would read
			// "[]a]" as the class of ']' and 'a').
			sb.WriteString(`[^\x00-\x{10FFFF}]`)
			i++
		case c == '[' && strings.HasPrefix(p[i+1:], "^]"):
			// JavaScript's [^] is any character, line ends too.
			sb.WriteString(`[\x00-\x{10FFFF}]`)
			i += 2
		case c == '[':
			inClass = true
			sb.WriteByte(c)
			classStart = i + 1
			if classStart < len(p) && p[classStart] == '^' {
				sb.WriteByte('^')
				i++
				classStart++
			}
		case c == '.':
			sb.WriteString(jsDot)
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String(), true
}
