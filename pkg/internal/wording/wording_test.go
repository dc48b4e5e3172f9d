package wording

import "testing"

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
