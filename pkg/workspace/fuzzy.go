package workspace

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/wstools/ws/pkg/errs"
)

// The fallbacks of edit that forgive how the model copied the text, tried
// after the exact match and the line-ending and BOM fallbacks. Each must
// still find exactly one place (every place with replace_all).
const (
	fallbackTrailing    = "trailing-whitespace"
	fallbackPunctuation = "unicode-punctuation"
	fallbackIndentation = "indentation"
)

func init() {
	fallbackNote[fallbackTrailing] = "Note: no exact match; matched ignoring trailing whitespace at line ends."
	fallbackNote[fallbackPunctuation] = "Note: no exact match; matched after treating curly quotes, dashes and no-break spaces as their ASCII forms."
	fallbackNote[fallbackIndentation] = "Note: no exact match; matched ignoring indentation, and the new text was re-indented to the file's."
}

// span is a byte range of the file.
type span struct{ start, end int }

// fuzzyMatch is what a fallback found: the places and their replacements.
type fuzzyMatch struct {
	spans []span
	repl  [][]byte
	kind  string
}

// fuzzyEdit tries the forgiving fallbacks in order. It returns nil when
// none matches, and NOT_UNIQUE when one matches several places without
// replace_all.
func fuzzyEdit(content, old, new []byte, all bool) (*fuzzyMatch, error) {
	if len(old) == 0 {
		return nil, nil
	}
	crlf := bytes.Contains(content, []byte("\r\n"))
	fixEOL := func(b []byte) []byte {
		if crlf {
			return toCRLF(b)
		}
		return b
	}
	lines := splitLines(content)
	oldLines, oldEndsNL := oldLinesOf(old)

	try := func(kind string, spans []span, repl func(i int, s span) []byte) (*fuzzyMatch, error) {
		if len(spans) == 0 {
			return nil, nil
		}
		if len(spans) > 1 && !all {
			return nil, errs.EditNotUnique(len(spans))
		}
		m := &fuzzyMatch{spans: spans, kind: kind}
		for i, s := range spans {
			m.repl = append(m.repl, repl(i, s))
		}
		return m, nil
	}
	plain := func(int, span) []byte { return fixEOL(new) }

	// 1. Trailing whitespace (spaces, tabs, CR) at line ends.
	trimEnd := func(s string) string { return strings.TrimRight(s, " \t\r") }
	if m, err := try(fallbackTrailing, lineWindows(content, lines, oldLines, oldEndsNL, trimEnd), plain); m != nil || err != nil {
		return m, err
	}
	// 2. Unicode punctuation, anywhere in a line (also inside one).
	if spans := punctSpans(content, old); len(spans) > 0 {
		return try(fallbackPunctuation, spans, plain)
	}
	normLine := func(s string) string { return strings.TrimRight(asciiPunct(s), " \t\r") }
	if m, err := try(fallbackPunctuation, lineWindows(content, lines, oldLines, oldEndsNL, normLine), plain); m != nil || err != nil {
		return m, err
	}
	// 3. Indentation: lines compared without their leading whitespace. Only
	// when the model indents with the file's character (tabs or spaces):
	// re-indenting spaces into a tab-indented file would corrupt it.
	noIndent := func(s string) string { return strings.TrimLeft(normLine(s), " \t") }
	spans := lineWindows(content, lines, oldLines, oldEndsNL, noIndent)
	newLines, _ := oldLinesOf(new)
	given := indentChars(append(append([]string{}, oldLines...), newLines...))
	for _, sp := range spans {
		fileLines, _ := oldLinesOf(content[sp.start:sp.end])
		if file := indentChars(fileLines); file != 0 && given != 0 && file != given {
			return nil, nil
		}
	}
	return try(fallbackIndentation, spans, func(_ int, s span) []byte {
		return fixEOL(reindent(new, leadingWS(oldLines[0]), leadingWS(string(content[s.start:s.end]))))
	})
}

// line is one line of the file: its byte range without the newline.
type line struct{ start, end int }

func splitLines(b []byte) []line {
	var out []line
	for start := 0; start < len(b); {
		i := bytes.IndexByte(b[start:], '\n')
		if i < 0 {
			out = append(out, line{start, len(b)})
			break
		}
		out = append(out, line{start, start + i})
		start += i + 1
	}
	return out
}

// oldLinesOf splits the text to find into lines; a final newline is noted
// rather than making an empty last line.
func oldLinesOf(old []byte) ([]string, bool) {
	s := strings.ReplaceAll(string(old), "\r\n", "\n")
	endsNL := strings.HasSuffix(s, "\n")
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n"), endsNL
}

