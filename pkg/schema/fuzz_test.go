package schema

import (
	"encoding/json"
	"reflect"
	"testing"
)

// fuzzItem and fuzzRequest hold a parameter of every kind and rule the
// tools use (see the request structs of pkg/workspace).
type fuzzItem struct {
	Old string `json:"old_string" desc:"x"`
	New string `json:"new_string" desc:"x"`
	All *bool  `json:"replace_all,omitempty" desc:"x"`
}

type fuzzRequest struct {
	Path     string          `json:"path" desc:"x"`
	Offset   *int            `json:"offset,omitempty" min:"1" desc:"x"`
	Depth    *int            `json:"maxDepth,omitempty" default:"2" desc:"x"`
	Timeout  *float64        `json:"timeout,omitempty" coerce:"number" min:"0" null:"true" desc:"x"`
	Score    *float64        `json:"minScore,omitempty" desc:"x"`
	Lines    *bool           `json:"showLineNumbers,omitempty" default:"true" desc:"x"`
	Encoding string          `json:"encoding,omitempty" enum:"utf-8,base64,hex" desc:"x"`
	Cwd      *string         `json:"cwd,omitempty" null:"true" desc:"x"`
	Env      []string        `json:"env,omitempty" desc:"x"`
	Pattern  StringOrStrings `json:"pattern,omitempty" desc:"x"`
	Meta     json.RawMessage `json:"metadata,omitempty" desc:"x"`
	Edits    []fuzzItem      `json:"edits,omitempty" desc:"x"`
}

// FuzzValidate: JSON arguments of any shape are either refused with a
// validation error or cleaned into arguments that decode into the request,
// as `ws call` and `ws mcp` decode them; nothing panics, and the limits'
// refusal stays short whatever the input.
func FuzzValidate(f *testing.F) {
	for _, s := range []string{`{}`, `null`, `[]`, `"x"`, `{"path":"a.txt"}`, `{"path":"a.txt","offset":"3","maxDepth":2.5}`,
		`{"path":null,"timeout":"1.5"}`, `{"path":"f","edits":[{"old_string":"a","new_string":"b"},{"old_string":1}]}`,
		`{"path":"p","timeout":-1,"cwd":null}`, `{"path":"p","pattern":"*.go"}`, `{"path":"p","pattern":["a",1]}`,
		`{"path":"a","path":"b"}`, `{"path":"\ud800"}`, `{"path":"p","metadata":{"a":[[[[[]]]]]}}`, `{"path":"p","minScore":1e309}`,
		`{"path":"p","showLineNumbers":"false"}`, `{"path":"p","encoding":"utf-16"}`, `{"path":"a"} x`, `{"path":"p","env":"A=1"}`} {
		f.Add([]byte(s))
	}
	params := Of(reflect.TypeOf(fuzzRequest{}))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if err := CheckArgs("t", raw); err != nil {
			if len(err.Error()) > 2000 {
				t.Fatalf("refusal of %d bytes", len(err.Error()))
			}
			return
		}
		clean, err := params.Validate("t", raw)
		if err != nil {
			return
		}
		var req fuzzRequest // decoded as pkg/workspace decodes a request
		if err := json.Unmarshal(clean, &req); err != nil {
			t.Fatalf("%s validated to %s, which does not decode: %v", raw, clean, err)
		}
	})
}
