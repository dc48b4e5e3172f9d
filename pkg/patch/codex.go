package patch

import (
	"fmt"
	"strings"
)

// The markers of the Codex envelope.
const (
	beginMarker  = "*** Begin Patch"
	endMarker    = "*** End Patch"
	addMarker    = "*** Add File:"
	deleteMarker = "*** Delete File:"
	updateMarker = "*** Update File:"
	moveMarker   = "*** Move to:"
	eofMarker    = "*** End of File"
)

// codexHeader returns the operation of a trimmed file header line, or 0.
func codexHeader(t string) Op {
	switch {
	case strings.HasPrefix(t, addMarker):
		return Add
	case strings.HasPrefix(t, deleteMarker):
		return Delete
	case strings.HasPrefix(t, updateMarker):
		return Update
	}
	return 0
}

var headerMarkers = [...]string{Add: addMarker, Delete: deleteMarker, Update: updateMarker}

type codexParser struct {
	lines []string
	base  int // index of lines[0] in the whole text
	end   int // index of the closing *** End Patch, or len(lines)
}

func (c *codexParser) num(i int) int { return c.base + i + 1 }

func (c *codexParser) errf(i int, format string, args ...any) error {
	return &ParseError{Kind: KindSyntax, Line: c.num(i), Msg: fmt.Sprintf(format, args...)}
}

func parseCodex(lines []string, base int) (*Patch, error) {
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	c := &codexParser{lines: lines, base: base, end: len(lines)}
	i := firstNonBlank(lines, 0)
	if strings.TrimSpace(lines[i]) == beginMarker {
		i++
	}
	last := len(lines) - 1
	for last >= i && strings.TrimSpace(lines[last]) == "" {
		last--
	}
	if last >= i && strings.TrimSpace(lines[last]) == endMarker {
		c.end = last
	}
	p := &Patch{Format: FormatCodex}
	var prev Op
	for {
		i = firstNonBlank(lines[:c.end], i)
		if i >= c.end {
			return p, nil
		}
		t := strings.TrimSpace(lines[i])
		op := codexHeader(t)
		if op == 0 {
			switch t {
			case endMarker:
				k := firstNonBlank(lines[:c.end], i+1)
				if k >= c.end {
					return p, nil
				}
				return nil, c.errf(k, "text after %q (line %d); a patch has a single envelope", endMarker, c.num(i))
			case beginMarker:
				return nil, c.errf(i, "a second %q; a patch has a single envelope", beginMarker)
			}
			msg := fmt.Sprintf("expected a file header (%q, %q or %q) or %q, got %q",
				addMarker+" PATH", updateMarker+" PATH", deleteMarker+" PATH", endMarker, clip(lines[i]))
			switch prev {
			case Add:
				msg += "; every line of an added file starts with '+'"
			case Delete:
				msg += "; " + deleteMarker + " has no lines after it"
			}
			return nil, c.errf(i, "%s", msg)
		}
		name, err := cleanPath(strings.TrimSpace(t[len(headerMarkers[op]):]), c.num(i))
		if err != nil {
			return nil, err
		}
		var fp FilePatch
		switch op {
		case Add:
			fp, i = c.add(i, name)
		case Delete:
			fp, i = FilePatch{Op: Delete, Path: name, PatchLine: c.num(i)}, i+1
		case Update:
			fp, i, err = c.update(i, name)
			if err != nil {
				return nil, err
			}
		}
		p.Files = append(p.Files, fp)
		prev = op
	}
}

// add reads the '+' lines of an *** Add File section that starts at line i.
// Blank lines between '+' lines count as empty lines of the file.
func (c *codexParser) add(i int, name string) (FilePatch, int) {
	fp := FilePatch{Op: Add, Path: name, PatchLine: c.num(i)}
	var b strings.Builder
	j := i + 1
	for j < c.end {
		l := c.lines[j]
		if strings.HasPrefix(l, "+") {
			b.WriteString(l[1:])
			b.WriteByte('\n')
			j++
			continue
		}
		if strings.TrimSpace(l) == "" {
			if k := firstNonBlank(c.lines[:c.end], j); k < c.end && strings.HasPrefix(c.lines[k], "+") {
				for ; j < k; j++ {
					b.WriteByte('\n')
				}
				continue
			}
		}
		break
	}
	fp.Content = []byte(b.String())
	return fp, j
}

