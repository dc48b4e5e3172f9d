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
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

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
	// Base64 is binary data as the notebook stores it, in base64 (line
	// breaks taken out); "" for text.
	Base64 string `json:"-"`
}

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
	top, err := objectFields(src, 0, len(src))
	if err != nil {
		return nil, err
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
	spans, err := arrayElements(src, cells.valStart, cells.valEnd)
	if err != nil {
		return nil, err
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

// Bytes is the notebook as parsed.
func (nb *Notebook) Bytes() []byte { return nb.src }

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
	obj, err := objectFields(src, start, end)
	if err != nil {
		return nil, err
	}
	c := &Cell{start: start, end: end, fields: obj.fields}
	for _, f := range obj.fields {
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
			var outs []rawOutput
			if err := json.Unmarshal(val, &outs); err != nil {
				return nil, errors.New("its outputs are not a list of objects")
			}
			for _, o := range outs {
				c.Outputs = append(c.Outputs, o.output())
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

type rawOutput struct {
	OutputType string                     `json:"output_type"`
	Name       string                     `json:"name"`
	Text       multiline                  `json:"text"`
	Data       map[string]json.RawMessage `json:"data"`
	Ename      string                     `json:"ename"`
	Evalue     string                     `json:"evalue"`
	Traceback  []string                   `json:"traceback"`
}

func (o rawOutput) output() Output {
	out := Output{Type: o.OutputType, Name: o.Name, Text: string(o.Text)}
	switch o.OutputType {
	case "stream":
		out.Text = tokens.Redraw(tokens.StripANSI(out.Text))
	case "error":
		out.Text = o.Ename + ": " + o.Evalue
		if len(o.Traceback) > 0 {
			out.Text = tokens.StripANSI(strings.Join(o.Traceback, "\n"))
		}
	case "execute_result", "display_data":
		// The text is the first of these the output has; what else it
		// has is listed as media.
		textType := ""
		for _, mime := range []string{"text/plain", "text/markdown", "text/latex"} {
			var t multiline
			if _, ok := o.Data[mime]; ok && json.Unmarshal(o.Data[mime], &t) == nil {
				out.Text, textType = string(t), mime
				break
			}
		}
		for _, mime := range sortedKeys(o.Data) {
			if mime == textType {
				continue
			}
			n := len(o.Data[mime])
			var t multiline
			if json.Unmarshal(o.Data[mime], &t) == nil {
				n = len(t)
				// Binary data (a PNG) is stored as base64: its size is
				// the decoded one.
				if !textual(mime) {
					b64 := strings.Join(strings.Fields(string(t)), "")
					if n64 := base64.StdEncoding.DecodedLen(len(b64)) - strings.Count(b64[max(0, len(b64)-2):], "="); validBase64(b64) {
						out.Media = append(out.Media, Media{Type: mime, Bytes: n64, Base64: b64})
						continue
					}
				}
			}
			out.Media = append(out.Media, Media{Type: mime, Bytes: n})
		}
	}
	return out
}

// validBase64 tells whether s is standard, padded base64.
func validBase64(s string) bool {
	if len(s)%4 != 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' ||
			c == '=' && i >= len(s)-2 && (i == len(s)-1 || s[len(s)-1] == '=')
		if !ok {
			return false
		}
	}
	return true
}

// textual tells whether an output of that MIME type is stored as text
// rather than base64.
func textual(mime string) bool {
	return strings.HasPrefix(mime, "text/") || strings.HasSuffix(mime, "+xml") || strings.HasSuffix(mime, "json") ||
		strings.Contains(mime, "javascript")
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// object is a JSON object's fields, with where its braces are.
type object struct {
	open, close int
	fields      []field
}

// objectFields reads the object that is all of src[start:end] (but
// whitespace) into its fields.
func objectFields(src []byte, start, end int) (*object, error) {
	dec := json.NewDecoder(bytes.NewReader(src[start:end]))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, syntaxError(src, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, &Error{"it is not a JSON object"}
	}
	obj := &object{open: start + int(dec.InputOffset()) - 1}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, syntaxError(src, err)
		}
		key := tok.(string) // Token yields object keys as strings
		keyEnd := start + int(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, syntaxError(src, err)
		}
		valEnd := start + int(dec.InputOffset())
		obj.fields = append(obj.fields, field{
			key:      key,
			keyStart: keyStartOf(src, keyEnd),
			keyEnd:   keyEnd,
			valStart: valEnd - len(raw),
			valEnd:   valEnd,
		})
	}
	if _, err := dec.Token(); err != nil {
		return nil, syntaxError(src, err)
	}
	obj.close = start + int(dec.InputOffset()) - 1
	if _, err := dec.Token(); err != io.EOF {
		return nil, &Error{"it has more after its JSON object"}
	}
	return obj, nil
}

// keyStartOf is where the key that ends at keyEnd (just past its closing
// quote) opens: the quote before it that no backslash escapes.
func keyStartOf(src []byte, keyEnd int) int {
	for i := keyEnd - 2; i >= 0; i-- {
		if src[i] != '"' {
			continue
		}
		n := 0
		for j := i - 1; j >= 0 && src[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return i
		}
	}
	return 0
}

// arrayElements is the span of each element of the array src[start:end].
func arrayElements(src []byte, start, end int) ([][2]int, error) {
	dec := json.NewDecoder(bytes.NewReader(src[start:end]))
	if _, err := dec.Token(); err != nil {
		return nil, syntaxError(src, err)
	}
	var spans [][2]int
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, syntaxError(src, err)
		}
		e := start + int(dec.InputOffset())
		spans = append(spans, [2]int{e - len(raw), e})
	}
	return spans, nil
}

// syntaxError names the line and column of a JSON syntax error. The
// decoder's offsets count from the value it was reading, so the place is
// found again by checking the whole text.
func syntaxError(src []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		var whole json.RawMessage
		if errors.As(json.Unmarshal(src, &whole), &se) {
			off := int(se.Offset)
			if off > 0 {
				off-- // the offset is past the byte that was wrong
			}
			line := bytes.Count(src[:off], []byte("\n")) + 1
			col := off - bytes.LastIndexByte(src[:off], '\n')
			return &Error{fmt.Sprintf("it is not valid JSON (line %d, column %d: %s)", line, col, se.Error())}
		}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &Error{"it is not valid JSON (it ends too soon)"}
	}
	return &Error{"it is not valid JSON: " + err.Error()}
}

// gapWhitespace is the whitespace of a gap between two JSON tokens after
// its comma: what stands in front of the next key or element.
func gapWhitespace(gap []byte) string {
	if i := bytes.IndexByte(gap, ','); i >= 0 {
		gap = gap[i+1:]
	}
	return string(gap)
}
