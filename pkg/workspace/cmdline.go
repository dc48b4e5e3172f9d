package workspace

import (
	"strings"
	"unicode/utf8"
)

// CommandLine is the shell command that `ws exec -- WORDS…` runs. One
// word is a shell command as it stands ('npm ci && npm test | tail'),
// as ssh takes it. Several words are an argv, as docker exec, env, sudo
// and timeout take one: each word is quoted for /bin/sh where it needs
// quoting, so that the program gets them as given (grep -r "foo bar" .
// searches for "foo bar"). A word that needs no quoting stays bare, so
// FOO=1 make is still an assignment, and a NAME=value word whose value
// needs quoting is quoted after the "=" (FOO='a b' make), so it stays one.
func CommandLine(words []string) string {
	if len(words) == 1 {
		return words[0]
	}
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(shellWord(w))
	}
	return b.String()
}

// shellWord is w as one word of a POSIX shell command line.
func shellWord(w string) string {
	if w == "" {
		return "''"
	}
	if bareWord(w) {
		return w
	}
	if name, value, ok := strings.Cut(w, "="); ok && shellName(name) {
		return name + "=" + shellWord(value)
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// bareWord reports whether w means itself to a shell unquoted: ASCII
// letters, digits and _@%+=:,./- (none of them expands, splits, globs or
// ends a word anywhere in it), and UTF-8 letters beyond ASCII, which no
// shell treats as special. A word that is not UTF-8 is quoted: in a
// locale of another multibyte encoding its bytes could read as "\" or "$".
func bareWord(w string) bool {
	if !utf8.ValidString(w) {
		return false
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c >= 0x80, 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("_@%+=:,./-", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// shellName reports whether s is a shell variable name, so that s=value
// at the start of a command is an assignment.
func shellName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return s != ""
}
