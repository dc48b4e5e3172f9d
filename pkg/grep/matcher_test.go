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
