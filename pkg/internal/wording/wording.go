package wording

import "strings"

// Plural is one when n is 1, else many: "1 file", "2 files", "0 files".
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// ShellWord writes a path as one word of a shell command: as it is when
// it holds only letters, digits and / . - _, else in single quotes.
func ShellWord(s string) string {
	for _, r := range s {
		if !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}
