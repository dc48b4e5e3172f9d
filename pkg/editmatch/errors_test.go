package editmatch

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// checkRefusal checks that err is an *E (a *NotFoundError or an
// *AmbiguousError) whose fields are want's and, when text is set, whose
// whole text is text.
func checkRefusal[E any, P interface {
	*E
	error
}](t *testing.T, err error, want E, text string) {
	t.Helper()
	var e P
	if !errors.As(err, &e) {
		t.Fatalf("error %v, want %T", err, e)
	}
	if !reflect.DeepEqual(*e, want) {
		t.Errorf("fields\n got %+v\nwant %+v", *e, want)
	}
	if text != "" && err.Error() != text {
		t.Errorf("text\n got %q\nwant %q", err.Error(), text)
	}
}

func TestNotFoundFields(t *testing.T) {
	tests := []struct {
		name              string
		content, old, new string
		want              NotFoundError
		text              string // the whole Error() text
	}{
		{"first differing line", "def f():\n    x = 1\n    y = 2\n", "def f():\n    x = 1\n    y = 3", "z",
			NotFoundError{CandidateStart: 1, CandidateEnd: 3, DiffLine: 3, FileLine: "    y = 2", OldLine: "    y = 3"},
			notFoundText + "\nThe closest text is at lines 1-3; it first differs at line 3:\n  file:           y = 2\n  old_string:     y = 3"},
		{"invisibles", "a\n\tb  \r\nc\n", "a\n  bb\nc", "x",
			NotFoundError{CandidateStart: 1, CandidateEnd: 3, DiffLine: 2, FileLine: "\tb  ", OldLine: "  bb"},
			notFoundText + "\nThe closest text is at lines 1-3; it first differs at line 2:\n  file:       →b··\n  old_string:   bb\n  (→ is a tab, · a trailing space, \\r a carriage return, <U+XXXX> an invisible character)"},
		{"the file ends first", "a\nb\n", "a\nb\nc", "x",
			NotFoundError{CandidateStart: 1, CandidateEnd: 2, OldLine: "c"},
			notFoundText + "\nThe closest text is at lines 1-2; the file ends before old_string does:\n  file:       (end of file)\n  old_string: c"},
		{"a similar line when none is equal", "x = 1\nreturn compute(a, b)\ny = 2\n", "return compute(a, c)", "z",
			NotFoundError{CandidateStart: 2, CandidateEnd: 2, DiffLine: 2, FileLine: "return compute(a, b)", OldLine: "return compute(a, c)"}, ""},
		{"nothing alike", "abc\n", "zzz qqq", "y", NotFoundError{}, notFoundText},
		{"elision", "f() {\n  a()\n  b()\n}\n", "f() {\n  // ... existing code ...\n  b()\n}", "x",
			NotFoundError{CandidateStart: 1, CandidateEnd: 4, DiffLine: 2, FileLine: "  a()", OldLine: "  // ... existing code ...", Elided: true, Marker: "  // ... existing code ..."}, ""},
		{"already applied", "a\nb := 3\nc\n", "b := 2", "b := 3",
			NotFoundError{AlreadyApplied: &Range{2, 2}, CandidateStart: 2, CandidateEnd: 2, DiffLine: 2, FileLine: "b := 3", OldLine: "b := 2"}, ""},
		{"already applied, loosely", "a\r\nb := 3\r\nc := 4\r\n", "b := 2\nc := 4", "b := 3\nc := 4",
			NotFoundError{AlreadyApplied: &Range{2, 3}, CandidateStart: 2, CandidateEnd: 3, DiffLine: 2, FileLine: "b := 3", OldLine: "b := 2"}, ""},
		{"empty old_string", "abc", "", "x", NotFoundError{Reason: "old_string is empty."}, notFoundText + "\nold_string is empty."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Apply([]byte(tt.content), tt.old, tt.new, false)
			checkRefusal(t, err, tt.want, tt.text)
		})
	}
}

