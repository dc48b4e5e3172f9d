package wording

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Plural is one when n is 1, else many: "1 file", "2 files", "0 files".
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// JoinAnd lists words as English does: "a", "a and b", "a, b and c".
func JoinAnd(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// FirstLine is the first line of s that is not blank, without the white
// space around it: what a message quotes of a command's stderr or an
// error text.
func FirstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
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

// Excerpt is s as an error message quotes it: valid UTF-8, without control
// characters (tabs kept), and at most max bytes, ending in "…" when cut.
func Excerpt(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && r != '\t' {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Middle is s at most about max bytes long: when longer, its start and its
// end with "…" between them (no character split), so that a path of
// kilobytes (a tree nested to PATH_MAX) named in a summary keeps its top
// directory and its file without filling the output.
func Middle(s string, max int) string {
	if len(s) <= max {
		return s
	}
	head, _, _ := Cut(s, 0, max/2)
	tail, _, _ := Cut(s, len(s)-max/2, len(s))
	return head + "…" + tail
}

// Cut is the part of s from byte from to byte to, both moved back to the
// start of a UTF-8 character so that none is split, and whether s goes on
// before it and after it (where a quote marks the cut with "…").
func Cut(s string, from, to int) (part string, before, after bool) {
	from, to = max(0, min(from, len(s))), max(0, min(to, len(s)))
	from, to = runeStart(s, from), runeStart(s, to)
	to = max(from, to)
	return s[from:to], from > 0, to < len(s)
}

// runeStart is i moved back to the start of the UTF-8 character that holds
// byte i. Where no valid character holds it (a stray continuation byte, as
// at the start of s), i stays where it is: there is nothing to split.
func runeStart(s string, i int) int {
	if i >= len(s) || utf8.RuneStart(s[i]) {
		return i
	}
	for j := i - 1; j >= 0 && j > i-utf8.UTFMax; j-- {
		if utf8.RuneStart(s[j]) {
			if _, n := utf8.DecodeRuneInString(s[j:]); j+n > i {
				return j
			}
			break
		}
	}
	return i
}

// OneLine is s on one line, as a table row shows it: each run of
// whitespace that holds a line break, a tab or another control character
// becomes one space. Runs of plain spaces are kept: in a command such as
// echo 'a  b' they are part of what runs. Any other control character
// (ESC, BEL, NUL, DEL, and U+0080 to U+009F) shows as ?, as ps(1) shows
// it, so that what the row shows cannot drive the terminal (an escape
// sequence that sets a colour or the title, moves the cursor or clears the
// screen); other bytes stay as they are.
func OneLine(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		control := false
		for j < len(s) && strings.IndexByte(" \t\n\v\f\r", s[j]) >= 0 {
			control = control || s[j] != ' '
			j++
		}
		switch {
		case j > i && control:
			b.WriteByte(' ')
			i = j
		case j > i:
			b.WriteString(s[i:j])
			i = j
		case s[i] < 0x20 || s[i] == 0x7f:
			b.WriteByte('?')
			i++
		case s[i] == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f: // C1, in UTF-8
			b.WriteByte('?')
			i += 2
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

// Closest is the word of known that word is most likely a misspelling of:
// the same but for case, or one or two letters off (for a word long
// enough that this is telling: no more than a third of its letters);
// "" when none stands out, or two stand out alike.
func Closest(word string, known []string) string {
	best, bestD, ties := "", 3, 0
	lower := strings.ToLower(word)
	for _, k := range known {
		if strings.EqualFold(k, word) {
			return k
		}
		d := editDistance(lower, strings.ToLower(k), bestD)
		switch {
		case d < bestD:
			best, bestD, ties = k, d, 0
		case d == bestD:
			ties++
		}
	}
	if best == "" || ties > 0 || bestD*3 > len(word) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, in bytes, or
// bound+1 when it is more than bound (their lengths alone can tell).
func editDistance(a, b string, bound int) int {
	if d := len(a) - len(b); d > bound || -d > bound {
		return bound + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], bound+1)
}
