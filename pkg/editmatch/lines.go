package editmatch

import (
	"bytes"
	"strings"
)

// The file is never split into lines as a whole: the matcher finds
// candidate lines with a byte search and walks to their neighbours, so a
// one-line edit in a large file costs a few linear scans.

const bom = "\uFEFF"

// file is the content being edited.
type file struct {
	c     []byte
	base  int       // where line 1's text starts: 3 after a byte-order mark, else 0
	freqs *[256]int // sampled byte frequencies, once needed
}

// freq returns the file's sampled byte frequencies.
func (f *file) freq() *[256]int {
	if f.freqs == nil {
		f.freqs = sampleFreq(f.c)
	}
	return f.freqs
}

// finder returns a finder of pat in the file.
func (f *file) finder(pat []byte) *finder { return newFinderFreq(f.freq(), pat) }

func newFile(c []byte) *file {
	f := &file{c: c}
	if bytes.HasPrefix(c, []byte(bom)) {
		f.base = len(bom)
	}
	return f
}

// fline is one line of the file: its text c[start:end] without the line
// ending, which is c[end:next] ("\n", "\r\n", or empty at the end of the
// file).
type fline struct{ start, end, next int }

func (l fline) hasTerm() bool { return l.next > l.end }

// text returns the line's text.
func (f *file) text(l fline) []byte { return f.c[l.start:l.end] }

// lineAt returns the line holding offset pos.
func (f *file) lineAt(pos int) fline {
	s := max(bytes.LastIndexByte(f.c[:pos], '\n')+1, f.base)
	e := bytes.IndexByte(f.c[pos:], '\n')
	if e < 0 {
		return fline{s, len(f.c), len(f.c)}
	}
	e += pos
	l := fline{s, e, e + 1}
	if e > s && f.c[e-1] == '\r' {
		l.end = e - 1
	}
	return l
}

// prev returns the line before l.
func (f *file) prev(l fline) (fline, bool) {
	if l.start <= f.base {
		return fline{}, false
	}
	return f.lineAt(l.start - 1), true
}

// next returns the line after l. The empty "line" after a final newline is
// not a line.
func (f *file) next(l fline) (fline, bool) {
	if l.next >= len(f.c) {
		return fline{}, false
	}
	return f.lineAt(l.next), true
}

// lineNo returns the 1-based line number of offset pos.
func (f *file) lineNo(pos int) int {
	return bytes.Count(f.c[:pos], nl) + 1
}

var nl = []byte("\n")

// eolNear returns the line ending to write for text replacing c[start:end]:
// the first one at or after start, else the last one before it; "" when
// the file has none.
func (f *file) eolNear(start int) string {
	i := bytes.IndexByte(f.c[start:], '\n')
	if i >= 0 {
		i += start
	} else {
		i = bytes.LastIndexByte(f.c[:start], '\n')
	}
	switch {
	case i < 0:
		return ""
	case i > 0 && f.c[i-1] == '\r':
		return "\r\n"
	}
	return "\n"
}

// toEOL rewrites the line endings of s as eol; "" leaves s as it is.
func toEOL(s, eol string) string {
	if eol == "" || !strings.Contains(s, "\n") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if eol == "\n" {
		return s
	}
	return strings.ReplaceAll(s, "\n", eol)
}

// text is old_string or new_string cut into lines.
type text struct {
	lines  [][]byte // without line endings
	cr     []bool   // the line ended with "\r\n"
	endsNL bool     // the text ended with a line ending
}

func splitText(s string) text {
	var t text
	loneCR := false
	if strings.HasSuffix(s, "\n") {
		t.endsNL = true
		s = s[:len(s)-1]
	} else if strings.HasSuffix(s, "\r") {
		// A lone CR at the very end is taken as the start of a CRLF.
		t.endsNL, loneCR = true, true
		s = s[:len(s)-1]
	}
	for _, l := range strings.Split(s, "\n") {
		b := []byte(l)
		cr := len(b) > 0 && b[len(b)-1] == '\r'
		if cr {
			b = b[:len(b)-1]
		}
		t.lines = append(t.lines, b)
		t.cr = append(t.cr, cr)
	}
	// The last line's CR (if any) was only a line ending when one followed.
	if last := len(t.lines) - 1; t.cr[last] && !t.endsNL {
		t.lines[last] = append(t.lines[last], '\r')
		t.cr[last] = false
	}
	if loneCR {
		t.cr[len(t.cr)-1] = true
	}
	return t
}
