// Package jsonenc holds how ws encodes JSON: as encoding/json does, but
// without its HTML escaping, so `<`, `>` and `&` stay as they are; and
// the two steps that ws's scanners of JSON known to be valid share
// (SkipSpace, StringEnd), which split a big document without decoding it.
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
	return string(AppendString(nil, s))
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

// AppendString appends s as a JSON string, byte for byte what Marshal
// writes for it (HTML characters as they are; invalid UTF-8 as U+FFFD;
// U+2028 and U+2029 escaped), without reflection or a buffer of its own:
// for writers that send one message per line found.
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendBytes appends b as Bytes writes it: a JSON string when b is UTF-8,
// else {"bytes": base64}.
func AppendBytes(dst []byte, b []byte) []byte {
	if utf8.Valid(b) {
		return AppendString(dst, string(b))
	}
	dst = append(dst, `{"bytes":"`...)
	dst = base64.StdEncoding.AppendEncode(dst, b)
	return append(dst, `"}`...)
}
