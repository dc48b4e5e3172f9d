package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/jsonenc"
	"github.com/wstools/ws/pkg/js"
)

// A tool's parameters are declared once, as a request struct. Its JSON
// Schema (for `ws tools`) and its validation (for `ws call`) are both
// derived from the struct's fields and tags:
//
//	json:"name,omitempty"  the parameter name; without omitempty it is required
//	desc:"…"               the description shown to the model
//	default:"…"            the default, as JSON
//	min:"N" max:"N"        bounds of an integer; min on a list of objects
//	                       is its minItems, which the tool itself checks
//	enum:"a,b,c"           the allowed strings
//	coerce:"number"        a numeric string is accepted as a number
//	ws:"only"              a parameter Mastra's tool does not have: see Mastra

// maxSafeInt is JavaScript's Number.MAX_SAFE_INTEGER, the bound zod puts on
// integers.
const maxSafeInt = 9007199254740991

type fieldKind int

const (
	kindString fieldKind = iota
	kindInt
	kindNumber
	kindBool
	kindStrings // []string
	kindStringOrStrings
	kindObject  // json.RawMessage: any JSON object
	kindObjects // a slice of structs: a list of objects with fields of their own
)

// field is one parameter of a tool.
type field struct {
	name     string
	kind     fieldKind
	required bool
	desc     string
	def      string // JSON
	min, max *float64
	enum     []string
	coerce   bool
	nullable bool   // the schema says null is allowed (as Mastra's does)
	wsOnly   bool   // a ws feature: left out of Mastra's parameter list
	sub      Params // kindObjects: the fields of each object
}

// StringOrStrings is a parameter that takes one string or a list of them.
type StringOrStrings []string

// UnmarshalJSON accepts "x" as well as ["x", "y"].
func (s *StringOrStrings) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var one string
		if err := json.Unmarshal(b, &one); err != nil {
			return err
		}
		*s = StringOrStrings{one}
		return nil
	}
	var many []string
	err := json.Unmarshal(b, &many)
	*s = many
	return err
}

var (
	stringOrStringsType = reflect.TypeOf(StringOrStrings(nil))
	rawMessageType      = reflect.TypeOf(json.RawMessage(nil))
)

// Params is the parameter list of one tool, read from its request struct.
type Params []field

// For reads the parameters of the request struct type Req.
func For[Req any]() Params { return Of(reflect.TypeOf((*Req)(nil)).Elem()) }

// Mastra is the parameter list without the ws-only parameters (tagged
// ws:"only"): the list Mastra's tool has. Its schema leaves them out, and
// its validation refuses them as unknown keys.
func (p Params) Mastra() Params {
	var out Params
	for _, f := range p {
		if !f.wsOnly {
			out = append(out, f)
		}
	}
	return out
}

// WithEnum is the list with the allowed strings of the parameter name
// replaced by values (for a schema narrowed to what one workspace can do;
// p itself is unchanged).
func (p Params) WithEnum(name string, values []string) Params {
	out := slices.Clone(p)
	for i := range out {
		if out[i].name == name {
			out[i].enum = values
		}
	}
	return out
}

// WithDesc is the list with the description of the parameter name
// replaced by desc (p itself is unchanged).
func (p Params) WithDesc(name, desc string) Params {
	out := slices.Clone(p)
	for i := range out {
		if out[i].name == name {
			out[i].desc = desc
		}
	}
	return out
}

// Desc is the description of the parameter name ("" when it has none).
func (p Params) Desc(name string) string {
	for _, f := range p {
		if f.name == name {
			return f.desc
		}
	}
	return ""
}

// Names lists the parameter names in declaration order.
func (p Params) Names() []string {
	out := make([]string, len(p))
	for i, f := range p {
		out[i] = f.name
	}
	return out
}

// Constraint is what a parameter accepts beyond its type: bounds for
// numbers, the allowed strings for an enum.
type Constraint struct {
	Min, Max *float64
	Enum     []string
}

// Constraint returns the constraint of the parameter name (zero when it
// has none, or there is no such parameter).
func (p Params) Constraint(name string) Constraint {
	for _, f := range p {
		if f.name == name {
			return Constraint{Min: f.min, Max: f.max, Enum: f.enum}
		}
	}
	return Constraint{}
}

// JSON is the parameters as a draft-07 JSON Schema, keys in a fixed order.
func (p Params) JSON() json.Marshaler { return jsonSchema(p) }

// Validate checks raw arguments (JSON) of the tool called id as Mastra's
// zod schemas do and returns them cleaned, ready to decode into the
// request struct; see validate.
func (p Params) Validate(id string, raw []byte) ([]byte, error) { return validate(id, p, raw) }

