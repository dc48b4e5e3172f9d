package wording

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestStringWords: what FirstLine, ShellWord, OneLine and Closest give
// for each case's in.
func TestStringWords(t *testing.T) {
	type wordCase struct{ in, want string }
	known := []string{"wording.go", "wording_test.go", "README.md", "main.go", "mian.go", "a", "tools"}
	for _, fc := range []struct {
		name  string
		fn    func(string) string
		cases []wordCase
	}{{
		name: "FirstLine", fn: FirstLine,
		cases: []wordCase{
			{"", ""},
			{"one", "one"},
			{"\n  \n\t two  \nthree\n", "two"},
			{"a\r\nb", "a"},
			{" \n\t\n", ""},
		},
	}, {
		name: "ShellWord", fn: ShellWord,
		cases: []wordCase{
			{"src/cmd", "src/cmd"},
			{"a-b_c.d/E9", "a-b_c.d/E9"},
			{"my dir", "'my dir'"},
			{"it's", `'it'\''s'`},
			{"$HOME", "'$HOME'"},
			{"é", "'é'"},
			{"", ""},
		},
	}, {
		name: "OneLine", fn: OneLine,
		cases: []wordCase{
			{"echo 'a  b'", "echo 'a  b'"},
			{"for i in 1 2\ndo\n  echo $i\ndone", "for i in 1 2 do echo $i done"},
			{"a\tb \r\n c", "a b c"},
			{"  lead", "  lead"},
			{"", ""},
			// Other control characters show as ?, as ps(1) shows them: a
			// command's escape sequence must not drive the terminal that
			// shows the table (a title, a colour, the cursor).
			{"echo \x1b[31mred\x1b[0m", "echo ?[31mred?[0m"},
			{"printf '\x1b]0;title\x07'", "printf '?]0;title?'"},
			{"a\x00b\x7fc", "a?b?c"},
			{"csi \u009b2J, nel \u0085", "csi ?2J, nel ?"},
			{"caf\u00e9 \xff\xfe", "caf\u00e9 \xff\xfe"}, // text and bytes that are no character stay
		},
	}, {
		name: "Name", fn: Name,
		cases: []wordCase{
			{"src/main.go", "src/main.go"},
			{"my file (1).txt", "my file (1).txt"},
			{`say "hi".txt`, `say "hi".txt`}, // a quote inside reads as itself
			{`back\slash`, `back\slash`},     // so does a backslash
			{"caf\u00e9 \u65e5\u672c.md", "caf\u00e9 \u65e5\u672c.md"},
			{"bad\xffname", "bad\xffname"},   // bytes that are no character stay, for a script
			{"\u200d\u200c", "\u200d\u200c"}, // the joiners emoji and Persian need
			{"a\nb.txt", `"a\nb.txt"`},       // a newline would make a second name
			{"tab\tx", `"tab\tx"`},
			{"cr\r, bs\b, ff\f", `"cr\r, bs\b, ff\f"`},
			{"esc\x1b[31mred", `"esc\u001b[31mred"`}, // no escape sequence reaches the terminal
			{"del\x7f, nul\x00", `"del\u007f, nul\u0000"`},
			{"csi \u009b2J", `"csi \u009b2J"`},
			{"invoice\u202etxt.exe", `"invoice\u202etxt.exe"`}, // a right-to-left override
			{"zero\u200bwidth\ufeff", `"zero\u200bwidth\ufeff"`},
			{"line\u2028sep", `"line\u2028sep"`},
			{`"quoted"`, `"\"quoted\""`}, // a leading quote is quoted, so the form is never in doubt
			{"a\n\\\"b\xff", `"a\n\\\"b\xff"`},
			{"", ""},
		},
	}, {
		name: "Closest", fn: func(word string) string { return Closest(word, known) },
		cases: []wordCase{
			{"wordng.go", "wording.go"}, // a letter left out
			{"wrodings.go", ""},         // three off: too far
			{"readme.md", "README.md"},  // case alone
			{"wording_tset.go", "wording_test.go"},
			{"man.go", ""},    // one off from main.go and from mian.go: no telling
			{"b", ""},         // one off, but a third of a one-letter word is none
			{"tool", "tools"}, // one off in four letters
			{"", ""},
		},
	}} {
		t.Run(fc.name, func(t *testing.T) {
			for _, tc := range fc.cases {
				if got := fc.fn(tc.in); got != tc.want {
					t.Errorf("%s(%q) = %q, want %q", fc.name, tc.in, got, tc.want)
				}
			}
		})
	}
}

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

