package wording

import (
	"strings"
	"testing"
)

func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "files"}, {1, "file"}, {2, "files"}, {-1, "files"}} {
		if got := Plural(tc.n, "file", "files"); got != tc.want {
			t.Errorf("Plural(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestShellWord(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"src/cmd", "src/cmd"},
		{"a-b_c.d/E9", "a-b_c.d/E9"},
		{"my dir", "'my dir'"},
		{"it's", `'it'\''s'`},
		{"$HOME", "'$HOME'"},
		{"é", "'é'"},
		{"", ""},
	} {
		if got := ShellWord(tc.in); got != tc.want {
			t.Errorf("ShellWord(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestExcerpt(t *testing.T) {
	long := strings.Repeat("x", 400)
	for _, tc := range []struct{ in, want string }{
		{"exit 3: nope", "exit 3: nope"},
		{"a\x00\x00b\x1b[31mc\td", "ab[31mc\td"},
		{"bad \xff byte", "bad \ufffd byte"},
		{long, long[:300] + "…"},
		{strings.Repeat("x", 299) + "é", strings.Repeat("x", 299) + "…"},
		{"\x00\x00", ""},
	} {
		if got := Excerpt(tc.in, 300); got != tc.want {
			t.Errorf("Excerpt(%.20q) = %.40q, want %.40q", tc.in, got, tc.want)
		}
	}
}