// Of reads the parameters of a request struct type.
func Of(t reflect.Type) Params {
	var out []field
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" || !sf.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		f := field{name: name, required: !strings.Contains(opts, "omitempty"), desc: sf.Tag.Get("desc"), def: sf.Tag.Get("default")}
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
			f.required = false
		}
		switch {
		case ft == stringOrStringsType:
			f.kind = kindStringOrStrings
		case ft == rawMessageType:
			f.kind = kindObject
		case ft.Kind() == reflect.String:
			f.kind = kindString
		case ft.Kind() == reflect.Int || ft.Kind() == reflect.Int64:
			f.kind = kindInt
		case ft.Kind() == reflect.Float64:
			f.kind = kindNumber
		case ft.Kind() == reflect.Bool:
			f.kind = kindBool
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.String:
			f.kind = kindStrings
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			f.kind, f.sub = kindObjects, Of(ft.Elem())
		default:
			panic(fmt.Sprintf("schema: unsupported parameter type %s for %s", sf.Type, name))
		}
		if v, ok := sf.Tag.Lookup("min"); ok {
			n, _ := strconv.ParseFloat(v, 64)
			f.min = &n
		}
		if v, ok := sf.Tag.Lookup("max"); ok {
			n, _ := strconv.ParseFloat(v, 64)
			f.max = &n
		}
		if v, ok := sf.Tag.Lookup("enum"); ok {
			f.enum = strings.Split(v, ",")
		}
		f.coerce = sf.Tag.Get("coerce") == "number"
		f.nullable = sf.Tag.Get("null") == "true"
		f.wsOnly = sf.Tag.Get("ws") == "only"
		out = append(out, f)
	}
	return out
}

// orderedJSON is a JSON object whose keys keep their insertion order.
type orderedJSON struct {
	keys []string
	vals map[string]any
}

func newOrdered() *orderedJSON { return &orderedJSON{vals: map[string]any{}} }

func (o *orderedJSON) set(k string, v any) *orderedJSON {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
	return o
}

// MarshalJSON writes the keys in insertion order.
func (o *orderedJSON) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		vb, err := jsonenc.Marshal(o.vals[k])
		if err != nil {
			return nil, err
		}
		buf.Write(vb)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// jsonSchema builds the draft-07 schema of a parameter list.
func jsonSchema(fields []field) *orderedJSON {
	return objectSchema(fields, newOrdered().set("$schema", "http://json-schema.org/draft-07/schema#"))
}

// objectSchema adds to o the schema of an object with these fields.
func objectSchema(fields []field, o *orderedJSON) *orderedJSON {
	props := newOrdered()
	required := []string{}
	for _, f := range fields {
		p := newOrdered()
		switch f.kind {
		case kindString:
			p.set("type", "string")
		case kindInt:
			p.set("type", "integer")
		case kindNumber:
			p.set("type", "number")
		case kindBool:
			p.set("type", "boolean")
		case kindStrings:
			p.set("type", "array").set("items", map[string]any{"type": "string"})
		case kindStringOrStrings:
			p.set("anyOf", []any{map[string]any{"type": "string"}, map[string]any{"type": "array", "items": map[string]any{"type": "string"}}})
		case kindObject:
			p.set("type", "object").set("propertyNames", map[string]any{"type": "string"}).set("additionalProperties", map[string]any{})
		case kindObjects:
			p.set("type", "array").set("items", objectSchema(f.sub, newOrdered()))
			if f.min != nil {
				p.set("minItems", *f.min) // the tool checks it, with its own words
			}
		}
		if f.nullable {
			if t, ok := p.vals["type"].(string); ok {
				p.set("type", []string{t, "null"})
			}
		}
		if f.enum != nil {
			p.set("enum", f.enum)
		}
		if f.kind == kindInt {
			lo, hi := float64(-maxSafeInt), float64(maxSafeInt)
			if f.min != nil {
				lo = *f.min
			}
			if f.max != nil {
				hi = *f.max
			}
			p.set("minimum", lo).set("maximum", hi)
		} else if f.kind != kindObjects { // a list's min is its minItems
			if f.min != nil {
				p.set("minimum", *f.min)
			}
			if f.max != nil {
				p.set("maximum", *f.max)
			}
		}
		if f.def != "" {
			p.set("default", json.RawMessage(f.def))
		}
		if f.desc != "" {
			p.set("description", f.desc)
		}
		props.set(f.name, p)
		if f.required {
			required = append(required, f.name)
		}
	}
	return o.set("type", "object").
		set("properties", props).
		set("required", required).
		set("additionalProperties", false)
}

