package workspace

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestLineReader(t *testing.T) {
	long := strings.Repeat("y", 50)
	tests := []struct {
		name    string
		in      string
		skip    int
		want    []string // lines returned by next after skipping
		wantCnt int      // lines counted after reading want
	}{
		{"empty", "", 0, nil, 0},
		{"one newline", "\n", 0, []string{""}, 0},
		{"trailing newline", "a\nb\n", 0, []string{"a", "b"}, 0},
		{"no trailing newline", "a\nb", 0, []string{"a", "b"}, 0},
		{"skip", "a\nb\nc\n", 2, []string{"c"}, 0},
		{"skip past end", "a\nb\n", 5, nil, 0},
		{"skip partial last", "a\nb", 2, nil, 0},
		{"span buffers", "ab\n" + long + "\nz", 1, []string{long, "z"}, 0},
		{"last line after skip", "a\nbcd", 1, []string{"bcd"}, 0},
		{"last line after line", "a\nbcdef", 0, []string{"a", "bcdef"}, 0},
		{"count rest", "a\nb\nc\nd", 0, []string{"a"}, 3},
		{"crlf kept", "a\r\nb\r\n", 0, []string{"a\r", "b\r"}, 0},
	}
	for _, tt := range tests {
		for _, bufSize := range []int{4, 7, 1 << 10} {
			for _, oneByte := range []bool{true, false} {
				var r io.Reader = strings.NewReader(tt.in)
				if oneByte {
					r = iotest.OneByteReader(r)
				}
				checkLineReader(t, tt.name, bufSize, newLineReader(r, bufSize, 1<<10), tt.in, tt.skip, tt.want, tt.wantCnt)
			}
		}
	}
}

func checkLineReader(t *testing.T, name string, bufSize int, lr *lineReader, in string, skip int, want []string, wantCnt int) {
	t.Helper()
	tt := struct {
		name, in      string
		skip, wantCnt int
		want          []string
	}{name, in, skip, wantCnt, want}
	{
		{
			skipped := lr.skip(tt.skip)
			var got []string
			for len(got) < len(tt.want) {
				b, _, ok := lr.next()
				if !ok {
					break
				}
				got = append(got, string(b))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("%s (buf %d): lines %q, want %q", tt.name, bufSize, got, tt.want)
			}
			if n := lr.count(); n != tt.wantCnt {
				t.Errorf("%s (buf %d): count %d, want %d", tt.name, bufSize, n, tt.wantCnt)
			}
			total := strings.Count(tt.in, "\n")
			if tt.in != "" && !strings.HasSuffix(tt.in, "\n") {
				total++
			}
			if tt.skip <= total && skipped != tt.skip {
				t.Errorf("%s: skipped %d, want %d", tt.name, skipped, tt.skip)
			}
		}
	}
}

func TestLineReaderCut(t *testing.T) {
	lr := newLineReader(strings.NewReader(strings.Repeat("x", 100)+"\nnext\n"), 16, 10)
	b, cut, ok := lr.next()
	if !ok || !cut || string(b) != strings.Repeat("x", 10) {
		t.Fatalf("got %q cut=%v ok=%v, want ten x, cut", b, cut, ok)
	}
	b, cut, _ = lr.next()
	if string(b) != "next" || cut {
		t.Fatalf("after a cut line got %q cut=%v", b, cut)
	}
}

func TestJSString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"\xff", "\uFFFD"},
		{"a\xffb", "a\uFFFDb"},
		{"\xe2\x82", "\uFFFD"},                 // truncated 3-byte sequence: one replacement
		{"\xe2\x82A", "\uFFFDA"},               // maximal subpart, then A
		{"\xe0\x80", "\uFFFD\uFFFD"},           // E0 needs A0..BF next: two replacements
		{"\xf0\x9f\x98", "\uFFFD"},             // truncated emoji
		{"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"}, // surrogate encodings are invalid byte by byte
		{"\xc0\xaf", "\uFFFD\uFFFD"},
		{"é→👍", "é→👍"},
	}
	for _, tt := range tests {
		if got := jsString([]byte(tt.in)); got != tt.want {
			t.Errorf("jsString(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestGutterWidth(t *testing.T) {
	for _, tt := range []struct{ last, want int }{{1, 6}, {99999, 6}, {100000, 7}, {10000002, 9}} {
		if got := gutterWidth(tt.last); got != tt.want {
			t.Errorf("gutterWidth(%d) = %d, want %d", tt.last, got, tt.want)
		}
	}
}
