package tokens

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzSlice checks properties that must hold for any input, valid UTF-8 or
// not: no panic, invalid bytes behave as U+FFFD, full slices are identities,
// and results are substrings of the input except for U+FFFD repairs.
func FuzzSlice(f *testing.F) {
	f.Add("alpha beta gamma delta", 0, 3)
	f.Add("😀😀😀😀😀😀x", 1, 2)
	f.Add("日本語 テキスト\xff", -2, -1)
	f.Add("naïve café, zażółć!!! 12345", 2, 100)
	f.Fuzz(func(t *testing.T, s string, start, end int) {
		fixed := replaceInvalid(s)
		total := Estimate(s)
		if total != Estimate(fixed) {
			t.Fatalf("Estimate(%q) = %d, but %d for %q", s, total, Estimate(fixed), fixed)
		}
		if total > len(s) || total < 0 {
			t.Fatalf("Estimate(%q) = %d out of range", s, total)
		}
		got := Slice(s, start, end)
		if want := Slice(fixed, start, end); replaceInvalid(got) != want {
			t.Fatalf("Slice(%q, %d, %d) = %q, but %q for the repaired text", s, start, end, got, want)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Slice(%q, %d, %d) = %q is not valid UTF-8", s, start, end, got)
		}
		core := strings.TrimPrefix(strings.TrimSuffix(got, "\uFFFD"), "\uFFFD")
		if !strings.Contains(s, core) {
			t.Fatalf("Slice(%q, %d, %d) = %q is not part of the input", s, start, end, got)
		}
		if full := Slice(s, 0, End); full != s {
			t.Fatalf("Slice(%q, 0, End) = %q", s, full)
		}
		if n := max(start, 0) % 64; !strings.HasPrefix(s, strings.TrimSuffix(HeadTokens(s, n), "\uFFFD")) {
			t.Fatalf("HeadTokens(%q, %d) = %q is not a prefix", s, n, HeadTokens(s, n))
		}
		out, truncated, tot := LimitHead(s, end)
		if tot != total || truncated != (out != s) {
			t.Fatalf("LimitHead(%q, %d) = %q, %v, %d", s, end, out, truncated, tot)
		}
		_ = Sandwich(s, end)
		_ = TailLines(s, start)
	})
}