// validationError is Mastra's "Tool input validation failed" result, with
// the arguments cut as Mastra cuts them for its log.
func validationError(id string, issues []string, provided string) *errs.Error {
	return errs.Validation(id, issues, truncateForLog(provided))
}

// validate checks arguments against the parameters the way Mastra's zod
// schemas do (same messages, same order), and returns the cleaned
// arguments as JSON ready to decode into the request struct. Unlike
// Mastra, which drops them silently, unknown keys are reported: the schema
// handed to the model forbids them, and a misspelt parameter should not be
// ignored.
func validate(id string, fields []field, raw []byte) ([]byte, error) {
	v, err := parseJSValue(raw)
	if err != nil {
		return nil, errs.BadJSONArgs(id, err)
	}
	provided := v.echo()
	if v.kind == "null" {
		v = &jsValue{kind: "object", obj: map[string]*jsValue{}}
	}
	if v.kind != "object" {
		return nil, validationError(id, []string{"- root: Invalid input: expected object, received " + v.jsType()}, provided)
	}
	// Like Mastra's validator, the first pass treats null as a value (so
	// an optional field given null is an issue) and a string where a list
	// belongs as a string; when those are the only issues, the retry that
	// drops nulls and parses such strings succeeds. Otherwise every issue
	// of the first pass is reported.
	clean, issues, recoverable := checkObject(fields, v, "")
	if len(issues) > recoverable {
		return nil, validationError(id, issues, provided)
	}
	out, err := json.Marshal(clean)
	if err != nil {
		return nil, errs.Wrap(err)
	}
	return out, nil
}

// checkObject validates the fields of an object; path is the object's
// place in the arguments ("" at the top, "edits.0." inside a list). It
// returns the cleaned object, zod's issue lines, and how many of them
// Mastra's retry forgives.
func checkObject(fields []field, v *jsValue, path string) (clean map[string]any, issues []string, recoverable int) {
	clean = map[string]any{}
	known := map[string]bool{}
	for _, f := range fields {
		known[f.name] = true
		if f.kind == kindObjects {
			val, sub, soft := checkList(f, v.obj[f.name], path+f.name)
			issues, recoverable = append(issues, sub...), recoverable+soft
			if val != nil {
				clean[f.name] = val
			}
			continue
		}
		val, msg, soft := checkField(f, v.obj[f.name])
		if msg != "" {
			issues = append(issues, "- "+path+f.name+": "+msg)
			if soft {
				recoverable++
			}
		}
		if val != nil {
			clean[f.name] = val
		}
	}
	var unknown []string
	for _, k := range v.keys {
		if !known[k] {
			var sb strings.Builder
			js.Quote(&sb, k)
			unknown = append(unknown, sb.String())
		}
	}
	where := strings.TrimSuffix(path, ".")
	if where == "" {
		where = "root"
	}
	if len(unknown) == 1 {
		issues = append(issues, "- "+where+": Unrecognized key: "+unknown[0])
	} else if len(unknown) > 1 {
		issues = append(issues, "- "+where+": Unrecognized keys: "+strings.Join(unknown, ", "))
	}
	return clean, issues, recoverable
}