// lineWindows finds the runs of whole file lines equal to the old lines
// under norm, without overlaps. A match covers its lines (and the last
// line's newline when the old text ended with one).
func lineWindows(content []byte, lines []line, old []string, endsNL bool, norm func(string) string) []span {
	n := len(old)
	want := make([]string, n)
	for i, l := range old {
		want[i] = norm(l)
	}
	var out []span
	for i := 0; i+n <= len(lines); i++ {
		ok := true
		for k := 0; k < n && ok; k++ {
			l := lines[i+k]
			ok = norm(string(content[l.start:l.end])) == want[k]
		}
		if !ok {
			continue
		}
		s := span{lines[i].start, lines[i+n-1].end}
		switch {
		case endsNL && s.end < len(content):
			s.end++ // the newline (a CR before it is inside the line)
		case s.end > s.start && content[s.end-1] == '\r':
			s.end-- // keep the line's CR with its newline
		}
		out = append(out, s)
		i += n - 1
	}
	return out
}

// asciiPunct maps curly quotes, dashes and no-break spaces to their ASCII
// forms, one rune for one rune.
func asciiPunct(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '\u2018', '\u2019', '\u201A', '\u201B', '\u2032':
			return '\''
		case '\u201C', '\u201D', '\u201E', '\u201F', '\u2033':
			return '"'
		case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
			return '-'
		case '\u00A0', '\u2007', '\u202F':
			return ' '
		}
		return r
	}, s)
}

// punctSpans finds old in content with punctuation normalised on both
// sides, by rune positions mapped back to the file's bytes.
func punctSpans(content, old []byte) []span {
	if !utf8.Valid(content) {
		return nil
	}
	nc, no := asciiPunct(string(content)), asciiPunct(string(old))
	if nc == string(content) && no == string(old) {
		return nil // nothing to normalise: the exact search already failed
	}
	// Rune offsets of the normalised text equal the original's.
	var spans []span
	for from := 0; ; {
		i := strings.Index(nc[from:], no)
		if i < 0 || no == "" {
			break
		}
		startRunes := utf8.RuneCountInString(nc[:from+i])
		lenRunes := utf8.RuneCountInString(no)
		spans = append(spans, runeSpan(content, startRunes, lenRunes))
		from += i + len(no)
	}
	return spans
}

func runeSpan(b []byte, startRunes, lenRunes int) span {
	pos := 0
	for r := 0; r < startRunes; r++ {
		_, n := utf8.DecodeRune(b[pos:])
		pos += n
	}
	end := pos
	for r := 0; r < lenRunes; r++ {
		_, n := utf8.DecodeRune(b[end:])
		end += n
	}
	return span{pos, end}
}

// indentChars says which characters indent the lines: 1 spaces, 2 tabs,
// 3 both, 0 none.
func indentChars(lines []string) int {
	set := 0
	for _, l := range lines {
		for _, c := range leadingWS(l) {
			if c == ' ' {
				set |= 1
			} else {
				set |= 2
			}
		}
	}
	return set
}

func leadingWS(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, " \t"))]
}

// reindent moves the new text from the indentation the model used to the
// file's: each line starting with from gets to instead.
func reindent(new []byte, from, to string) []byte {
	if from == to {
		return new
	}
	lines := strings.Split(string(new), "\n")
	for i, l := range lines {
		switch {
		case strings.TrimSpace(l) == "":
		case strings.HasPrefix(l, from):
			lines[i] = to + l[len(from):]
		}
	}
	return []byte(strings.Join(lines, "\n"))
}

// splice applies a fuzzy match to the content.
func (m *fuzzyMatch) splice(content []byte) []byte {
	var out bytes.Buffer
	prev := 0
	for i, s := range m.spans {
		out.Write(content[prev:s.start])
		out.Write(m.repl[i])
		prev = s.end
	}
	out.Write(content[prev:])
	return out.Bytes()
}

// ranges are Mastra's line ranges for the replaced places.
func (m *fuzzyMatch) ranges(content []byte) []LineRange {
	nl := []byte("\n")
	var out []LineRange
	for i, s := range m.spans {
		start := 1 + bytes.Count(content[:s.start], nl)
		oldEnd := start + bytes.Count(content[s.start:max(s.start, s.end-1)], nl)
		span := max(bytes.Count(m.repl[i], nl)+1, oldEnd-start+1)
		out = append(out, LineRange{Start: start, End: start + span - 1})
	}
	return out
}
