package workspace

import (
	"fmt"
	"strings"

	"github.com/wstools/ws/pkg/internal/wording"
)

// maxDiffLine is the most of a line the diff in an edit's text shows; a
// longer line (minified code, a one-line JSON file) is cut around the
// change, so that a one-word edit does not print the whole line twice.
const maxDiffLine = 400

// diffLineContext is how much of a cut line is shown on each side of
// where it changed.
const diffLineContext = 80

// clipDiff cuts the long lines of a unified diff for the text a model
// reads. A removed or added line longer than maxDiffLine shows the part
// where it differs from its counterpart (the i-th "-" line of a block
// against the i-th "+" line), a context line its start; "…" marks what is
// left out. It reports whether it cut anything.
func clipDiff(d string) (string, bool) {
	lines := strings.SplitAfter(d, "\n")
	if !hasLongLine(lines) {
		return d, false
	}
	out := make([]string, 0, len(lines))
	inHunk, cut := false, false
	for i := 0; i < len(lines); {
		l := lines[i]
		if !inHunk || !strings.HasPrefix(l, "-") {
			inHunk = inHunk || strings.HasPrefix(l, "@@")
			if inHunk && (strings.HasPrefix(l, "+") || strings.HasPrefix(l, " ")) {
				var c bool
				l, c = clipLine(l, "")
				cut = cut || c
			}
			out = append(out, l)
			i++
			continue
		}
		// A block of removed lines, and the added lines after it ("\ No
		// newline" lines among them are not lines of the file).
		var del, add []int
		k := i
		for ; k < len(lines) && (strings.HasPrefix(lines[k], "-") || strings.HasPrefix(lines[k], "\\")); k++ {
			if lines[k][0] == '-' {
				del = append(del, k)
			}
		}
		for ; k < len(lines) && (strings.HasPrefix(lines[k], "+") || strings.HasPrefix(lines[k], "\\")); k++ {
			if lines[k][0] == '+' {
				add = append(add, k)
			}
		}
		pair := map[int]int{}
		for n := 0; n < len(del) && n < len(add); n++ {
			pair[del[n]], pair[add[n]] = add[n], del[n]
		}
		for n := i; n < k; n++ {
			l := lines[n]
			if l[0] == '-' || l[0] == '+' {
				other := ""
				if o, ok := pair[n]; ok {
					other = lines[o]
				}
				var c bool
				l, c = clipLine(l, other)
				cut = cut || c
			}
			out = append(out, l)
		}
		i = k
	}
	return strings.Join(out, ""), cut
}

func hasLongLine(lines []string) bool {
	for _, l := range lines {
		if len(l) > maxDiffLine+2 {
			return true
		}
	}
	return false
}

// clipLine cuts one diff line (its mark, its text, its newline) to the
// part around where its text differs from other's (a diff line too, ""
// for none: then the start is kept).
func clipLine(l, other string) (string, bool) {
	mark, body, nl := l[:1], strings.TrimSuffix(l[1:], "\n"), ""
	if strings.HasSuffix(l, "\n") {
		nl = "\n"
	}
	if len(body) <= maxDiffLine {
		return l, false
	}
	from, to := 0, maxDiffLine
	if other != "" {
		ob := strings.TrimSuffix(other[1:], "\n")
		p := 0
		for p < len(body) && p < len(ob) && body[p] == ob[p] {
			p++
		}
		s := 0
		for s < len(body)-p && s < len(ob)-p && body[len(body)-1-s] == ob[len(ob)-1-s] {
			s++
		}
		from = max(0, p-diffLineContext)
		to = min(len(body), len(body)-s+diffLineContext, from+maxDiffLine)
	}
	part, before, after := wording.Cut(body, from, to)
	var sb strings.Builder
	sb.WriteString(mark)
	if before {
		sb.WriteString("…")
	}
	sb.WriteString(part)
	if after {
		sb.WriteString("…")
	}
	sb.WriteString(nl)
	return sb.String(), true
}

// maxDiffLines is the most lines of a diff the text of a result shows:
// an edit that replaces a block of thousands of lines (a --replace-all
// over a big file, a long notebook cell) shows the start of its diff and
// how many lines it leaves out, not all of the old and the new text.
// --json's data.diff keeps it whole.
const maxDiffLines = 400

// diffText is a diff as the text of a result shows it: after a blank
// line, its long lines cut (clipDiff) and its first maxDiffLines lines,
// and a line saying what was left out; "" for no diff.
func diffText(d string) string {
	if d == "" {
		return ""
	}
	d, cut := clipDiff(d)
	d = strings.TrimSuffix(d, "\n")
	more := 0
	if n := strings.Count(d, "\n") + 1; n > maxDiffLines {
		end := 0
		for range maxDiffLines {
			end += strings.IndexByte(d[end:], '\n') + 1
		}
		d, more = d[:end-1], n-maxDiffLines
	}
	d = "\n\n" + d
	if cut {
		d += fmt.Sprintf("\n(lines longer than %d bytes are shown around the change; … marks what is left out)", maxDiffLine)
	}
	if more > 0 {
		d += fmt.Sprintf("\n(%d more %s of the diff not shown; read the file to see the result)", more, wording.Plural(more, "line", "lines"))
	}
	return d
}
