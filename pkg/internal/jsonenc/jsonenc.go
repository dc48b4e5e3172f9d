// Package jsonenc holds how ws encodes JSON: as encoding/json does, but
// without its HTML escaping, so `<`, `>` and `&` stay as they are.
package jsonenc

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"unicode/utf8"
)

// Marshal is json.Marshal without HTML escaping. A MarshalJSON method
// uses it too, since the escapes it returned would survive an encoder
// that escapes nothing.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// String is s as a JSON string, `<`, `>` and `&` as they are.
func String(s string) string {
	b, _ := Marshal(s) // a string always encodes
	return string(b)
}

// Bytes is b as ws writes data that may not be text: a JSON string when b
// is valid UTF-8, else {"bytes": "<base64>"} (ripgrep's form), so no byte
// is turned into U+FFFD.
func Bytes(b []byte) ([]byte, error) {
	if utf8.Valid(b) {
		return Marshal(string(b))
	}
	return Base64(b)
}

// Base64 is {"bytes": "<base64>"}.
func Base64(b []byte) ([]byte, error) {
	return json.Marshal(struct {
		Bytes string `json:"bytes"`
	}{base64.StdEncoding.EncodeToString(b)})
}
