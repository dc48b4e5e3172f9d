package tokens

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

func TestStripANSISpecExample(t *testing.T) {
	in := "\u001b[31mred\u001b[0m \u001b]8;;http://x\u0007link\u001b]8;;\u0007\n"
	if got := StripANSI(in); got != "red link\n" {
		t.Errorf("StripANSI(%q) = %q, want %q", in, got, "red link\n")
	}
}

func TestStripANSI(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", ""},
		{"plain text", "plain text"},
		{"\x1b[31mred\x1b[0m\n", "red\n"},
		{"\x1b]0;title\x1b\\rest", "rest"},
		{"\x1b]8;;u\u009ctext", "text"},
		{"\u009b2Jclear", "clear"},
		{"\x1b[?25h\x1b[?25lcursor", "cursor"},
		{"\x1b(Bcharset", "charset"},
		{"\x1b#8align", "align"},
		{"\x1b[38;2;255;0;0mrgb\x1b[0m", "rgb"},
		{"\x1b[38:5:196mcolon", "colon"},
		// An OSC with no terminator falls back to the CSI-like form: ']' is
		// a leading character, "0;" a parameter list and 't' the final one.
		{"\x1b]0;title", "itle"},
		{"\x1b]xyz", "\x1b]xyz"},
		// Parameters hold at most four digits; a fifth is the final char.
		{"\x1b[12345mX", "mX"},
		// When the parameters lead nowhere, the match ends after the digits
		// of the last parameter that had some.
		{"\x1b[1;xY", ";xY"},
		{"\x1b[1;22;;x", ";;x"},
		{"\x1b[;mZ", "Z"},
		{"\x1b\x1b[0m", "\x1b"},
		{"\x1b", "\x1b"},
		{"\u009b", "\u009b"},
		{"esc at end \x1b[", "esc at end \x1b["},
		{"\x1b[31m\xffred", "\xffred"},
		{"日本\x1b[1m語", "日本語"},
	}
	for _, tt := range tests {
		if got := StripANSI(tt.in); got != tt.want {
			t.Errorf("StripANSI(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// ansiOracle is the JavaScript expression translated to Go syntax. Go's
// regexp picks the same (leftmost-first) matches as a backtracking engine.
var ansiOracle = regexp.MustCompile(`(?s)(?:\x1b\].*?(?:\x07|\x1b\\|\x{9c}))|(?:[\x1b\x{9b}][\[\]()#;?]*(?:[0-9]{1,4}(?:[;:][0-9]{0,4})*)?[0-9A-PR-TZcf-nq-uy=><~])`)

func TestStripANSIMatchesRegexp(t *testing.T) {
	alphabet := []string{
		"\x1b", "\x1b", "\x1b", "\u009b", "\u009c", "\x07", "\\", "[", "]", "(", ")", "#",
		";", ":", "?", "0", "1", "2", "5", "9", "m", "K", "H", "Q", "x", "y", "Z", "=", "~",
		" ", "a", "\n", "日", "\xff", "\xc2",
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var sb strings.Builder
		for n := r.IntN(40); n > 0; n-- {
			sb.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		s := sb.String()
		if got, want := StripANSI(s), ansiOracle.ReplaceAllString(s, ""); got != want {
			t.Fatalf("StripANSI(%q) = %q, regexp gives %q", s, got, want)
		}
	}
}

func FuzzStripANSI(f *testing.F) {
	for _, s := range []string{"\x1b[31mred\x1b[0m", "\x1b]8;;http://x\x07link", "\x1b[1;22;;x", "\u009b2J"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := StripANSI(s), ansiOracle.ReplaceAllString(s, ""); got != want {
			t.Errorf("StripANSI(%q) = %q, regexp gives %q", s, got, want)
		}
	})
}

func BenchmarkStripANSI(b *testing.B) {
	text := strings.Repeat("\x1b[1;32mok\x1b[0m   build/step-42 finished in 3.2s \x1b]8;;http://x\x07link\x1b]8;;\x07\n", 1<<14)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		StripANSI(text)
	}
}