func TestNotFoundText(t *testing.T) {
	e := &NotFoundError{Elided: true, Marker: "\t// ...", AlreadyApplied: &Range{4, 6}, Stale: true}
	want := notFoundText +
		"\nold_string contains \"// ...\", which looks like an elision: old_string must be the literal text from the file, not an abbreviation. Copy every line of the block in full." +
		"\nnew_string is already present at lines 4-6; the edit may have been applied already." +
		"\nThe file has changed since you last read it; read it again before editing."
	if got := e.Error(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	e = &NotFoundError{CandidateStart: 3, CandidateEnd: 3, Reason: "Because."}
	if got, want := e.Error(), notFoundText+"\nBecause.\nThe closest text is at line 3."; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestAmbiguousFields(t *testing.T) {
	tests := []struct {
		name, content, old string
		all                bool
		want               AmbiguousError
		text               string // the whole Error() text
	}{
		{"exact", "x\ny\nx\nx\n", "x", false,
			AmbiguousError{Count: 3, Lines: []Range{{1, 1}, {3, 3}, {4, 4}}, Times: []int{1, 1, 1}},
			"The specified text appears 3 times. Provide more surrounding context to make the match unique, or use replace_all to replace all occurrences.\nIt appears at line 1, line 3, line 4."},
		{"across levels", "a \nb\n\n  a\n  b\n", "a\nb", false,
			AmbiguousError{Count: 2, Lines: []Range{{1, 2}, {4, 5}}, Times: []int{1, 1}, Fallbacks: []string{FallbackTrailingWhitespace, FallbackIndentation}},
			"The specified text was not found exactly, and with formatting differences ignored it matches 2 places: lines 1-2 (trailing-whitespace), lines 4-5 (indentation). Provide more surrounding context to make the match unique."},
		{"one level", "a \nb\na \nb\n", "a\nb", false,
			AmbiguousError{Count: 2, Lines: []Range{{1, 2}, {3, 4}}, Times: []int{1, 1}, Fallbacks: []string{FallbackTrailingWhitespace, FallbackTrailingWhitespace}},
			"The specified text was not found exactly, and with formatting differences ignored it matches 2 places: lines 1-2 (trailing-whitespace), lines 3-4 (trailing-whitespace). Provide more surrounding context to make the match unique. To change all of them, use replace_all."},
		{"replace_all across levels", "a \nb\n\n  a\n  b\n", "a\nb", true,
			AmbiguousError{Count: 2, Lines: []Range{{1, 2}, {4, 5}}, Times: []int{1, 1}, Fallbacks: []string{FallbackTrailingWhitespace, FallbackIndentation}, ReplaceAll: true}, ""},
		{"replace_all, overlapping", "a \na \na \n", "a\na", true,
			AmbiguousError{Count: 2, Lines: []Range{{1, 2}, {2, 3}}, Times: []int{1, 1}, Fallbacks: []string{FallbackTrailingWhitespace, FallbackTrailingWhitespace}, ReplaceAll: true, Overlap: true}, ""},
		{"exact, several on one line", "aaaa\nb\na\n", "a", false,
			AmbiguousError{Count: 5, Lines: []Range{{1, 1}, {3, 3}}, Times: []int{4, 1}},
			"The specified text appears 5 times. Provide more surrounding context to make the match unique, or use replace_all to replace all occurrences.\nIt appears at line 1 (4 times), line 3."},
		{"exact, all on one line", strings.Repeat("a", 4_250_000), "a", false,
			AmbiguousError{Count: 4_250_000, Lines: []Range{{1, 1}}, Times: []int{4_250_000}},
			"The specified text appears 4250000 times. Provide more surrounding context to make the match unique, or use replace_all to replace all occurrences.\nIt appears at line 1 (4,250,000 times)."},
		{"exact, multi-line, not grouped", "a\nb\na\nb\n", "a\nb", false,
			AmbiguousError{Count: 2, Lines: []Range{{1, 2}, {3, 4}}, Times: []int{1, 1}},
			"The specified text appears 2 times. Provide more surrounding context to make the match unique, or use replace_all to replace all occurrences.\nIt appears at lines 1-2, lines 3-4."},
		{"fallback, several on one line", "x = \u201ca\u201d + \u201ca\u201d\ny\n\u201ca\u201d\n", `"a"`, false,
			AmbiguousError{Count: 3, Lines: []Range{{1, 1}, {3, 3}}, Times: []int{2, 1}, Fallbacks: []string{FallbackUnicode, FallbackUnicode}},
			"The specified text was not found exactly, and with formatting differences ignored it matches 3 places: line 1 (2 times, unicode), line 3 (unicode). Provide more surrounding context to make the match unique. To change all of them, use replace_all."},
		{"fallback, one line past the count limit", strings.Repeat("\u201ca\u201d ", 1500) + "\n", `"a"`, false,
			AmbiguousError{Count: 1500, Lines: []Range{{1, 1}}, Times: []int{1500}, Fallbacks: []string{FallbackUnicode}},
			"The specified text was not found exactly, and with formatting differences ignored it matches 1,500 places: line 1 (1,500 times, unicode). Provide more surrounding context to make the match unique. To change all of them, use replace_all."},
		{"fallback, counting stopped", strings.Repeat("\u201ca\u201d ", 1500) + "\n\u201ca\u201d\n", `"a"`, false,
			AmbiguousError{Count: 1500, AtLeast: true, Lines: []Range{{1, 1}}, Times: []int{1500}, Fallbacks: []string{FallbackUnicode}},
			"The specified text was not found exactly, and with formatting differences ignored it matches at least 1,500 places: line 1 (1,500 times, unicode), …. Provide more surrounding context to make the match unique. To change all of them, use replace_all."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Apply([]byte(tt.content), tt.old, "z", tt.all)
			checkRefusal(t, err, tt.want, tt.text)
		})
	}
}

func TestAmbiguousListCapped(t *testing.T) {
	content := strings.Repeat("x \ny\n", 30)
	_, err := Apply([]byte(content), "x\ny", "z", false)
	var am *AmbiguousError
	if !errors.As(err, &am) || am.Count != 30 || len(am.Lines) != 20 || len(am.Fallbacks) != 20 {
		t.Fatalf("got %#v", err)
	}
	if !strings.Contains(err.Error(), "lines 39-40 (trailing-whitespace), …. Provide") {
		t.Errorf("text %q", err.Error())
	}
}

// TestAmbiguousListGrouped checks that the list stops after 20 entries of
// places on the same lines, each counted in full, and says there are more.
func TestAmbiguousListGrouped(t *testing.T) {
	tests := []struct {
		name, content, old string
		lines              int    // entries listed
		text               string // the end of the text
	}{
		{"exact", strings.Repeat("a a\n", 30), "a", 20,
			"line 19 (2 times), line 20 (2 times), …."},
		{"exact, the last listed line long", strings.Repeat("a\n", 19) + strings.Repeat("a", 5000) + "\na\n", "a", 20,
			"line 19, line 20 (5,000 times), …."},
		{"exact, nothing more", strings.Repeat("a\n", 19) + strings.Repeat("a", 5000) + "\n", "a", 20,
			"line 19, line 20 (5,000 times)."},
		{"fallback", strings.Repeat("\u201ca\u201d \u201ca\u201d\n", 30), `"a"`, 20,
			"line 20 (2 times, unicode), …. Provide more surrounding context to make the match unique. To change all of them, use replace_all."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Apply([]byte(tt.content), tt.old, "z", false)
			var am *AmbiguousError
			if !errors.As(err, &am) || len(am.Lines) != tt.lines || len(am.Times) != tt.lines {
				t.Fatalf("got %#v", err)
			}
			if !strings.HasSuffix(err.Error(), tt.text) {
				t.Errorf("text %q\nwant it to end %q", err.Error(), tt.text)
			}
		})
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 1500: "1,500",
		999999: "999,999", 4_250_000: "4,250,000", 1234567890: "1,234,567,890", -1234: "-1,234"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestVisible(t *testing.T) {
	tests := []struct {
		in, want string
		changed  bool
	}{
		{"plain", "plain", false},
		{"\tx", "→x", true},
		{"x  ", "x··", true},
		{"a b", "a b", false},
		{"x\r", `x\r`, true},
		{"a\u00a0b", "a<U+00A0>b", true},
		{"a\u200bb", "a<U+200B>b", true},
		{"\xff", `\xff`, true},
		{strings.Repeat("a", 200), strings.Repeat("a", maxShown) + "…", false},
	}
	for _, tt := range tests {
		got, changed := visible(tt.in)
		if got != tt.want || changed != tt.changed {
			t.Errorf("visible(%q) = %q, %v; want %q, %v", tt.in, got, changed, tt.want, tt.changed)
		}
	}
}

func TestFallbacks(t *testing.T) {
	want := []string{"line-endings", "bom", "trailing-whitespace", "indentation", "gutter", "escapes", "blank-lines", "unicode", "normalization"}
	if got := Fallbacks(); !reflect.DeepEqual(got, want) {
		t.Errorf("Fallbacks() = %v", got)
	}
	Fallbacks()[0] = "changed"
	if Fallbacks()[0] != "line-endings" {
		t.Error("Fallbacks returns the package's own slice")
	}
}

func TestNote(t *testing.T) {
	tests := []struct {
		content, old, new string
		want              string
	}{
		{"a\r\n\tb\r\n", "a\n    b", "a\n    c",
			"No exact match; old_string matched ignoring line endings and indentation (fallback indentation). Kept the file's CRLF line endings and tab indentation (new_string re-indented). Lines new_string leaves as they were keep the file's text."},
		{"\uFEFFa \nb", "a\nb", "a\nc",
			"No exact match; old_string matched ignoring trailing whitespace (fallback trailing-whitespace). Kept the file's byte-order mark and no final newline. Lines new_string leaves as they were keep the file's text."},
		{"x\ny\n", "     1→x", "z",
			"No exact match; old_string matched ignoring line-number gutters copied from read output (fallback gutter)."},
	}
	for _, tt := range tests {
		m, err := Apply([]byte(tt.content), tt.old, tt.new, false)
		if err != nil {
			t.Fatalf("%q: %v", tt.old, err)
		}
		if m.Note != tt.want {
			t.Errorf("%q:\n got %q\nwant %q", tt.old, m.Note, tt.want)
		}
	}
}

// Odd inputs must give an answer, never a panic, and never touch the
// caller's bytes.
func TestEdgeCases(t *testing.T) {
	tests := []struct {
		content, old, new string
		all               bool
	}{
		// An empty file, a byte-order mark alone.
		{"", "x", "y", false}, {"", "\n", "y", true}, {"\uFEFF", "\uFEFF", "", false}, {"\uFEFF", "x", "", false},
		// Line breaks only, carriage returns alone.
		{"\n\n\n", "\n\n", "x", true}, {"\r\n\r\n", "\n", "x", false}, {"x\r", "x\n", "y", false}, {"a\rb\n", "a\rb", "c", false},
		// Bytes that are not UTF-8, white space only.
		{"\xff\xfe\n", "\xff\xfe\r\n", "x", false}, {"abc", "\xff", "x", false}, {"  \n\t\n", "  \n\t", "x", false},
		// A gutter or escapes that are the file's own text.
		{"     1→a\n", "     1→a", "b", false}, {"a\n", `a\n`, `b\n`, false},
		// Combining marks.
		{"é\n", "e\u0301\n", "x", false}, {"e\u0301\n", "\u0301", "x", false},
		// old_string longer than the file, or with blank lines the file lacks or has more of.
		{"a", "a\nb\nc", "y", false}, {"x", "x\n\n\n\n", "y", false}, {"a\n\n\n\n\n\n\n\nb\n", "a\nb", "c", false},
	}
	for _, tt := range tests {
		checkApply(t, []byte(tt.content), tt.old, tt.new, tt.all)
	}
}
