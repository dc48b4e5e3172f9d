// Package notebook reads and edits Jupyter notebooks (.ipynb, nbformat 4)
// as cells. An edit changes only the bytes of the cells it touches: every
// other byte of the file (key order, indentation, metadata, outputs of the
// other cells, fields this package does not know) stays as it was, so a
// change is one small diff in version control.
package notebook

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wstools/ws/pkg/internal/jsonenc"
	"github.com/wstools/ws/pkg/tokens"
)

// Notebook is a parsed notebook: its bytes and where each cell stands in
// them.
type Notebook struct {
	src      []byte
	Major    int    // nbformat
	Minor    int    // nbformat_minor
	Language string // the kernel's language, when the metadata names it
	Cells    []Cell
	// Where the cells array is ([ to ] inclusive of both), and the
	// whitespace in front of the top-level keys (its indentation).
	arrStart, arrEnd int
	keyIndent        string
}

// Cell is one cell of a notebook.
type Cell struct {
	Index          int
	ID             string // "" in notebooks older than nbformat 4.5
	Type           string // code, markdown or raw
	Source         string
	ExecutionCount *int // code cells that ran
	Outputs        []Output
	start, end     int     // the cell object in the notebook's bytes
	fields         []field // its keys, in order
	sourceArray    bool    // its source is a list of lines, not one string
}

// Output is one output of a code cell.
type Output struct {
	Type string // stream, execute_result, display_data, error
	Name string // stream: stdout or stderr
	// Text is what it shows as text: a stream's text, a result's
	// text/plain, an error's name, value and traceback.
	Text string
	// Media lists its other representations (image/png, text/html …)
	// with their sizes in bytes, for what text cannot show.
	Media []Media
}

// Media is a representation of an output other than its text.
type Media struct {
	Type  string `json:"type"`
	Bytes int    `json:"bytes"`
	// b64 is binary data as the notebook stores it, in base64 (line
	// breaks taken out), in the notebook's bytes; nil for text.
	b64 []byte
}

// Base64 is the representation's binary data in standard base64, as the
// notebook stores it ("" for text): a copy, made when asked for.
func (m Media) Base64() string { return string(m.b64) }

// Binary tells whether the representation is binary data (Base64 has it).
func (m Media) Binary() bool { return len(m.b64) > 0 }

// field is one key of a JSON object and its value, by offsets into the
// notebook's bytes: the key's opening quote, the value's start and end.
type field struct {
	key                        string
	keyStart, keyEnd, valStart int
	valEnd                     int
}

// Error is a file that is not a notebook this package can read.
type Error struct{ Why string }

func (e *Error) Error() string { return e.Why }

// Parse reads a notebook. It keeps src, which must not change afterwards.
func Parse(src []byte) (*Notebook, error) {
	if !utf8.Valid(src) {
		return nil, &Error{"it is not UTF-8 text"}
	}
	nb := &Notebook{src: src, arrStart: -1}
	start := jsonenc.SkipSpace(src, 0)
	if start < len(src) && src[start] != '{' {
		return nil, &Error{"it is not a JSON object"}
	}
	top := &object{}
	var err error
	if start >= len(src) {
		err = &scanError{start, "it ends too soon"}
	} else {
		var fields []field
		top, err = scanObject(src, start, &fields)
		if err == nil {
			top.fields = fields
		}
	}
	if err == nil && jsonenc.SkipSpace(src, top.close+1) < len(src) {
		return nil, &Error{"it has more after its JSON object"}
	}
	if err != nil {
		return nil, syntaxError(src, err)
	}
	var cells *field
	for i := range top.fields {
		f := &top.fields[i]
		val := src[f.valStart:f.valEnd]
		switch f.key {
		case "nbformat":
			nb.Major, _ = strconv.Atoi(string(val))
		case "nbformat_minor":
			nb.Minor, _ = strconv.Atoi(string(val))
		case "cells":
			cells = f
		case "metadata":
			var md struct {
				Kernelspec struct {
					Language string `json:"language"`
				} `json:"kernelspec"`
				LanguageInfo struct {
					Name string `json:"name"`
				} `json:"language_info"`
			}
			_ = json.Unmarshal(val, &md)
			nb.Language = md.Kernelspec.Language
			if nb.Language == "" {
				nb.Language = md.LanguageInfo.Name
			}
		case "worksheets":
			return nil, &Error{"it is an nbformat 3 notebook (cells in worksheets); convert it with jupyter nbconvert --to notebook"}
		}
	}
	if len(top.fields) > 0 {
		nb.keyIndent = gapWhitespace(src[top.open+1 : top.fields[0].keyStart])
	}
	switch {
	case nb.Major == 0:
		return nil, &Error{"it has no nbformat version"}
	case nb.Major != 4:
		return nil, &Error{fmt.Sprintf("it is an nbformat %d notebook; only nbformat 4 is supported", nb.Major)}
	case cells == nil:
		return nil, &Error{"it has no cells list"}
	case src[cells.valStart] != '[':
		return nil, &Error{"its cells are not a list"}
	}
	nb.arrStart, nb.arrEnd = cells.valStart, cells.valEnd
	var spans [][2]int
	if _, err := scanArrayOf(src, cells.valStart, func(s, e int) { spans = append(spans, [2]int{s, e}) }, true); err != nil {
		return nil, syntaxError(src, err)
	}
	for i, sp := range spans {
		c, err := parseCell(src, sp[0], sp[1])
		if err != nil {
			return nil, &Error{fmt.Sprintf("cell %d: %s", i, err.Error())}
		}
		c.Index = i
		nb.Cells = append(nb.Cells, *c)
	}
	return nb, nil
}