// checkList validates a list of objects, each element's issues under its
// index (edits.0.old_string), as zod reports them.
func checkList(f field, v *jsValue, path string) (any, []string, int) {
	switch {
	case v == nil && f.required:
		return nil, []string{"- " + path + ": Invalid input: expected array, received undefined"}, 0
	case v == nil:
		return nil, nil, 0
	case v.kind == "null":
		return nil, []string{"- " + path + ": Invalid input: expected array, received null"}, boolInt(!f.required)
	case v.kind == "string":
		// Mastra's retry parses a string that holds a JSON array.
		if p, err := parseJSValue([]byte(v.str)); err == nil && p.kind == "array" {
			val, issues, soft := checkList(f, p, path)
			return val, append(issues, "- "+path+": Invalid input: expected array, received string"), soft + 1
		}
	}
	if v.kind != "array" {
		return nil, []string{"- " + path + ": Invalid input: expected array, " + received(v)}, 0
	}
	out := make([]any, 0, len(v.arr))
	var issues []string
	soft := 0
	for i, e := range v.arr {
		at := path + "." + strconv.Itoa(i)
		if e.kind != "object" {
			issues = append(issues, "- "+at+": Invalid input: expected object, "+received(e))
			continue
		}
		clean, sub, s := checkObject(f.sub, e, at+".")
		issues, soft = append(issues, sub...), soft+s
		out = append(out, clean)
	}
	return out, issues, soft
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func received(v *jsValue) string { return "received " + v.jsType() }

// checkField validates one value. It returns the value to pass on (nil:
// absent), zod's message for the first pass, and whether that issue goes
// away in Mastra's retry (null for an optional field, a JSON list in a
// string).
func checkField(f field, v *jsValue) (any, string, bool) {
	if v == nil {
		if f.required {
			return nil, "Invalid input: expected " + kindName(f.kind) + ", received undefined", false
		}
		return nil, "", false
	}
	if v.kind == "null" {
		msg := "Invalid input: expected " + kindName(f.kind) + ", received null"
		switch {
		case f.enum != nil:
			msg = enumMessage(f.enum)
		case f.kind == kindStringOrStrings:
			msg = "Invalid input"
		}
		return nil, msg, !f.required
	}
	switch f.kind {
	case kindString:
		if f.enum != nil {
			if v.kind == "string" {
				for _, e := range f.enum {
					if v.str == e {
						return v.str, "", false
					}
				}
			}
			return nil, enumMessage(f.enum), false
		}
		if v.kind != "string" {
			return nil, "Invalid input: expected string, " + received(v), false
		}
		return v.str, "", false
	case kindBool:
		if v.kind != "boolean" {
			return nil, "Invalid input: expected boolean, " + received(v), false
		}
		return v.b, "", false
	case kindInt, kindNumber:
		n := v.num
		if v.kind == "string" && f.coerce && numericString(v.str) {
			n, _ = strconv.ParseFloat(strings.TrimSpace(v.str), 64)
		} else if v.kind != "number" {
			return nil, "Invalid input: expected number, " + received(v), false
		}
		// A literal beyond a double's range (1e400) is Infinity once
		// JavaScript has parsed it, and zod's number refuses it.
		if math.IsInf(n, 1) {
			return nil, "Invalid input: expected number, received Infinity", false
		}
		if math.IsInf(n, -1) {
			return nil, "Invalid input: expected number, received -Infinity", false
		}
		if f.kind == kindInt {
			if n != math.Trunc(n) {
				return nil, "Invalid input: expected int, received number", false
			}
			if n > maxSafeInt {
				return nil, "Too big: expected int to be <=9007199254740991", false
			}
			if n < -maxSafeInt {
				return nil, "Too small: expected int to be >=-9007199254740991", false
			}
		}
		if f.min != nil && n < *f.min {
			return nil, "Too small: expected number to be >=" + js.FormatNumber(*f.min), false
		}
		if f.max != nil && n > *f.max {
			return nil, "Too big: expected number to be <=" + js.FormatNumber(*f.max), false
		}
		return json.Number(js.FormatNumber(n)), "", false
	case kindObject:
		if v.kind != "object" {
			return nil, "Invalid input: expected record, " + received(v), false
		}
		return v.toGo(), "", false
	case kindStrings, kindStringOrStrings:
		soft := false
		if v.kind == "string" {
			if f.kind == kindStringOrStrings {
				return v.str, "", false
			}
			// Mastra's retry parses a string that holds a JSON array.
			if p, err := parseJSValue([]byte(v.str)); err == nil && p.kind == "array" {
				v, soft = p, true
			}
		}
		if v.kind != "array" {
			if f.kind == kindStringOrStrings {
				return nil, "Invalid input", false // zod's message for a failed union
			}
			return nil, "Invalid input: expected " + kindName(f.kind) + ", " + received(v), false
		}
		out := make([]string, 0, len(v.arr))
		for _, e := range v.arr {
			if e.kind != "string" {
				if f.kind == kindStringOrStrings {
					return nil, "Invalid input", false
				}
				return nil, "Invalid input: expected string, " + received(e), false
			}
			out = append(out, e.str)
		}
		if soft {
			return out, "Invalid input: expected array, received string", true
		}
		return out, "", false
	}
	return nil, "unsupported parameter", false
}

func enumMessage(enum []string) string {
	quoted := make([]string, len(enum))
	for i, e := range enum {
		quoted[i] = `"` + e + `"`
	}
	return "Invalid option: expected one of " + strings.Join(quoted, "|")
}

func kindName(k fieldKind) string {
	switch k {
	case kindInt, kindNumber:
		return "number"
	case kindBool:
		return "boolean"
	case kindStrings:
		return "array"
	case kindObject:
		return "record"
	case kindObjects:
		return "array"
	}
	return "string"
}

// numericString is the coercion rule of execute_command's numeric fields.
func numericString(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return false
	}
	if s[0] == '-' {
		s = s[1:]
	}
	intPart, frac, hasDot := strings.Cut(s, ".")
	digits := func(x string) bool {
		if x == "" {
			return false
		}
		for _, c := range x {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	}
	return digits(intPart) && (!hasDot || digits(frac))
}
