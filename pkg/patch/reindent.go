package patch

import "strings"

// A hunk found with leading whitespace ignored (LevelWhitespace and
// looser) may indent otherwise than the file: spaces where the file has
// tabs, 2 spaces where it has 4, or the whole block shifted. Its context
// lines are copied from the file; its added lines are re-indented in the
// file's style, each keeping its depth relative to the lines around it,
// when the hunk's indentation maps onto the file's consistently (the same
// shift in levels on every line the two share). Otherwise they are kept
// as the patch has them.

// indentStyle is how a text indents one level: with a tab, or with unit
// spaces.
type indentStyle struct {
	tab  bool
	unit int
}

// styleOf returns the indentation style of the given indents ("" ones
// aside), and false when they mix tabs and spaces or have none.
func styleOf(indents []string) (indentStyle, bool) {
	var st indentStyle
	tabs, spaces := false, false
	for _, in := range indents {
		switch {
		case in == "":
		case strings.Trim(in, "\t") == "":
			tabs = true
		case strings.Trim(in, " ") == "":
			spaces = true
			st.unit = gcd(st.unit, len(in))
		default:
			return st, false
		}
	}
	if tabs == spaces {
		return st, false
	}
	st.tab = tabs
	return st, true
}

// depth returns the levels of indent in, and false when it is not a whole
// number of st's units.
func (st indentStyle) depth(in string) (int, bool) {
	if st.tab {
		return len(in), strings.Trim(in, "\t") == ""
	}
	return len(in) / st.unit, strings.Trim(in, " ") == "" && len(in)%st.unit == 0
}

// indent returns n levels in st's style.
func (st indentStyle) indent(n int) string {
	if st.tab {
		return strings.Repeat("\t", n)
	}
	return strings.Repeat(" ", n*st.unit)
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func leading(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

// reindenter returns the function that re-indents the added lines of h,
// placed at line pos of f, or nil when they are to be kept as they are.
func reindenter(f *fileText, h *Hunk, pos int) func(string) string {
	var mine, theirs []string // the hunk's and the file's indents of the lines they share
	var all []string          // every indent of the hunk
	i := pos
	for _, l := range h.Lines {
		if strings.TrimSpace(l.Text) != "" {
			all = append(all, leading(l.Text))
		}
		if l.Kind == Insert {
			continue
		}
		if strings.TrimSpace(l.Text) != "" && i < len(f.text) {
			mine, theirs = append(mine, leading(l.Text)), append(theirs, leading(f.text[i]))
		}
		i++
	}
	same := true
	for k := range mine {
		same = same && mine[k] == theirs[k]
	}
	if same {
		return nil // the indentation is the file's already
	}
	ps, ok1 := styleOf(all)
	fs, ok2 := styleOf(theirs)
	if !ok1 || !ok2 {
		return nil
	}
	shift, set := 0, false
	for k := range mine {
		a, okA := ps.depth(mine[k])
		b, okB := fs.depth(theirs[k])
		if !okA || !okB || set && b-a != shift {
			return nil
		}
		shift, set = b-a, true
	}
	return func(s string) string {
		if strings.TrimSpace(s) == "" {
			return s
		}
		in := leading(s)
		n, ok := ps.depth(in)
		if !ok || n+shift < 0 {
			return s
		}
		return fs.indent(n+shift) + s[len(in):]
	}
}