// HasIDs tells whether new cells get an id: nbformat 4.5 and later have
// them, and so does any notebook whose cells already do.
func (nb *Notebook) HasIDs() bool {
	if nb.Minor >= 5 {
		return true
	}
	for _, c := range nb.Cells {
		if c.ID != "" {
			return true
		}
	}
	return false
}

func parseCell(src []byte, start, end int) (*Cell, error) {
	if src[start] != '{' {
		return nil, errors.New("it is not an object")
	}
	c := &Cell{start: start, end: end}
	if _, err := scanObjectOf(src, start, &c.fields, true); err != nil {
		return nil, err
	}
	for _, f := range c.fields {
		val := src[f.valStart:f.valEnd]
		switch f.key {
		case "cell_type":
			if err := json.Unmarshal(val, &c.Type); err != nil {
				return nil, errors.New("its cell_type is not a string")
			}
		case "id":
			_ = json.Unmarshal(val, &c.ID)
		case "source":
			s, isArray, err := joinSource(val)
			if err != nil {
				return nil, err
			}
			c.Source, c.sourceArray = s, isArray
		case "execution_count":
			var n *int
			if json.Unmarshal(val, &n) == nil {
				c.ExecutionCount = n
			}
		case "outputs":
			if src[f.valStart] != '[' {
				return nil, errors.New("its outputs are not a list")
			}
			var bad error
			_, _ = scanArrayOf(src, f.valStart, func(s, e int) {
				o, err := parseOutput(src, s)
				if err != nil && bad == nil {
					bad = err
				}
				c.Outputs = append(c.Outputs, o)
			}, true)
			if bad != nil {
				return nil, bad
			}
		}
	}
	if c.Type == "" {
		return nil, errors.New("it has no cell_type")
	}
	return c, nil
}

// joinSource is a cell's source, given as one string or a list of lines.
func joinSource(val []byte) (string, bool, error) {
	var s string
	if json.Unmarshal(val, &s) == nil {
		return s, false, nil
	}
	var lines []string
	if err := json.Unmarshal(val, &lines); err != nil {
		return "", false, errors.New("its source is neither a string nor a list of strings")
	}
	return strings.Join(lines, ""), true, nil
}

// multiline is nbformat's text: a string or a list of strings.
type multiline string

func (m *multiline) UnmarshalJSON(b []byte) error {
	s, _, err := joinSource(b)
	*m = multiline(s)
	return err
}

