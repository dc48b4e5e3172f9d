package grep

import (
	"fmt"
	"testing"
)

func TestScan(t *testing.T) {
	// Each case: a pattern (fold: case-insensitive) scanned over buf, at
	// most limit hits; want is the hits as fmt prints them.
	tests := []struct {
		pattern, buf, want string
		fold               bool
		limit              int
	}{
		{"TODO", "a\nTODO x\nb TODO\n", "[{1 0} {2 2}]", false, 0},
		{"TODO", "a\nTODO x\nb TODO\n", "[{1 0}]", false, 1},
		{`func \w+\(`, "x\nfunc a() {}\n  func b(\n", "[{1 0} {2 2}]", false, 0},
		{"todo", "TODO\nToDo\nnone\n", "[{0 0} {1 0}]", true, 0},
		{`(?<=a)b`, "ab\ncb\nab\n", "[{0 1} {2 1}]", false, 0}, // lookbehind: the ECMAScript engine
		{`(\w)\1`, "xx\nxy\n", "[{0 0}]", false, 0},            // backreference
		{`^`, "a\nb\n", "[{0 0} {1 0}]", false, 0},             // no line after the final newline
		{`a\nb`, "a\nb\nab\n", "[]", false, 0},                 // a match across lines is no match
		{`b$`, "ab\ncb", "[{0 1} {1 1}]", false, 0},            // last line without newline
		{`é`, "café\n", "[{0 3}]", false, 0},                   // byte columns
		{`needle`, "hay\nhay\n", "[]", false, 0},               // required literal missing: one search
	}
	for _, tt := range tests {
		m, err := Compile(tt.pattern, !tt.fold)
		if err != nil {
			t.Fatalf("%s: %v", tt.pattern, err)
		}
		hits, err := m.Scan([]byte(tt.buf), tt.limit)
		if got := fmt.Sprint(hits); err != nil || got != tt.want && !(got == "[]" && tt.want == "[]") {
			t.Errorf("Scan(%q, %q) = %s, %v, want %s", tt.pattern, tt.buf, got, err, tt.want)
		}
	}
	if _, err := Compile("a(", true); err == nil || err.Error() != "Error: Invalid regex pattern: error parsing regexp: missing closing ): `a(`" {
		t.Errorf("bad pattern: %v", err)
	}
	// MatchLen: by the regexp, or for a pattern that is one literal by
	// the literal itself, in either case with -i; a col where the
	// literal does not stand goes to the regexp (no match: 0).
	for _, tc := range []struct {
		pattern, line string
		fold          bool
		col, want     int
	}{
		{`b+`, "abbbc", false, 1, 3},
		{`TODO`, "x TODO y", false, 2, 4},
		{`todo`, "x ToDo y", true, 2, 4},
		{`TODO`, "x TODO", false, 1, 0},
		{`TODO`, "x TOD", false, 2, 0},
		{`(?<=a)TODO`, "aTODO", false, 1, 4},
	} {
		m, err := Compile(tc.pattern, !tc.fold)
		if err != nil {
			t.Fatal(err)
		}
		if n := m.MatchLen([]byte(tc.line), tc.col); n != tc.want {
			t.Errorf("MatchLen(%q, %q, %d) = %d, want %d", tc.pattern, tc.line, tc.col, n, tc.want)
		}
	}
}

func TestLinesAndBinary(t *testing.T) {
	li := IndexLines([]byte("a\nbb\n"))
	if li.Count() != 2 || string(li.Get([]byte("a\nbb\n"), 1)) != "bb" {
		t.Errorf("lines: %d", li.Count())
	}
	for head, want := range map[string]bool{"plain text\n": false, "a\x00b": true, "%PDF-1.7\n\x00": true, "\x89PNG\r\n\x1a\n": true} {
		if got := IsBinary("f", []byte(head)); got != want {
			t.Errorf("IsBinary(%q) = %v", head, got)
		}
	}
}

// TestJSClasses checks that `\s`, `\S` and `.` mean what they mean in a
// JavaScript RegExp (the tool's flavour), whichever engine runs the
// pattern: `\s` is Unicode's spaces and line ends (no-break space,
// vertical tab, U+2028, the ideographic space, the BOM …), `.` is any
// character but a line end (\n, \r, U+2028, U+2029). Each want is the
// byte column node gives (-1: no match).
func TestJSClasses(t *testing.T) {
	tests := []struct {
		pattern, line string
		want          int
	}{
		{`foo\sbar`, "foo bar", 0},
		{`foo\sbar`, "foo\u00a0bar", 0},
		{`foo\sbar`, "foo\vbar", 0},
		{`foo\sbar`, "foo\u2028bar", 0},
		{`foo\sbar`, "foo\u3000bar", 0},
		{`foo\sbar`, "foo\ufeffbar", 0},
		{`foo\sbar`, "foo\u0085bar", -1}, // NEL is not a JavaScript space
		{`foo\Sbar`, "foo\u00a0bar", -1},
		{`foo\Sbar`, "foo.bar", 0},
		{`foo[\s]bar`, "foo\u2000bar", 0},
		{`foo[^\s]bar`, "foo\u202fbar", -1},
		{`foo[x\S]bar`, "foo\u00a0bar", -1}, // \S inside a class: the ECMAScript engine
		{`foo[x\S]bar`, "foo-bar", 0},
		{`^\s*$`, "\u00a0\t ", 0},
		{`c.$`, "abc\r", -1}, // a CRLF line: '.' is not the '\r'
		{`c\r$`, "abc\r", 2},
		{`x.y`, "x\u2029y", -1},
		{`x.y`, "x\u00a0y", 0},
		{`x[.]y`, "x.y", 0},  // '.' in a class is a dot
		{`x\.y`, "x\ry", -1}, // an escaped dot is a dot
		{`\Q.\E`, "\r.", 1},  // RE2's quoting keeps its dot
		{`\\.`, "\\\r", -1},  // an escaped backslash, then any character
		{`[\]]\s`, "]\u00a0", 0},
		{`[[:alpha:]].`, "a\r", -1},
		{`\u00a0\s`, "\u00a0\u00a0", 0}, // ECMAScript engine (\u escape)
		{`(?<=a).b`, "a\rb", -1},
		{`[]a]`, "a]", -1}, // an empty class matches nothing
		{`[]a]`, "]", -1},
		{`a[]`, "a", -1},
		{`x[^]y`, "x\ry", 0}, // [^] is any character
		{`x[^]y`, "xzy", 0},
		{`^[^]*$`, "abc", 0},
		{`[[]]`, "[]", 0}, // a class holding '[', then ']'
	}
	for _, tt := range tests {
		for _, cs := range []bool{true, false} {
			m, err := Compile(tt.pattern, cs)
			if err != nil {
				t.Fatalf("%s: %v", tt.pattern, err)
			}
			if got, _ := m.FirstInLine([]byte(tt.line)); got != tt.want {
				t.Errorf("FirstInLine(%q, %q, caseSensitive=%v) = %d, want %d", tt.pattern, tt.line, cs, got, tt.want)
			}
			hits, _ := m.Scan([]byte(tt.line+"\n"+tt.line), 0)
			want := 2
			if tt.want < 0 {
				want = 0
			}
			if len(hits) != want {
				t.Errorf("Scan(%q, %q, caseSensitive=%v) = %v, want %d hits", tt.pattern, tt.line, cs, hits, want)
			}
		}
	}
}
