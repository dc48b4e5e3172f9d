package tokens

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEstimateSpecExamples(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"internationalization", 4},
		{"3.14159", 3},
		{"12345678", 1},
		{"...", 1},
		{"!!!!!!", 3},
		{"     1→hello", 2},
		{"über", 2},
		{"naïve café", 4},
		{"日本語テキスト", 7},
		{"👍👍", 1},
		{"a_b-c", 5},
		{"foo.bar(baz)", 6},
		{"x\u00a0y", 2},
	}
	for _, tt := range tests {
		if got := Estimate(tt.in); got != tt.want {
			t.Errorf("Estimate(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestEstimateRules(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"whitespace is free", " \t\n\r\v\f\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\ufeff", 0},
		{"NEL is not JS whitespace", "ab\u0085cd", 1},
		{"zero width space is not whitespace", "abcd\u200befgh", 2},
		{"short word", "abc", 1},
		{"four letters", "abcd", 1},
		{"seven letters", "abcdefg", 2},
		{"long digit run", "123456789012345678901234567890", 1},
		{"non-ASCII digits are not numeric", "١٢٣٤٥٦٧", 2},
		{"punctuation run of 4", "::::", 2},
		{"punctuation run of 5", "-----", 3},
		{"quotes are word characters", `"''"''"`, 2},
		{"CJK counts code points", "漢字ab😀", 5},
		{"full-width forms are CJK", "ＡＢＣＤ", 4},
		{"Hangul", "한국어", 3},
		{"German", "Straßen", 3},
		{"capital sharp s", "GROẞEN", 2},
		{"French capitals", "ÉLÈVE", 2},
		{"Y diaeresis upper case", "ŸYYYYYY", 3},
		{"Polish 3.5", "łłłłłłł", 2},
		{"Polish 3.5 rounding", "łłłłłłłł", 3},
		{"French wins over Polish", "óóóóóóó", 3},
		{"other scripts use 6", "приветствие", 2},
		{"astral characters are two units", "😀😀😀😀", 2},
		{"invalid bytes count as U+FFFD", "ab\xffcd", 1},
	}
	for _, tt := range tests {
		if got := Estimate(tt.in); got != tt.want {
			t.Errorf("%s: Estimate(%q) = %d, want %d", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestSliceSpecExamples(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"first 3", HeadTokens("alpha beta gamma delta", 3), "alpha beta gamma"},
		{"first 3 via Slice", Slice("alpha beta gamma delta", 0, 3), "alpha beta gamma"},
		{"last 2", TailTokens("alpha beta gamma delta", 2), " gamma delta"},
		{"last 2 via Slice", Slice("alpha beta gamma delta", -2, End), " gamma delta"},
		{"first 1 of a long word", HeadTokens("internationalization", 1), "inter"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func TestSlice(t *testing.T) {
	const text = "alpha beta gamma delta"
	tests := []struct {
		s          string
		start, end int
		want       string
	}{
		{"", 0, End, ""},
		{text, 0, End, text},
		{text, 0, 0, ""},
		{text, 2, 1, ""},
		{text, 1, 3, " beta gamma"},
		{text, -3, -1, " beta gamma"},
		{text, -100, 1, "alpha"},
		{text, 0, -100, ""},
		{text, 4, End, ""},
		{text, 3, End, " delta"},
		{"  a  ", 0, End, "  a  "},
		{"  a  ", 1, End, "  "},
		{"  a  ", 0, 1, "  a"},
		// A cut inside a surrogate pair leaves U+FFFD for the lone half.
		{"😀😀😀😀😀😀x", 0, 1, "😀😀\uFFFD"},
		{"😀😀😀😀😀😀x", 1, 2, "😀😀\uFFFD"},
		{"😀😀😀😀😀😀x", 2, End, "😀😀x"},
		{"x😀😀😀😀😀😀", 2, End, "\uFFFD😀😀"},
	}
	for _, tt := range tests {
		if got := Slice(tt.s, tt.start, tt.end); got != tt.want {
			t.Errorf("Slice(%q, %d, %d) = %q, want %q", tt.s, tt.start, tt.end, got, tt.want)
		}
	}
}

func TestHeadTailTokensNonPositive(t *testing.T) {
	for _, n := range []int{0, -1, -5} {
		if got := HeadTokens("alpha beta", n); got != "" {
			t.Errorf("HeadTokens(_, %d) = %q, want \"\"", n, got)
		}
		if got := TailTokens("alpha beta", n); got != "" {
			t.Errorf("TailTokens(_, %d) = %q, want \"\"", n, got)
		}
	}
}

// TestJSCases checks every function against values produced by the
// JavaScript reference (see jscases_test.go).
func TestJSCases(t *testing.T) {
	for _, c := range jsCases {
		if got := Estimate(c.s); got != c.est {
			t.Errorf("Estimate(%q) = %d, want %d", c.s, got, c.est)
		}
		for _, sl := range c.slices {
			if got := Slice(c.s, sl.start, sl.end); got != sl.want {
				t.Errorf("Slice(%q, %d, %d) = %q, want %q", c.s, sl.start, sl.end, got, sl.want)
			}
		}
		out, truncated, total := LimitHead(c.s, c.limit)
		if out != c.head || truncated != (out != c.s) || total != c.est {
			t.Errorf("LimitHead(%q, %d) = %q, %v, %d; want %q, %v, %d",
				c.s, c.limit, out, truncated, total, c.head, c.head != c.s, c.est)
		}
		out, truncated, total = LimitTail(c.s, c.limit)
		if out != c.tail || truncated != (out != c.s) || total != c.est {
			t.Errorf("LimitTail(%q, %d) = %q, %v, %d; want %q, %v, %d",
				c.s, c.limit, out, truncated, total, c.tail, c.tail != c.s, c.est)
		}
		if got := Sandwich(c.s, c.limit); got != c.sandwich {
			t.Errorf("Sandwich(%q, %d) = %q, want %q", c.s, c.limit, got, c.sandwich)
		}
		if got := TailLines(c.s, c.lines); got != c.tailLines {
			t.Errorf("TailLines(%q, %d) = %q, want %q", c.s, c.lines, got, c.tailLines)
		}
		if got := StripANSI(c.s); got != c.ansi {
			t.Errorf("StripANSI(%q) = %q, want %q", c.s, got, c.ansi)
		}
	}
}

type jsSlice struct {
	start, end int
	want       string
}

type jsCase struct {
	s         string
	est       int
	slices    []jsSlice
	limit     int
	head      string
	tail      string
	sandwich  string
	lines     int
	tailLines string
	ansi      string
}

// replaceInvalid replaces every byte that is not part of valid UTF-8 by
// U+FFFD, one replacement per byte: the view of the text this package
// documents for invalid input.
func replaceInvalid(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var sb strings.Builder
	for _, r := range s {
		sb.WriteRune(r)
	}
	return sb.String()
}

func TestInvalidUTF8(t *testing.T) {
	inputs := []string{
		"\xff", "\xff\xfe\xfd", "abc\xe6\x97", "\xe6\x97\xa5\xe6", "\xed\xa0\x80\xed\xb0\x80",
		"ok \xc0\xaf ok", "\xf0\x9f\x98", "\xf0\x9f\x98\x80\x80", "word\x80word\x80word\x80word",
		"日本\xe8語", "\x1b[31m\xffred",
	}
	for _, s := range inputs {
		fixed := replaceInvalid(s)
		if got, want := Estimate(s), Estimate(fixed); got != want {
			t.Errorf("Estimate(%q) = %d, want %d (as %q)", s, got, want, fixed)
		}
		total := Estimate(s)
		for start := -total - 1; start <= total+1; start++ {
			for end := -total - 1; end <= total+1; end++ {
				got := Slice(s, start, end)
				if replaceInvalid(got) != Slice(fixed, start, end) {
					t.Errorf("Slice(%q, %d, %d) = %q, inconsistent with %q", s, start, end, got, Slice(fixed, start, end))
				}
			}
		}
	}
}

func BenchmarkEstimate(b *testing.B) {
	text := benchText(1 << 20)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Estimate(text)
	}
}

func BenchmarkSandwich(b *testing.B) {
	text := benchText(1 << 20)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Sandwich(text, DefaultMaxOutputTokens)
	}
}

// benchText returns about n bytes of mixed text: mostly Go source, with some
// log lines, prose in a few languages, CJK and emoji.
func benchText(n int) string {
	const chunk = `package main

import (
	"fmt"
	"os"
)

// main prints a greeting — and a few numbers: 3.14159, 42, 1,000,000.
func main() {
	for i := 0; i < 10; i++ {
		fmt.Fprintf(os.Stderr, "iteration %d: value=%v\n", i, compute(i)*2+1)
	}
}

2024-05-01T12:00:00Z INFO  server started on http://localhost:8080/api/v1 (pid=12345)
2024-05-01T12:00:01Z WARN  slow request: GET /users?id=17&sort=desc took 1532ms
Überprüfung der Straßenverkehrsordnung; naïve café à la crème; zażółć gęślą jaźń.
日本語のテキストと中文字符，한국어 문장도 있습니다。 Emoji: 👍🎉😀 done!!!
`
	var sb strings.Builder
	for sb.Len() < n {
		sb.WriteString(chunk)
	}
	return sb.String()
}

// TestExceeds: Exceeds agrees with Estimate at every limit around the
// estimate, on texts of every kind of segment.
func TestExceeds(t *testing.T) {
	texts := []string{"", " ", "a", "hello world", "...!!!", "x := f(a, b) // ok",
		"日本語のテキスト", "mixed 日本 words, and ---- punct", "\xff\xfe bad bytes",
		strings.Repeat("src/pkg/file.go\n", 200)}
	for _, s := range texts {
		n := Estimate(s)
		for limit := max(n-3, -1); limit <= n+3; limit++ {
			if got, want := Exceeds(s, limit), n > limit; got != want {
				t.Errorf("Exceeds(%q, %d) = %v, Estimate is %d", s, limit, got, n)
			}
		}
	}
}