// parseOutput reads the output object at src[start]: its small fields
// decoded, its data by the place of each representation, so that a
// plot's base64 is neither decoded nor copied twice.
func parseOutput(src []byte, start int) (Output, error) {
	var out Output
	if src[start] != '{' {
		return out, errors.New("an output is not an object")
	}
	var fields []field
	if _, err := scanObjectOf(src, start, &fields, true); err != nil {
		return out, err
	}
	var ename, evalue string
	var traceback []string
	var data *field
	for i, f := range fields {
		val := src[f.valStart:f.valEnd]
		switch f.key {
		case "output_type":
			_ = json.Unmarshal(val, &out.Type)
		case "name":
			_ = json.Unmarshal(val, &out.Name)
		case "text":
			var t multiline
			_ = json.Unmarshal(val, &t)
			out.Text = string(t)
		case "ename":
			_ = json.Unmarshal(val, &ename)
		case "evalue":
			_ = json.Unmarshal(val, &evalue)
		case "traceback":
			_ = json.Unmarshal(val, &traceback)
		case "data":
			data = &fields[i]
		}
	}
	switch out.Type {
	case "stream":
		out.Text = tokens.Redraw(tokens.StripANSI(out.Text))
	case "error":
		out.Text = ename + ": " + evalue
		if len(traceback) > 0 {
			out.Text = tokens.StripANSI(strings.Join(traceback, "\n"))
		}
	case "execute_result", "display_data":
		if data != nil && src[data.valStart] == '{' {
			out.Text, out.Media = outputData(src, data.valStart)
		}
	}
	return out, nil
}

// outputData is the text of an output's data (the first of text/plain,
// text/markdown and text/latex it has) and its other representations, in
// the order of their MIME types.
func outputData(src []byte, start int) (string, []Media) {
	var fields []field
	_, _ = scanObjectOf(src, start, &fields, true) // checked with the notebook
	byType := map[string]field{}
	for _, f := range fields {
		byType[f.key] = f
	}
	text, textType := "", ""
	for _, mime := range []string{"text/plain", "text/markdown", "text/latex"} {
		var t multiline
		if f, ok := byType[mime]; ok && json.Unmarshal(src[f.valStart:f.valEnd], &t) == nil {
			text, textType = string(t), mime
			break
		}
	}
	keys := make([]string, 0, len(byType))
	for k := range byType {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var media []Media
	for _, mime := range keys {
		if mime == textType {
			continue
		}
		f := byType[mime]
		if raw, plain := stringBytes(src, f.valStart, f.valEnd); plain && !textual(mime) {
			// Binary data (a PNG) is stored as base64, in one string
			// without escapes (so without line breaks): its size is the
			// decoded one.
			n := len(raw) / 4 * 3
			if len(raw)%4 == 0 {
				n -= bytes.Count(raw[max(0, len(raw)-2):], []byte("="))
			}
			media = append(media, Media{Type: mime, Bytes: n, b64: raw})
			continue
		}
		val := src[f.valStart:f.valEnd]
		n := len(val)
		var t multiline
		if json.Unmarshal(val, &t) == nil {
			n = len(t)
			if !textual(mime) {
				if b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(string(t)), "")); err == nil {
					media = append(media, Media{Type: mime, Bytes: len(b), b64: []byte(base64.StdEncoding.EncodeToString(b))})
					continue
				}
			}
		}
		media = append(media, Media{Type: mime, Bytes: n})
	}
	return text, media
}

// textual tells whether an output of that MIME type is stored as text
// rather than base64.
func textual(mime string) bool {
	return strings.HasPrefix(mime, "text/") || strings.HasSuffix(mime, "+xml") || strings.HasSuffix(mime, "json") ||
		strings.Contains(mime, "javascript")
}

// object is a JSON object's fields, with where its braces are.
type object struct {
	open, close int
	fields      []field
}

// syntaxError names the line and column where the notebook stops being
// JSON.
func syntaxError(src []byte, err error) error {
	se, ok := err.(*scanError)
	if !ok {
		return &Error{"it is not valid JSON: " + err.Error()}
	}
	if se.why == "it ends too soon" {
		return &Error{"it is not valid JSON (it ends too soon)"}
	}
	off := min(se.at, len(src))
	line := bytes.Count(src[:off], []byte("\n")) + 1
	col := off - bytes.LastIndexByte(src[:off], '\n')
	return &Error{fmt.Sprintf("it is not valid JSON (line %d, column %d: %s)", line, col, se.why)}
}

// gapWhitespace is the whitespace of a gap between two JSON tokens after
// its comma: what stands in front of the next key or element.
func gapWhitespace(gap []byte) string {
	if i := bytes.IndexByte(gap, ','); i >= 0 {
		gap = gap[i+1:]
	}
	return string(gap)
}
