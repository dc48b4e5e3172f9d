package notebook

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wstools/ws/pkg/js"
)

// Cell types.
const (
	Code     = "code"
	Markdown = "markdown"
	Raw      = "raw"
)

// ValidType tells whether t is a cell type.
func ValidType(t string) bool { return t == Code || t == Markdown || t == Raw }

// Find is the index of the cell ref names: the cell with that id, else
// the cell at that index (from 0; a negative one counts from the end, -1
// being the last).
func (nb *Notebook) Find(ref string) (int, bool) {
	for i, c := range nb.Cells {
		if c.ID != "" && c.ID == ref {
			return i, true
		}
	}
	n, err := strconv.Atoi(strings.TrimSpace(ref))
	if err != nil {
		return 0, false
	}
	if n < 0 {
		n += len(nb.Cells)
	}
	if n < 0 || n >= len(nb.Cells) {
		return 0, false
	}
	return n, true
}

// WithID lists the indexes of the cells whose id is id: more than one
// when the notebook has duplicate ids (which Jupyter refuses to save, but
// other tools and hand edits make).
func (nb *Notebook) WithID(id string) []int {
	var at []int
	for i, c := range nb.Cells {
		if id != "" && c.ID == id {
			at = append(at, i)
		}
	}
	return at
}

// IDs lists the ids of the cells that have one, at most max of them.
func (nb *Notebook) IDs(max int) []string {
	var ids []string
	for _, c := range nb.Cells {
		if c.ID != "" {
			if len(ids) == max {
				ids = append(ids, "…")
				break
			}
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// NewID is a cell id no cell of the notebook has, as Jupyter makes them
// (eight hex digits).
func (nb *Notebook) NewID() string {
	for {
		var b [4]byte
		_, _ = rand.Read(b[:])
		if id := hex.EncodeToString(b[:]); !nb.hasID(id) {
			return id
		}
	}
}

func (nb *Notebook) hasID(id string) bool {
	for _, c := range nb.Cells {
		if c.ID == id {
			return true
		}
	}
	return false
}

// Attachments is how many attachments (files embedded in the cell, by
// name) cell i has: a markdown or raw cell may have them, and one that
// becomes code loses them (Replace).
func (nb *Notebook) Attachments(i int) int {
	for _, f := range nb.Cells[i].fields {
		if f.key == "attachments" {
			var m map[string]json.RawMessage
			if json.Unmarshal(nb.src[f.valStart:f.valEnd], &m) != nil {
				return 0
			}
			return len(m)
		}
	}
	return 0
}

// Replace is the notebook with cell i's source set to source and, when
// typ is not "", its type changed to typ: a code cell that becomes
// markdown or raw loses its outputs and execution count, and one that
// becomes code gets empty ones (and loses its attachments, which code
// cells cannot have). The outputs of a code cell whose source changes are
// kept, as Jupyter keeps them until the cell runs again.
func (nb *Notebook) Replace(i int, source, typ string) ([]byte, error) {
	if err := checkText(source); err != nil {
		return nil, err
	}
	c := &nb.Cells[i]
	st := nb.cellStyle(c)
	if typ == "" {
		typ = c.Type
	}
	type kv struct {
		key, val string
		orig     int // index in c.fields; -1 for a new key
	}
	var fields []kv
	hasSource := false
	for j, f := range c.fields {
		val := string(nb.src[f.valStart:f.valEnd])
		switch f.key {
		case "cell_type":
			if typ != c.Type {
				val = pyString(typ)
			}
		case "source":
			hasSource = true
			val = st.source(source, c.sourceArray)
		case "outputs", "execution_count":
			if typ != Code {
				continue
			}
		case "attachments":
			if typ == Code {
				continue
			}
		}
		fields = append(fields, kv{f.key, val, j})
	}
	// Keys the new type needs, each before the first key that sorts after
	// it (Jupyter writes the keys sorted).
	add := func(key, val string) {
		for _, f := range fields {
			if f.key == key {
				return
			}
		}
		at := len(fields)
		for j, f := range fields {
			if f.key > key {
				at = j
				break
			}
		}
		fields = append(fields[:at], append([]kv{{key, val, -1}}, fields[at:]...)...)
	}
	if typ == Code {
		add("execution_count", "null")
		add("outputs", "[]")
	}
	if !hasSource {
		add("source", st.source(source, true))
	}

	var out bytes.Buffer
	first := c.fields[0]
	out.Write(nb.src[c.start:first.keyStart])
	for j, f := range fields {
		if j > 0 {
			if f.orig > 0 {
				prev := c.fields[f.orig-1]
				out.Write(nb.src[prev.valEnd:c.fields[f.orig].keyStart])
			} else {
				out.WriteString("," + st.keyGap)
			}
		}
		if f.orig >= 0 {
			o := c.fields[f.orig]
			out.Write(nb.src[o.keyStart:o.valStart])
		} else {
			out.WriteString(pyString(f.key) + st.colon)
		}
		out.WriteString(f.val)
	}
	last := c.fields[len(c.fields)-1]
	out.Write(nb.src[last.valEnd:c.end])
	return splice(nb.src, c.start, c.end, out.Bytes()), nil
}

// Insert is the notebook with a new cell of type typ and that source at
// index at (0 to len(Cells)); id is its id, or "" for none.
func (nb *Notebook) Insert(at int, typ, source, id string) ([]byte, error) {
	if err := checkText(source); err != nil {
		return nil, err
	}
	st := nb.newCellStyle(at)
	var fields []string
	fields = append(fields, `"cell_type"`+st.colon+pyString(typ))
	if typ == Code {
		fields = append(fields, `"execution_count"`+st.colon+"null")
	}
	if id != "" {
		fields = append(fields, `"id"`+st.colon+pyString(id))
	}
	fields = append(fields, `"metadata"`+st.colon+"{}")
	if typ == Code {
		fields = append(fields, `"outputs"`+st.colon+"[]")
	}
	fields = append(fields, `"source"`+st.colon+st.source(source, true))
	var cell string
	if st.compact {
		cell = "{" + strings.Join(fields, ","+st.keyGap) + "}"
	} else {
		cell = "{" + st.nl + st.keyIndent + strings.Join(fields, ","+st.nl+st.keyIndent) + st.nl + st.closeIndent + "}"
	}
	n := len(nb.Cells)
	switch {
	case n == 0:
		arr := "[" + cell + "]"
		if !st.compact {
			arr = "[" + st.nl + st.closeIndent + cell + st.nl + nb.keyIndentOrNone() + "]"
		}
		return splice(nb.src, nb.arrStart, nb.arrEnd, []byte(arr)), nil
	case at < n:
		c := nb.Cells[at]
		return splice(nb.src, c.start, c.start, []byte(cell+","+nb.cellGap(at))), nil
	default:
		c := nb.Cells[n-1]
		return splice(nb.src, c.end, c.end, []byte(","+nb.cellGap(n-1)+cell)), nil
	}
}

// Delete is the notebook without cell i.
func (nb *Notebook) Delete(i int) []byte {
	switch n := len(nb.Cells); {
	case n == 1:
		return splice(nb.src, nb.arrStart, nb.arrEnd, []byte("[]"))
	case i > 0:
		return splice(nb.src, nb.Cells[i-1].end, nb.Cells[i].end, nil)
	default:
		return splice(nb.src, nb.Cells[0].start, nb.Cells[1].start, nil)
	}
}

// checkText refuses a source that JSON cannot hold as it is.
func checkText(s string) error {
	if !utf8.ValidString(s) {
		return &Error{"the new source is not UTF-8 text, which a notebook cannot hold"}
	}
	return nil
}

func splice(src []byte, from, to int, with []byte) []byte {
	out := make([]byte, 0, len(src)-(to-from)+len(with))
	out = append(out, src[:from]...)
	out = append(out, with...)
	return append(out, src[to:]...)
}

// cellGap is the whitespace in front of cell i (after the comma, or the
// opening bracket).
func (nb *Notebook) cellGap(i int) string {
	from := nb.arrStart + 1
	if i > 0 {
		from = nb.Cells[i-1].end
	}
	return gapWhitespace(nb.src[from:nb.Cells[i].start])
}

func (nb *Notebook) keyIndentOrNone() string {
	if i := strings.LastIndexByte(nb.keyIndent, '\n'); i >= 0 {
		return nb.keyIndent[i+1:]
	}
	return ""
}

// style is how a cell object is laid out: the whitespace in front of its
// keys and of its closing brace, and between a key and its value.
type style struct {
	compact     bool
	keyGap      string // in front of a key after the comma: "\n   " or " "
	keyIndent   string // "   "
	closeIndent string // "  "
	colon       string // ": "
	nl          string // "\n", or "\r\n" in a file saved so
}

// cellStyle is the layout of cell c.
func (nb *Notebook) cellStyle(c *Cell) style {
	first, last := c.fields[0], c.fields[len(c.fields)-1]
	st := style{
		keyGap: gapWhitespace(nb.src[c.start+1 : first.keyStart]),
		colon:  string(nb.src[first.keyEnd:first.valStart]),
	}
	if len(c.fields) > 1 {
		st.keyGap = gapWhitespace(nb.src[c.fields[0].valEnd:c.fields[1].keyStart])
	}
	nl := strings.LastIndexByte(st.keyGap, '\n')
	if nl < 0 {
		st.compact = true
		return st
	}
	st.nl = "\n"
	if nl > 0 && st.keyGap[nl-1] == '\r' {
		st.nl = "\r\n"
	}
	st.keyIndent = st.keyGap[nl+1:]
	closing := string(nb.src[last.valEnd : c.end-1])
	if j := strings.LastIndexByte(closing, '\n'); j >= 0 {
		st.closeIndent = closing[j+1:]
	}
	return st
}

// newCellStyle is the layout of a cell inserted at index at: that of its
// neighbour, or, in a notebook without cells, one level deeper than the
// notebook's keys (Jupyter indents by one space).
func (nb *Notebook) newCellStyle(at int) style {
	if len(nb.Cells) > 0 {
		if at >= len(nb.Cells) {
			at = len(nb.Cells) - 1
		}
		return nb.cellStyle(&nb.Cells[at])
	}
	indent := nb.keyIndentOrNone()
	if !strings.Contains(nb.keyIndent, "\n") {
		return style{compact: true, keyGap: " ", colon: ": "}
	}
	unit := indent
	if unit == "" {
		unit = " "
	}
	nl := "\n"
	if strings.Contains(nb.keyIndent, "\r\n") {
		nl = "\r\n"
	}
	return style{keyGap: nl + indent + unit + unit, keyIndent: indent + unit + unit, closeIndent: indent + unit, colon: ": ", nl: nl}
}

// source is a cell source as JSON in this layout: a list of lines, each
// but the last ending in a newline (Jupyter's form), or one string.
func (st style) source(s string, asArray bool) string {
	if !asArray {
		return pyString(s)
	}
	lines := splitLines(s)
	if len(lines) == 0 {
		return "[]"
	}
	enc := make([]string, len(lines))
	for i, l := range lines {
		enc[i] = pyString(l)
	}
	if st.compact {
		return "[" + strings.Join(enc, ","+st.keyGap) + "]"
	}
	in := st.keyIndent + st.unit()
	return "[" + st.nl + in + strings.Join(enc, ","+st.nl+in) + st.nl + st.keyIndent + "]"
}

// unit is one level of indentation.
func (st style) unit() string {
	if strings.HasPrefix(st.keyIndent, st.closeIndent) && len(st.keyIndent) > len(st.closeIndent) {
		return st.keyIndent[len(st.closeIndent):]
	}
	return " "
}

// splitLines cuts s into lines, each with its line end, where Python's
// str.splitlines cuts it (nbformat stores a source so): at \n, \r\n, \r,
// and the other line ends Unicode knows.
func splitLines(s string) []string {
	var lines []string
	start := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				n = 2
			}
			fallthrough
		case '\n', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			lines = append(lines, s[start:i+n])
			start = i + n
		}
		i += n
	}
	if start < len(s) {
		lines = append(lines, s[start:])
	}
	return lines
}

// pyString is s as a JSON string the way Python's json module writes it
// with ensure_ascii=False (as Jupyter saves notebooks): only quotes,
// backslashes and control characters are escaped, which is also how
// JSON.stringify writes it.
func pyString(s string) string {
	var sb strings.Builder
	sb.Grow(len(s) + 2)
	js.Quote(&sb, s)
	return sb.String()
}

// Describe names cell i for messages: "cell 3 (code, id 9b0d1c2e)".
func (nb *Notebook) Describe(i int) string {
	c := nb.Cells[i]
	if c.ID != "" {
		return fmt.Sprintf("cell %d (%s, id %s)", i, c.Type, c.ID)
	}
	return fmt.Sprintf("cell %d (%s)", i, c.Type)
}
