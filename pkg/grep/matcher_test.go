package grep

import (
	"fmt"
	"testing"
)

func TestScan(t *testing.T) {
	tests := []struct {
		pattern string
		fold    bool
		buf     string
		limit   int
		want    string
	}{
		{"TODO", false, "a\nTODO x\nb TODO\n", 0, "[{1 0} {2 2}]"},
		{"TODO", false, "a\nTODO x\nb TODO\n", 1, "[{1 0}]"},
		{`func \w+\(`, false, "x\nfunc a() {}\n  func b(\n", 0, "[{1 0} {2 2}]"},
		{"todo", true, "TODO\nToDo\nnone\n", 0, "[{0 0} {1 0}]"},
		{`(?<=a)b`, false, "ab\ncb\nab\n", 0, "[{0 1} {2 1}]"}, // lookbehind: the ECMAScript engine
		{`(\w)\1`, false, "xx\nxy\n", 0, "[{0 0}]"},            // backreference
		{`^`, false, "a\nb\n", 0, "[{0 0} {1 0}]"},             // no line after the final newline
		{`a\nb`, false, "a\nb\nab\n", 0, "[]"},                 // a match across lines is no match
		{`b$`, false, "ab\ncb", 0, "[{0 1} {1 1}]"},            // last line without newline
		{`é`, false, "café\n", 0, "[{0 3}]"},                   // byte columns
		{`needle`, false, "hay\nhay\n", 0, "[]"},               // required literal missing: one search
	}
	for _, tt := range tests {
		m, err := Compile(tt.pattern, !tt.fold)
		if err != nil {
			t.Fatalf("%s: %v", tt.pattern, err)
		}
		if got := fmt.Sprint(m.Scan([]byte(tt.buf), tt.limit)); got != tt.want && !(got == "[]" && tt.want == "[]") {
			t.Errorf("Scan(%q, %q) = %s, want %s", tt.pattern, tt.buf, got, tt.want)
		}
	}
	if _, err := Compile("a(", true); err == nil || err.Error() != "Error: Invalid regex pattern: error parsing regexp: missing closing ): `a(`" {
		t.Errorf("bad pattern: %v", err)
	}
	m, _ := Compile(`b+`, true)
	if n := m.MatchLen([]byte("abbbc"), 1); n != 3 {
		t.Errorf("MatchLen = %d", n)
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
