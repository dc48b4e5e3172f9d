package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/wstools/ws/pkg/js"
)

// jsValue is a JSON value that keeps object key order, so arguments can be
// echoed back exactly as JavaScript's JSON.stringify would print them.
type jsValue struct {
	kind string // "null", "boolean", "number", "string", "array", "object"
	b    bool
	num  float64
	raw  string // number literal as given
	str  string
	arr  []*jsValue
	keys []string
	obj  map[string]*jsValue
}

// jsType is the type name zod reports for a value ("received …").
func (v *jsValue) jsType() string {
	if v == nil {
		return "undefined"
	}
	return v.kind
}

// parseJSValue decodes one JSON document, keeping key order. Duplicate keys
// keep the last value, as JavaScript does.
func parseJSValue(data []byte) (*jsValue, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeJS(dec)
	if err != nil {
		return nil, syntaxWords(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return v, nil
}

// syntaxWords rewords the one syntax error of encoding/json that reads
// as nonsense to whoever wrote the text: a bare word is taken for a
// misspelt true, false or null ("invalid character 'o' in literal null
// (expecting 'u')" for `not json`).
func syntaxWords(err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return err
	}
	if head, _, ok := strings.Cut(se.Error(), " in literal "); ok {
		return errors.New(head + " in a bare word: JSON's only ones are true, false and null (a string needs quotes)")
	}
	return err
}

// token is dec's next token; text that ends inside a value, wherever it
// ends, says so in one wording (the decoder gives io.EOF between tokens,
// io.ErrUnexpectedEOF within one).
func token(dec *json.Decoder) (json.Token, error) {
	tok, err := dec.Token()
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return nil, errors.New("unexpected end of JSON input")
	}
	return tok, err
}

func decodeJS(dec *json.Decoder) (*jsValue, error) {
	tok, err := token(dec)
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		return &jsValue{kind: "null"}, nil
	case bool:
		return &jsValue{kind: "boolean", b: t}, nil
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil && !strings.Contains(err.Error(), "range") {
			return nil, err
		}
		return &jsValue{kind: "number", num: f, raw: string(t)}, nil
	case string:
		return &jsValue{kind: "string", str: t}, nil
	case json.Delim:
		switch t {
		case '[':
			v := &jsValue{kind: "array"}
			for dec.More() {
				e, err := decodeJS(dec)
				if err != nil {
					return nil, err
				}
				v.arr = append(v.arr, e)
			}
			_, err := token(dec)
			return v, err
		case '{':
			v := &jsValue{kind: "object", obj: map[string]*jsValue{}}
			for dec.More() {
				kt, err := token(dec)
				if err != nil {
					return nil, err
				}
				k := kt.(string)
				e, err := decodeJS(dec)
				if err != nil {
					return nil, err
				}
				if _, dup := v.obj[k]; !dup {
					v.keys = append(v.keys, k)
				}
				v.obj[k] = e
			}
			v.keys = jsKeyOrder(v.keys)
			_, err := token(dec)
			return v, err
		}
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

// jsKeyOrder puts keys, in the order they came, in the order of a
// JavaScript object's own keys (which JSON.stringify and zod's unknown
// keys follow): the array indices first ("0", "7", "12": canonical
// decimals below 2^32-1), by value, then the other keys as they came.
func jsKeyOrder(keys []string) []string {
	var index []uint64
	var other []string
	for _, k := range keys {
		if n, err := strconv.ParseUint(k, 10, 32); err == nil && n < math.MaxUint32 && strconv.FormatUint(n, 10) == k {
			index = append(index, n)
		} else {
			other = append(other, k)
		}
	}
	if len(index) == 0 {
		return keys
	}
	slices.Sort(index)
	out := make([]string, 0, len(keys))
	for _, n := range index {
		out = append(out, strconv.FormatUint(n, 10))
	}
	return append(out, other...)
}

// toGo turns the value into plain Go values for encoding/json.
func (v *jsValue) toGo() any {
	switch v.kind {
	case "boolean":
		return v.b
	case "number":
		if math.IsInf(v.num, 0) {
			return nil // Infinity: JSON.stringify writes null
		}
		return json.Number(js.FormatNumber(v.num))
	case "string":
		return v.str
	case "array":
		out := make([]any, len(v.arr))
		for i, e := range v.arr {
			out[i] = e.toGo()
		}
		return out
	case "object":
		out := make(map[string]any, len(v.obj))
		for k, e := range v.obj {
			out[k] = e.toGo()
		}
		return out
	}
	return nil
}

// stringify prints v as JSON.stringify(v, null, 2) does.
func (v *jsValue) stringify() string { return v.stringifyMax(0) }

// echo is the start of stringify, enough for truncateForLog to cut as it
// would cut the whole: the echo of a failed call costs the same whatever
// the size of the arguments.
func (v *jsValue) echo() string { return v.stringifyMax(echoBytes) }

// stringifyMax is stringify, stopped once at least max bytes are written
// (max 0: never).
func (v *jsValue) stringifyMax(max int) string {
	p := &printer{max: max}
	v.write(p, "")
	return p.sb.String()
}

// printer collects printed JSON up to a size.
type printer struct {
	sb  strings.Builder
	max int
}

func (p *printer) full() bool { return p.max > 0 && p.sb.Len() >= p.max }

func (p *printer) quote(s string) {
	if p.max > 0 && len(s) > p.max {
		s = s[:p.max] // the rest would be cut away
	}
	js.Quote(&p.sb, s)
}

func (v *jsValue) write(p *printer, indent string) {
	if p.full() {
		return
	}
	sb := &p.sb
	switch v.kind {
	case "null":
		sb.WriteString("null")
	case "boolean":
		sb.WriteString(strconv.FormatBool(v.b))
	case "number":
		sb.WriteString(js.FormatNumber(v.num))
	case "string":
		p.quote(v.str)
	case "array":
		writeMembers(p, indent, '[', ']', len(v.arr), func(i int, indent string) {
			v.arr[i].write(p, indent)
		})
	case "object":
		writeMembers(p, indent, '{', '}', len(v.keys), func(i int, indent string) {
			p.quote(v.keys[i])
			sb.WriteString(": ")
			v.obj[v.keys[i]].write(p, indent)
		})
	}
}

// writeMembers prints the n members of an array or object between open
// and close, one a line and indented two spaces more than indent, as
// JSON.stringify(v, null, 2) does; member(i, indent) prints the i'th.
// No members print as open and close alone.
func writeMembers(p *printer, indent string, open, close byte, n int, member func(i int, indent string)) {
	sb := &p.sb
	sb.WriteByte(open)
	if n == 0 {
		sb.WriteByte(close)
		return
	}
	sb.WriteByte('\n')
	inner := indent + "  "
	for i := 0; i < n && !p.full(); i++ {
		sb.WriteString(inner)
		member(i, inner)
		if i < n-1 {
			sb.WriteByte(',')
		}
		sb.WriteByte('\n')
	}
	if p.full() {
		return // cut off anyway
	}
	sb.WriteString(indent)
	sb.WriteByte(close)
}

// truncateForLog cuts s after 200 UTF-16 code units, as Mastra does when it
// echoes the arguments of a failed call; a split surrogate pair becomes
// U+FFFD, which is what a JavaScript string with a lone surrogate prints as.
func truncateForLog(s string) string {
	const max = 200
	if js.UTF16Len(s) <= max {
		return s
	}
	return js.CutUTF16(s, max) + "... (truncated)"
}
