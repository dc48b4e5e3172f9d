package statefile

import (
	"bytes"
	"encoding/json"

	"github.com/wstools/ws/pkg/internal/jsonenc"
)

// String is a string in a state file that keeps its bytes. JSON holds a
// valid UTF-8 string as it is and anything else as {"bytes": base64}
// (the form of ws's --json output), so a file name, a command line or a
// variable that is not UTF-8 reads back as it was written, where a plain
// string field would come back with U+FFFD in place of the bad bytes.
type String string

// MarshalJSON writes a string, or the base64 object.
func (s String) MarshalJSON() ([]byte, error) { return jsonenc.Bytes([]byte(s)) }

// UnmarshalJSON reads either form.
func (s *String) UnmarshalJSON(data []byte) error {
	if d := bytes.TrimSpace(data); len(d) > 0 && d[0] == '{' {
		var b struct {
			Bytes []byte `json:"bytes"` // encoding/json decodes base64
		}
		if err := json.Unmarshal(d, &b); err != nil {
			return err
		}
		*s = String(b.Bytes)
		return nil
	}
	var plain string
	if err := json.Unmarshal(data, &plain); err != nil {
		return err
	}
	*s = String(plain)
	return nil
}

// Strings converts a list for a state file.
func Strings(list []string) []String { return convert[String](list) }

// Plain converts a list read from a state file back.
func Plain(list []String) []string { return convert[string](list) }

func convert[To, From ~string](list []From) []To {
	if list == nil {
		return nil
	}
	out := make([]To, len(list))
	for i, v := range list {
		out[i] = To(v)
	}
	return out
}