func TestJoinAnd(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"a"}, "a"},
		{[]string{"a", "b"}, "a and b"},
		{[]string{"a", "b", "c"}, "a, b and c"},
		{[]string{"1", "2", "3", "4"}, "1, 2, 3 and 4"},
	} {
		if got := JoinAnd(tc.in); got != tc.want {
			t.Errorf("JoinAnd(%q) = %q, want %q", tc.in, got, tc.want)
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

func TestCut(t *testing.T) {
	tests := []struct {
		s             string
		from, to      int
		part          string
		before, after bool
	}{
		{"abcdef", 0, 6, "abcdef", false, false},
		{"abcdef", 2, 4, "cd", true, true},
		{"abcdef", 0, 3, "abc", false, true},
		{"abcdef", 3, 99, "def", true, false},
		{"abcdef", -5, 2, "ab", false, true},
		{"aé→b", 2, 5, "é", true, true}, // from inside é and to inside → move back
		{"aé→b", 1, 4, "é", true, true}, // to inside → cut before →
		{"→", 1, 2, "", false, true},    // both inside one character
		{"", 0, 10, "", false, false},
		// Bytes no valid character holds are cut where they stand.
		{"\x80\x80\x80", 0, 2, "\x80\x80", false, true},
		{"\x80\x80\x80", 1, 2, "\x80", true, true},
		{"a\x80\x80b", 0, 2, "a\x80", false, true},
		{"\xe2\x86\x92\x92x", 0, 4, "\xe2\x86\x92\x92", false, true},
	}
	for _, tt := range tests {
		part, before, after := Cut(tt.s, tt.from, tt.to)
		if part != tt.part || before != tt.before || after != tt.after {
			t.Errorf("Cut(%q, %d, %d) = %q %v %v, want %q %v %v", tt.s, tt.from, tt.to, part, before, after, tt.part, tt.before, tt.after)
		}
	}
}

func TestMiddle(t *testing.T) {
	for _, tc := range []struct {
		s    string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefghij", 10, "abcdefghij"},
		{"abcdefghijk", 10, "abcde…ghijk"},
		{"ééééééé", 6, "é…éé"}, // never half a character
		{strings.Repeat("d/", 5000) + "deep.txt", 20, "d/d/d/d/d/…d/deep.txt"},
	} {
		if got := Middle(tc.s, tc.max); got != tc.want {
			t.Errorf("Middle(%.20q, %d) = %q, want %q", tc.s, tc.max, got, tc.want)
		}
	}
}

// TestNameIsJSON: a quoted name of valid UTF-8 is a JSON string that
// decodes to the name, so a model can pass it back as a path.
func TestNameIsJSON(t *testing.T) {
	for _, name := range []string{"a\nb", "esc\x1b[0m", "\u202e\u2066x", `"q"\`, "t\t\r\b\f\x00\x7f\u0085"} {
		q := Name(name)
		var back string
		if err := json.Unmarshal([]byte(q), &back); err != nil || back != name {
			t.Errorf("Name(%q) = %s: decodes to %q, %v", name, q, back, err)
		}
	}
}

// TestUnname: Unname undoes Name for every name Name quotes, bytes that
// are not UTF-8 included, and takes nothing Name would not write.
func TestUnname(t *testing.T) {
	names := []string{"a\nb", "esc\x1b[0m", "\u202ex", `"q"\`, "t\t\r\b\f\x00\x7f\u0085", "bad\xff\nx", "\xc3\n"}
	for i := range 256 {
		names = append(names, "x"+string([]byte{byte(i)})+"\n")
	}
	for _, name := range names {
		q := Name(name)
		if back, ok := Unname(q); !ok || back != name {
			t.Errorf("Unname(Name(%q) = %s) = %q, %v", name, q, back, ok)
		}
	}
	for _, bad := range []string{"", `"`, `plain`, `"a\"`, `"a\q"`, `"a\u12"`, `"a\x1"`, `"a"b"`, `"\`} {
		if got, ok := Unname(bad); ok {
			t.Errorf("Unname(%s) = %q, want not ok", bad, got)
		}
	}
	for in, want := range map[string]string{"src/a.go": "src/a.go", "my dir": "'my dir'", "a\nb's": `$'a\nb\'s'`, "\x1b": `$'\u001b'`} {
		if got := ShellName(in); got != want {
			t.Errorf("ShellName(%q) = %s, want %s", in, got, want)
		}
	}
}
