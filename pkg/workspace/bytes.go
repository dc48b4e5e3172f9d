package workspace

import (
	"github.com/wstools/ws/pkg/internal/jsonenc"
)

// Bytes is captured output or file content in JSON data: a string when it
// is valid UTF-8, else {"bytes": "<base64>"} (as ripgrep's JSON does), so
// nothing is ever mangled into U+FFFD.
type Bytes []byte

// MarshalJSON writes a string or the base64 object.
func (b Bytes) MarshalJSON() ([]byte, error) { return jsonenc.Bytes(b) }
