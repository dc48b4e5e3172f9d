// Package jsonenc holds how ws encodes JSON: as encoding/json does, but
// without its HTML escaping, so `<`, `>` and `&` stay as they are.
package jsonenc

import (
	"bytes"
	"encoding/json"
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
