package workspace

import (
	"testing"

	"github.com/wstools/ws/pkg/errs"
)

func TestEditRanges(t *testing.T) {
	tests := []struct {
		content, old, new string
		all               bool
		want              []LineRange
	}{
		{"hello\nworld\n", "world", "there\nfriend", false, []LineRange{{2, 3}}},
		{"foo\nbar\nfoo\n", "foo", "q$&q", true, []LineRange{{1, 1}, {3, 3}}},
		{"hello\nworld\n", "hello", "x", false, []LineRange{{1, 1}}},
		{"a\nb\nc\nd\n", "b\nc\n", "x", false, []LineRange{{2, 3}}}, // the newline at the end stays on line 3
		{"a\nb\nc\nd\n", "b\nc", "1\n2\n3\n4", false, []LineRange{{2, 5}}},
		{"xx\nxx\n", "x", "y", true, []LineRange{{1, 1}, {1, 1}, {2, 2}, {2, 2}}},
		{"a\nXY\nb\nXY\n", "XY\n", "z", true, []LineRange{{2, 2}, {4, 4}}},
	}
	for _, tt := range tests {
		got := editRanges([]byte(tt.content), []byte(tt.old), []byte(tt.new), tt.all)
		if len(got) != len(tt.want) {
			t.Errorf("%q/%q: %v, want %v", tt.content, tt.old, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%q/%q: %v, want %v", tt.content, tt.old, got, tt.want)
				break
			}
		}
	}
}

func TestFindEdit(t *testing.T) {
	tests := []struct {
		content, old, new string
		all               bool
		wantOld, wantNew  string
		fallback          string
		code              errs.Code
	}{
		{"one\r\ntwo\r\n", "one\ntwo", "x\ny", false, "one\r\ntwo", "x\r\ny", fallbackCRLF, ""},
		{"one\ntwo\n", "one\r\ntwo", "x", false, "one\ntwo", "x", fallbackLF, ""},
		{"\uFEFFhello\n", "\uFEFFhello", "bye", false, "\uFEFFhello", "\uFEFFbye", "", ""}, // BOM kept
		{"hello\n", "\uFEFFhello", "bye", false, "hello", "bye", fallbackBOM, ""},
		{"foo\nfoo\n", "foo", "x", false, "", "", "", errs.NotUnique},
		{"foo\r\nbar\r\nfoo\r\nbar\r\n", "foo\nbar", "x", false, "", "", "", errs.NoMatch}, // ambiguous fallback
		{"foo\r\nbar\r\nfoo\r\nbar\r\n", "foo\nbar", "x", true, "foo\r\nbar", "x", fallbackCRLF, ""},
		{"abc", "", "x", false, "", "", "", errs.NoMatch},
		{"abc", "zzz", "x", false, "", "", "", errs.NoMatch},
	}
	for _, tt := range tests {
		m, err := findEdit([]byte(tt.content), []byte(tt.old), []byte(tt.new), tt.all)
		if tt.code != "" {
			if errs.CodeOf(err) != tt.code {
				t.Errorf("%q/%q: err %v, want %s", tt.content, tt.old, err, tt.code)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q/%q: %v", tt.content, tt.old, err)
			continue
		}
		if string(m.old) != tt.wantOld || string(m.new) != tt.wantNew || m.fallback != tt.fallback {
			t.Errorf("%q/%q: matched %q→%q (%s), want %q→%q (%s)", tt.content, tt.old, m.old, m.new, m.fallback, tt.wantOld, tt.wantNew, tt.fallback)
		}
	}
}

func TestFuzzyEdit(t *testing.T) {
	tests := []struct {
		name, content, old, new string
		all                     bool
		want                    string // file after the edit
		kind                    string
		code                    errs.Code
	}{
		{"trailing spaces in file", "a  \nb\t\nc\n", "a\nb\n", "x\n", false, "x\nc\n", fallbackTrailing, ""},
		{"trailing spaces in old", "a\nb\nc\n", "a  \nb \n", "x\n", false, "x\nc\n", fallbackTrailing, ""},
		{"curly quotes inside a line", "say \u201chi\u201d now\n", `say "hi"`, `say "bye"`, false, "say \"bye\" now\n", fallbackPunctuation, ""},
		{"dash and nbsp", "a \u2014 b\u00a0c\n", "a - b c", "z", false, "z\n", fallbackPunctuation, ""},
		{"indentation with spaces into tabs refused", "func f() {\n\tif x {\n\t\treturn\n\t}\n}\n", "if x {\n    return\n}", "if y {\n    return 1\n}", false,
			"", "", errs.NoMatch},
		{"indentation with tabs", "func f() {\n\tif x {\n\t\treturn\n\t}\n}\n", "if x {\n\treturn\n}", "if y {\n\treturn 1\n}", false,
			"func f() {\n\tif y {\n\t\treturn 1\n\t}\n}\n", fallbackIndentation, ""},
		{"indentation shifted", "  a\n    b\n", "a\n  b\n", "c\n  d\n", false, "  c\n    d\n", fallbackIndentation, ""},
		{"crlf kept", "a \r\nb\r\n", "a\nb", "x\ny", false, "x\r\ny\r\n", fallbackTrailing, ""},
		{"ambiguous", "a \na \n", "a", "x", false, "", "", errs.NotUnique},
		{"ambiguous with replace_all", "a \nb\na \n", "a\n", "x\n", true, "x\nb\nx\n", fallbackTrailing, ""},
		{"nothing", "abc\n", "zzz", "x", false, "", "", errs.NoMatch},
	}
	for _, tt := range tests {
		content := []byte(tt.content)
		if _, err := findEdit(content, []byte(tt.old), []byte(tt.new), tt.all); err == nil {
			t.Errorf("%s: the exact search matched; the case does not test a fallback", tt.name)
			continue
		}
		m, err := fuzzyEdit(content, []byte(tt.old), []byte(tt.new), tt.all)
		switch {
		case tt.code == errs.NoMatch:
			if m != nil || err != nil {
				t.Errorf("%s: matched %+v %v", tt.name, m, err)
			}
			continue
		case tt.code != "":
			if errs.CodeOf(err) != tt.code {
				t.Errorf("%s: err %v, want %s", tt.name, err, tt.code)
			}
			continue
		case err != nil || m == nil:
			t.Errorf("%s: no match (%v)", tt.name, err)
			continue
		}
		if got := string(m.splice(content)); got != tt.want || m.kind != tt.kind {
			t.Errorf("%s: %q (%s), want %q (%s)", tt.name, got, m.kind, tt.want, tt.kind)
		}
	}
}
