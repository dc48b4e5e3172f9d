package upload

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/wstools/ws/pkg/internal/jsonenc"
)

// A message list is mostly base64, megabytes of it, four levels deep
// (list, message, content, part). encoding/json checks and copies a
// value again at each level it is asked to decode, so ParseMessages checks
// the whole document once (json.Valid) and then splits it with the
// helpers below, which trust that it is valid: strings are skipped with
// bytes.IndexByte, and values are subslices of the document, not copies.

// errNotObject is unmarshalRaw's error for a value that is not an object.
var errNotObject = errors.New("not an object")

// elements are the values of the array arr.
func elements(arr []byte) []json.RawMessage {
	out := []json.RawMessage{}
	i := jsonenc.SkipSpace(arr, 1)
	for i < len(arr) && arr[i] != ']' {
		end := jsonenc.ValueEnd(arr, i)
		out = append(out, arr[i:end:end])
		i = jsonenc.SkipSpace(arr, end)
		if i < len(arr) && arr[i] == ',' {
			i = jsonenc.SkipSpace(arr, i+1)
		}
	}
	return out
}

// eachField calls fn with every key (decoded) and value of the object obj,
// in order.
func eachField(obj []byte, fn func(key string, val json.RawMessage)) {
	fieldSpans(obj, func(key string, start, end int) { fn(key, obj[start:end:end]) })
}

// fieldSpans calls fn with every key (decoded) of the object obj and where
// its value starts and ends, in order.
func fieldSpans(obj []byte, fn func(key string, start, end int)) {
	i := jsonenc.SkipSpace(obj, 1)
	for i < len(obj) && obj[i] == '"' {
		kend := jsonenc.StringEnd(obj, i)
		key, _ := jsonString(obj[i:kend])
		i = jsonenc.SkipSpace(obj, kend)
		i = jsonenc.SkipSpace(obj, i+1) // the colon
		end := jsonenc.ValueEnd(obj, i)
		fn(key, i, end)
		i = jsonenc.SkipSpace(obj, end)
		if i < len(obj) && obj[i] == ',' {
			i = jsonenc.SkipSpace(obj, i+1)
		}
	}
}

// unmarshalRaw is json.Unmarshal(raw, v) for raw that is valid JSON and v
// a pointer to a struct whose fields are all json.RawMessage with a json
// tag: a key matches a field's name ignoring case, the last one given wins,
// and null leaves the struct as it is. The values are subslices of raw.
func unmarshalRaw(raw []byte, v any) error {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return nil
	}
	if len(raw) == 0 || raw[0] != '{' {
		return errNotObject
	}
	rv := reflect.ValueOf(v).Elem()
	rt := rv.Type()
	eachField(raw, func(key string, val json.RawMessage) {
		for i := 0; i < rt.NumField(); i++ {
			name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			if strings.EqualFold(name, key) {
				rv.Field(i).Set(reflect.ValueOf(val))
				return
			}
		}
	})
	return nil
}

// jsonString decodes a JSON string; ok is false for any other value.
func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true // nothing to unescape or replace
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}
