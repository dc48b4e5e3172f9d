package notebook

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wstools/ws/pkg/internal/wording"
)

// RenderOptions say what Render shows.
type RenderOptions struct {
	Cell    int  // only this cell; -1 for all
	Outputs bool // the outputs of code cells
	// Whole shows each output in full; else a long one keeps its first
	// and last lines.
	Whole bool
}

// Render shows the notebook as a model reads it: a header line, then each
// cell between <cell …> and </cell> with its index, id, type and
// execution count, its source as it is, and its outputs (text as text,
// images and other media by type and size).
func (nb *Notebook) Render(name string, o RenderOptions) string {
	var sb strings.Builder
	sb.WriteString(nb.Header(name))
	for i := range nb.Cells {
		if o.Cell >= 0 && i != o.Cell {
			continue
		}
		sb.WriteString("\n")
		sb.WriteString(nb.RenderCell(i, o))
	}
	return sb.String()
}

// RenderCell is cell i as Render shows it.
func (nb *Notebook) RenderCell(i int, o RenderOptions) string {
	var sb strings.Builder
	writeCell(&sb, nb.Cells[i], o)
	return sb.String()
}

// Header is Render's first line: "nb.ipynb: 3 cells (2 code, 1
// markdown), python, nbformat 4.5".
func (nb *Notebook) Header(name string) string {
	counts := map[string]int{}
	var order []string
	for _, c := range nb.Cells {
		if counts[c.Type] == 0 {
			order = append(order, c.Type)
		}
		counts[c.Type]++
	}
	var kinds []string
	for _, t := range order {
		kinds = append(kinds, fmt.Sprintf("%d %s", counts[t], t))
	}
	h := fmt.Sprintf("%s: %d cell%s", name, len(nb.Cells), wording.Plural(len(nb.Cells), "", "s"))
	if len(kinds) > 0 {
		h += " (" + strings.Join(kinds, ", ") + ")"
	}
	if nb.Language != "" {
		h += ", " + nb.Language
	}
	return h + fmt.Sprintf(", nbformat %d.%d", nb.Major, nb.Minor)
}

func writeCell(sb *strings.Builder, c Cell, o RenderOptions) {
	fmt.Fprintf(sb, `<cell index="%d"`, c.Index)
	if c.ID != "" {
		fmt.Fprintf(sb, ` id=%s`, attr(c.ID))
	}
	fmt.Fprintf(sb, ` type=%s`, attr(c.Type))
	if c.ExecutionCount != nil {
		fmt.Fprintf(sb, ` execution_count="%d"`, *c.ExecutionCount)
	}
	sb.WriteString(">\n")
	writeText(sb, c.Source)
	if o.Outputs {
		for _, out := range c.Outputs {
			writeOutput(sb, out, o.Whole)
		}
	} else if len(c.Outputs) > 0 {
		fmt.Fprintf(sb, "[%d output%s not shown]\n", len(c.Outputs), wording.Plural(len(c.Outputs), "", "s"))
	}
	sb.WriteString("</cell>")
}

func writeOutput(sb *strings.Builder, out Output, whole bool) {
	fmt.Fprintf(sb, `<output type=%s`, attr(out.Type))
	if out.Name != "" {
		fmt.Fprintf(sb, ` name=%s`, attr(out.Name))
	}
	if len(out.Media) > 0 {
		var m []string
		for _, x := range out.Media {
			m = append(m, fmt.Sprintf("%s %d bytes", x.Type, x.Bytes))
		}
		fmt.Fprintf(sb, ` media=%s`, attr(strings.Join(m, ", ")))
	}
	if out.Text == "" {
		sb.WriteString("/>\n")
		return
	}
	sb.WriteString(">\n")
	text := out.Text
	if !whole {
		text = shorten(text)
	}
	writeText(sb, text)
	sb.WriteString("</output>\n")
}

// writeText writes s and ends it with a newline if it has none.
func writeText(sb *strings.Builder, s string) {
	sb.WriteString(s)
	if s != "" && !strings.HasSuffix(s, "\n") {
		sb.WriteString("\n")
	}
}

// An output longer than this keeps its first and last lines (or, on
// long lines, characters), and says how much it left out.
const (
	keepLines = 20
	keepChars = 2000
)

func shorten(s string) string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) > 2*keepLines+1 {
		cut := len(lines) - 2*keepLines
		s = strings.Join(lines[:keepLines], "") +
			fmt.Sprintf("[… %d lines not shown …]\n", cut) +
			strings.Join(lines[len(lines)-keepLines:], "")
	}
	if utf8.RuneCountInString(s) > 2*keepChars+100 {
		r := []rune(s)
		s = string(r[:keepChars]) + fmt.Sprintf("\n[… %d characters not shown …]\n", len(r)-2*keepChars) + string(r[len(r)-keepChars:])
	}
	return s
}

// attr is a quoted attribute value.
func attr(s string) string {
	return strconv.Quote(s)
}
