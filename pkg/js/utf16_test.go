package js

import (
	"math/rand/v2"
	"testing"
	"unicode/utf16"
)

func TestUTF16(t *testing.T) {
	tests := []struct {
		s        string
		len, cut int
		want     string
	}{
		{"abc", 3, 2, "ab"},
		{"é→", 2, 1, "é"},
		{"a👍b", 4, 2, "a\uFFFD"}, // half of the pair
		{"a👍b", 4, 3, "a👍"},
		{"abc", 3, 9, "abc"},
		{"", 0, 0, ""},
		{"a\xffb", 3, 2, "a\xff"},   // an invalid byte is one unit, as its U+FFFD
		{"\xf0\x9fx", 3, 1, "\xf0"}, // a cut-off sequence: one per byte
	}
	for _, tt := range tests {
		if got := UTF16Len(tt.s); got != tt.len {
			t.Errorf("UTF16Len(%q) = %d, want %d", tt.s, got, tt.len)
		}
		if got := CutUTF16(tt.s, tt.cut); got != tt.want {
			t.Errorf("CutUTF16(%q, %d) = %q, want %q", tt.s, tt.cut, got, tt.want)
		}
	}
}

// TestLessUTF16: JavaScript's sort order, by UTF-16 code units, which is
// byte order except where a character at or above U+E000 meets a
// supplementary one (a surrogate pair, D800…, sorts first).
func TestLessUTF16(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"a", "b", true},
		{"b", "a", false},
		{"", "a", true},
		{"a", "a", false},
		{"ab", "abc", true},
		{"x\U00010000", "x\uFFFF", true}, // bytes say the opposite
		{"\uFFFF", "\U00010000", false},
		{"\U00010000", "\uE000", true},
		{"\uD7FF", "\U00010000", true},
		{"é", "\U0001F600", true},
		{"\U0001F600a", "\U0001F600b", true},
	} {
		if got := LessUTF16(tc.a, tc.b); got != tc.want {
			t.Errorf("LessUTF16(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestLessUTF16Total: with names that are not UTF-8 the order is still a
// strict total order (irreflexive, asymmetric, transitive, and two
// different names are never equal), so a sort does not depend on the
// order the names came in.
func TestLessUTF16Total(t *testing.T) {
	names := []string{"", "a", "\xec", "\xed", "\xfe", "\xff", "\xc3", "\xc3\xa9", "é", "\uFFFD", "\uE000",
		"\U00010000", "a\xfe", "a\uFFFD", "a\xec", "\xed\xa0\x80", "z", "\x80"}
	for _, a := range names {
		if LessUTF16(a, a) {
			t.Errorf("LessUTF16(%q, %q)", a, a)
		}
		for _, b := range names {
			if a != b && LessUTF16(a, b) == LessUTF16(b, a) {
				t.Errorf("%q and %q: not ordered one way (%v both ways)", a, b, LessUTF16(a, b))
			}
			for _, c := range names {
				if LessUTF16(a, b) && LessUTF16(b, c) && !LessUTF16(a, c) {
					t.Errorf("%q < %q < %q but not %q < %q", a, b, c, a, c)
				}
			}
		}
	}
}

// TestLessUTF16Shortcut: deciding on the first differing bytes when both
// are ASCII orders every pair as reading all of both names would, for
// names that are not UTF-8 too.
func TestLessUTF16Shortcut(t *testing.T) {
	full := lessRunes // character by character, for any names
	pieces := []string{"a", "b", "A", ".", "\xe2", "\x82", "\xac", "€", "\xff", "\x80", "\U00010000", "\uE000", "é", "\xc3"}
	rng := rand.New(rand.NewPCG(1, 2))
	name := func(prefix string) string {
		s := prefix
		for range rng.IntN(5) {
			s += pieces[rng.IntN(len(pieces))]
		}
		return s
	}
	for range 50000 {
		a := name("")
		b := name(a[:rng.IntN(len(a)+1)]) // often a shared prefix
		if got, want := LessUTF16(a, b), full(a, b); got != want {
			t.Fatalf("LessUTF16(%q, %q) = %v, reading both whole gives %v", a, b, got, want)
		}
	}
}

// TestUTF16OfUTF8 holds UTF16LenUTF8 and SliceUTF16UTF8 to the text they
// stand for: DecodeUTF8's result, measured and cut as UTF-16 units (a
// lone half of a pair read as U+FFFD), on random bytes, valid and not.
func TestUTF16OfUTF8(t *testing.T) {
	pieces := []string{"a", "é", "→", "👍", "\xff", "\xe2\x86", "\xf0\x9f", "\xed\xa0\x80", "\xc0", "\x80", "z", "\xef\xbf\xbd"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		var b []byte
		for n := rng.IntN(12); n > 0; n-- {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		u := utf16.Encode([]rune(DecodeUTF8(b)))
		if got := UTF16LenUTF8(b); got != len(u) {
			t.Fatalf("UTF16LenUTF8(%q) = %d, want %d", b, got, len(u))
		}
		start := rng.IntN(len(u) + 1)
		end := start + rng.IntN(len(u)-start+2)
		want := string(utf16.Decode(u[start:min(end, len(u))]))
		if got := SliceUTF16UTF8(b, start, end); got != want {
			t.Fatalf("SliceUTF16UTF8(%q, %d, %d) = %q, want %q", b, start, end, got, want)
		}
	}
}
