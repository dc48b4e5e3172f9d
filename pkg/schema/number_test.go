package schema

import (
	"encoding/json"
	"strings"
	"testing"
)

type numbersReq struct {
	Depth   *float64 `json:"depth,omitempty"`
	Offset  *int     `json:"offset,omitempty" min:"1"`
	Timeout *float64 `json:"timeout,omitempty" coerce:"number"`
}

type metadataReq struct {
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// TestNonFiniteNumbers: a number literal too large for a double (1e400)
// is JavaScript's Infinity once parsed, which zod's number refuses with
// its own message; the call is a validation failure (exit 2), not an
// internal error. Inside a free-form object it is stored as
// JSON.stringify stores it: null.
func TestNonFiniteNumbers(t *testing.T) {
	p := For[numbersReq]()
	tests := []struct {
		name, raw, issue string
	}{
		{"number", `{"depth":1e400}`, "- depth: Invalid input: expected number, received Infinity"},
		{"negative", `{"depth":-1e400}`, "- depth: Invalid input: expected number, received -Infinity"},
		{"integer", `{"offset":1e400}`, "- offset: Invalid input: expected number, received Infinity"},
		{"coerced numeric string", `{"timeout":"` + strings.Repeat("9", 400) + `"}`, "- timeout: Invalid input: expected number, received Infinity"},
		{"the largest double is a number", `{"depth":1.7976931348623157e308}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := p.Validate("tool", []byte(tt.raw))
			switch {
			case tt.issue == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.issue != "" && err == nil:
				t.Fatal("accepted")
			case tt.issue != "" && !strings.Contains(err.Error(), "\n"+tt.issue+"\n"):
				t.Fatalf("error %q does not say %q", err, tt.issue)
			case tt.issue != "" && !strings.HasPrefix(err.Error(), "Tool input validation failed for tool."):
				t.Fatalf("not a validation failure: %q", err)
			}
		})
	}
	clean, err := For[metadataReq]().Validate("tool", []byte(`{"metadata":{"a":1e400,"b":[-1e400,2]}}`))
	if err != nil || string(clean) != `{"metadata":{"a":null,"b":[null,2]}}` {
		t.Errorf("metadata: %s %v", clean, err)
	}
}
