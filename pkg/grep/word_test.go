package grep

import "testing"

// TestWordUnicode checks -w's borders against ripgrep's word characters
// (Unicode's \w), in RE2 and in the ECMAScript engine (a lookahead sends a
// pattern there), with and without -i: "caf" is no whole word in "café",
// nor "a" in "日a本"; punctuation, spaces and line ends border a word.
func TestWordUnicode(t *testing.T) {
	for _, tc := range []struct {
		pattern, line string
		col           int // -1: no match
	}{
		{"caf", "café", -1},
		{"caf", "caf", 0},
		{"caf", "x caf.", 2},
		{"caf", "日caf", -1},
		{"caf", "caf_", -1},
		{"caf", "caf\u0301", -1}, // a combining accent is part of the word
		{"caf", "caf\u200D", -1}, // so is a joiner
		{"caf", "café caf", 6},   // bytes
		{"a", "日a本", -1},
		{"a", "Ⅻa", -1}, // a letter number
		{"a", "a-b", 0},
		{"a", "(a)", 1},
		{"a", "١a", -1}, // an Arabic-Indic digit
		{"é", "café", -1},
		{"é", "x é y", 2},
		{"ŝ", "xŝ ŝ", 4},
	} {
		for _, pat := range []string{tc.pattern, tc.pattern + "(?=|$)"} {
			for _, cs := range []bool{true, false} {
				m, err := CompileWith(pat, CompileOptions{CaseSensitive: cs, Word: true})
				if err != nil {
					t.Fatal(err)
				}
				got, err := m.FirstInLine([]byte(tc.line))
				if err != nil {
					t.Fatal(err)
				}
				if got != tc.col {
					t.Errorf("-w %q (case-sensitive %v) in %q: column %d, want %d", pat, cs, tc.line, got, tc.col)
				}
			}
		}
	}
}
