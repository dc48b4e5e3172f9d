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

// bytesOf converts a list of names for --json data (an empty list stays
// an empty list, not null).
func bytesOf(list []string) []Bytes {
	out := make([]Bytes, len(list))
	for i, s := range list {
		out[i] = Bytes(s)
	}
	return out
}
