package workspace

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"unicode/utf8"
)

// Bytes is captured output or file content in JSON data: a string when it
// is valid UTF-8, else {"bytes": "<base64>"} (as ripgrep's JSON does), so
// nothing is ever mangled into U+FFFD.
type Bytes []byte

// MarshalJSON writes a string or the base64 object.
func (b Bytes) MarshalJSON() ([]byte, error) {
	if utf8.Valid(b) {
		return marshalText(string(b))
	}
	return json.Marshal(struct {
		Bytes string `json:"bytes"`
	}{base64.StdEncoding.EncodeToString(b)})
}

// marshalText is json.Marshal without its HTML escaping: `<`, `>` and `&`
// stay as they are, as everywhere else in ws's JSON (render encodes with
// SetEscapeHTML(false), which a MarshalJSON's own escapes would undo).
func marshalText(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