// update reads an *** Update File section that starts at line i.
func (c *codexParser) update(i int, name string) (FilePatch, int, error) {
	fp := FilePatch{Op: Update, Path: name, PatchLine: c.num(i)}
	j := i + 1
	if j < c.end {
		if t := strings.TrimSpace(c.lines[j]); strings.HasPrefix(t, moveMarker) {
			to, err := cleanPath(strings.TrimSpace(t[len(moveMarker):]), c.num(j))
			if err != nil {
				return fp, 0, err
			}
			if to != name {
				fp.MoveTo = to
			}
			j++
		}
	}
	var cur *Hunk
	curAt := 0  // index of cur's first line
	eofAt := -1 // index of an *** End of File line, once seen
	flush := func() error {
		if cur == nil {
			return nil
		}
		if len(cur.Lines) == 0 {
			return c.errf(curAt, "@@ line with no hunk lines after it")
		}
		if !cur.changes() {
			return c.errf(curAt, "the hunk changes nothing: it has no '+' or '-' line (a line to keep starts with ' ', to add with '+', to remove with '-')")
		}
		fp.Hunks = append(fp.Hunks, *cur)
		cur = nil
		return nil
	}
	start := func(at int) {
		cur, curAt = &Hunk{PatchLine: c.num(at)}, at
	}
	for j < c.end {
		l := c.lines[j]
		if strings.HasPrefix(l, "***") {
			if strings.TrimSpace(l) != eofMarker {
				break // the next file section, checked by the caller
			}
			if cur == nil || len(cur.Lines) == 0 {
				return fp, 0, c.errf(j, "%q must follow the lines of a hunk", eofMarker)
			}
			cur.EndOfFile, cur.Newline = true, AddNewline
			if err := flush(); err != nil {
				return fp, 0, err
			}
			eofAt = j
			j++
			continue
		}
		if eofAt >= 0 && strings.TrimSpace(l) != "" {
			return fp, 0, c.errf(j, "hunk line after %q (line %d); that marker ends the last hunk of a file", eofMarker, c.num(eofAt))
		}
		if strings.HasPrefix(l, "@@") {
			if cur != nil && len(cur.Lines) > 0 {
				if err := flush(); err != nil {
					return fp, 0, err
				}
			}
			if cur == nil {
				start(j)
			}
			if a, ok := codexAnchor(l); ok {
				cur.Anchors = append(cur.Anchors, a)
			}
			j++
			continue
		}
		var ln Line
		switch {
		case isHunkLine(l):
			ln = Line{Kind: LineKind(l[0]), Text: l[1:]}
		case strings.TrimSpace(l) == "":
			// A blank line inside a hunk is an empty context line; between
			// hunks, or at the end of one, it only separates.
			k := firstNonBlank(c.lines[:c.end], j)
			if cur == nil || k >= c.end || !isHunkLine(c.lines[k]) {
				j = k
				continue
			}
			ln = Line{Kind: Context}
		default:
			return fp, 0, c.errf(j, "%q in a hunk of %s: a hunk line starts with ' ' (context), '-' (remove) or '+' (add)", clip(l), name)
		}
		if cur == nil {
			start(j)
		}
		cur.Lines = append(cur.Lines, ln)
		j++
	}
	if err := flush(); err != nil {
		return fp, 0, err
	}
	if len(fp.Hunks) == 0 && fp.MoveTo == "" {
		return fp, 0, c.errf(i, "%s %s has no hunks: give an @@ line and the lines to change, or %s NEWPATH to rename", updateMarker, name, moveMarker)
	}
	return fp, j, nil
}

func isHunkLine(l string) bool {
	return l != "" && (l[0] == ' ' || l[0] == '-' || l[0] == '+')
}

// codexAnchor returns the text of an "@@ text" line. A bare "@@", and a
// unified range such as "@@ -12,5 +12,6 @@" written out of habit, carry no
// anchor.
func codexAnchor(l string) (string, bool) {
	rest := l[len("@@"):]
	if strings.TrimSpace(rest) == "" || unifiedRange().MatchString(l) {
		return "", false
	}
	return strings.TrimPrefix(rest, " "), true
}
