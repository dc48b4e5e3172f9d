package workspace

import (
	"testing"
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
		code              Code
	}{
		{"one\r\ntwo\r\n", "one\ntwo", "x\ny", false, "one\r\ntwo", "x\r\ny", fallbackCRLF, ""},
		{"one\ntwo\n", "one\r\ntwo", "x", false, "one\ntwo", "x", fallbackLF, ""},
		{"\uFEFFhello\n", "\uFEFFhello", "bye", false, "\uFEFFhello", "\uFEFFbye", "", ""}, // BOM kept
		{"hello\n", "\uFEFFhello", "bye", false, "hello", "bye", fallbackBOM, ""},
		{"foo\nfoo\n", "foo", "x", false, "", "", "", NotUnique},
		{"foo\r\nbar\r\nfoo\r\nbar\r\n", "foo\nbar", "x", false, "", "", "", NoMatch}, // ambiguous fallback
		{"foo\r\nbar\r\nfoo\r\nbar\r\n", "foo\nbar", "x", true, "foo\r\nbar", "x", fallbackCRLF, ""},
		{"abc", "", "x", false, "", "", "", NoMatch},
		{"abc", "zzz", "x", false, "", "", "", NoMatch},
	}
	for _, tt := range tests {
		m, err := findEdit([]byte(tt.content), []byte(tt.old), []byte(tt.new), tt.all)
		if tt.code != "" {
			if CodeOf(err) != tt.code {
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
