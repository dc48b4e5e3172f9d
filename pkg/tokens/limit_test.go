package tokens

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestLimitHeadSpecExample(t *testing.T) {
	// The read_file example: a 30-token budget on a 35-token listing.
	in := "src/util.ts (70 bytes)\n" +
		"     1→export function add(a: number, b: number) {\n" +
		"     2→  return a + b;\n" +
		"     3→}\n" +
		"     4→\n" +
		"     5→\n" +
		"     6→"
	want := "src/util.ts (70 bytes)\n     1→export function add(a: number, b: number) {\n     2→  return a + b;\n[output truncated: showing first ~30 of ~35 tokens]"
	out, truncated, total := LimitHead(in, 30)
	if out != want || !truncated || total != 35 {
		t.Errorf("LimitHead = %q, %v, %d; want %q, true, 35", out, truncated, total, want)
	}
}

func TestLimitHead(t *testing.T) {
	tests := []struct {
		in        string
		limit     int
		want      string
		truncated bool
		total     int
	}{
		{"", 0, "", false, 0},
		{"", -1, "", false, 0},
		{"   ", 0, "   ", false, 0},
		{"alpha beta gamma", 3, "alpha beta gamma", false, 3},
		{"alpha beta gamma", 2, "alpha beta\n[output truncated: showing first ~2 of ~3 tokens]", true, 3},
		{"alpha beta gamma", 0, "\n[output truncated: showing first ~0 of ~3 tokens]", true, 3},
		// A negative limit counts back from the end, as in JavaScript.
		{"alpha beta gamma", -1, "alpha beta\n[output truncated: showing first ~-1 of ~3 tokens]", true, 3},
		{"internationalization", 1, "inter\n[output truncated: showing first ~1 of ~4 tokens]", true, 4},
	}
	for _, tt := range tests {
		out, truncated, total := LimitHead(tt.in, tt.limit)
		if out != tt.want || truncated != tt.truncated || total != tt.total {
			t.Errorf("LimitHead(%q, %d) = %q, %v, %d; want %q, %v, %d",
				tt.in, tt.limit, out, truncated, total, tt.want, tt.truncated, tt.total)
		}
	}
}

func TestLimitTail(t *testing.T) {
	limitTail := func(text string, limit int) string {
		out, _, _ := LimitTail(text, limit)
		return out
	}
	checkTextCases(t, "LimitTail", limitTail, []textCase{
		{"", 5, ""},
		{"alpha beta gamma", 3, "alpha beta gamma"},
		{"alpha beta gamma", 2, "[output truncated: showing last ~2 of ~3 tokens]\n beta gamma"},
		// JavaScript's slice(-0) keeps everything.
		{"alpha beta gamma", 0, "[output truncated: showing last ~0 of ~3 tokens]\nalpha beta gamma"},
		{"alpha beta gamma", -1, "[output truncated: showing last ~-1 of ~3 tokens]\n beta gamma"},
		{"alpha beta gamma", math.MinInt, "[output truncated: showing last ~" + strconv.Itoa(math.MinInt) + " of ~3 tokens]\n"},
	})
}

// textCase is a case of a function of a text and a number.
type textCase struct {
	in   string
	n    int
	want string
}

// checkTextCases checks that f, called name in errors, gives each case
// its want.
func checkTextCases(t *testing.T, name string, f func(string, int) string, cases []textCase) {
	t.Helper()
	for _, tc := range cases {
		if got := f(tc.in, tc.n); got != tc.want {
			t.Errorf("%s(%q, %d) = %q, want %q", name, tc.in, tc.n, got, tc.want)
		}
	}
}

func seqWords(n int) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		sb.WriteString(strconv.Itoa(i))
		sb.WriteByte(' ')
	}
	return sb.String()
}

func seqLines(from, to int) string {
	var sb strings.Builder
	for i := from; i <= to; i++ {
		sb.WriteString(strconv.Itoa(i))
		sb.WriteByte('\n')
	}
	return sb.String()
}

func TestSandwichSpecExample(t *testing.T) {
	// seq 1 100 | tr "\n" " " with a trailing newline, limit 20.
	in := seqWords(100) + "\n"
	want := "1 2\n[...output truncated — showing first ~2 + last ~18 of ~100 tokens...]\n 83 84 85 86 87 88 89 90 91 92 93 94 95 96 97 98 99 100 \n"
	if got := Sandwich(in, 20); got != want {
		t.Errorf("Sandwich = %q, want %q", got, want)
	}
}

func TestSandwich(t *testing.T) {
	const text = "alpha beta gamma delta"
	checkTextCases(t, "Sandwich", Sandwich, []textCase{
		{"", 0, ""},
		{text, 4, text},
		{text, 100, text},
		// A budget under 10 gives no head at all.
		{text, 3, "[...output truncated \u2014 showing first ~0 + last ~3 of ~4 tokens...]\n beta gamma delta"},
		{text, 0, "[...output truncated \u2014 showing first ~0 + last ~0 of ~4 tokens...]"},
		{text, -5, "[...output truncated \u2014 showing first ~-1 + last ~-4 of ~4 tokens...]"},
		{seqWords(30), 10, "1\n[...output truncated \u2014 showing first ~1 + last ~9 of ~30 tokens...]\n 22 23 24 25 26 27 28 29 30 "},
	})
}

func TestTailLinesSpecExample(t *testing.T) {
	got := TailLines(seqLines(1, 500), DefaultTailLines)
	want := "[showing last 200 of 500 lines]\n" + seqLines(301, 500)
	if got != want {
		t.Errorf("TailLines(seq 1 500, 200) = %.80q..., want %.80q...", got, want)
	}
	if !strings.HasPrefix(got, "[showing last 200 of 500 lines]\n301\n") {
		t.Errorf("TailLines(seq 1 500, 200) starts %.60q", got)
	}
}

func TestTailLines(t *testing.T) {
	checkTextCases(t, "TailLines", TailLines, []textCase{
		{"", 3, ""},
		{"a\nb\nc\n", 0, "a\nb\nc\n"},
		{"a\nb\nc\n", 3, "a\nb\nc\n"},
		{"a\nb\nc\n", 2, "[showing last 2 of 3 lines]\nb\nc\n"},
		{"a\nb\nc", 2, "[showing last 2 of 3 lines]\nb\nc"},
		{"a\nb\nc", -2, "[showing last 2 of 3 lines]\nb\nc"},
		{"a\nb\nc", math.MinInt, "a\nb\nc"},
		{"a\nb\nc\n\n", 1, "[showing last 1 of 4 lines]\n\n"},
		{"\n\n\n", 1, "[showing last 1 of 3 lines]\n\n"},
		{"\n", 1, "\n"},
		{"a\r\nb\r\n", 1, "[showing last 1 of 2 lines]\nb\r\n"},
	})
}
