package schema

import (
	"encoding/json"
	"testing"
)

func TestStrict(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"optional becomes nullable, all required, no others",
			`{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer","minimum":1,"default":2000}},"required":["path"],"additionalProperties":false,"$schema":"x"}`,
			`{"additionalProperties":false,"properties":{"limit":{"type":["integer","null"]},"path":{"type":"string"}},"required":["limit","path"],"type":"object"}`},
		{"an enum takes null too",
			`{"type":"object","properties":{"mode":{"type":"string","enum":["a","b"]}}}`,
			`{"additionalProperties":false,"properties":{"mode":{"enum":["a","b",null],"type":["string","null"]}},"required":["mode"],"type":"object"}`},
		{"anyOf gets a null branch",
			`{"type":"object","properties":{"x":{"anyOf":[{"type":"string"},{"type":"array","items":{"type":"string"},"minItems":1}]}}}`,
			`{"additionalProperties":false,"properties":{"x":{"anyOf":[{"type":"string"},{"items":{"type":"string"},"type":"array"},{"type":"null"}]}},"required":["x"],"type":"object"}`},
		{"nested objects in arrays too",
			`{"type":"object","properties":{"edits":{"type":"array","items":{"type":"object","properties":{"old":{"type":"string"},"all":{"type":"boolean","default":false}},"required":["old"]}}},"required":["edits"]}`,
			`{"additionalProperties":false,"properties":{"edits":{"items":{"additionalProperties":false,"properties":{"all":{"type":["boolean","null"]},"old":{"type":"string"}},"required":["all","old"],"type":"object"},"type":"array"}},"required":["edits"],"type":"object"}`},
		{"an optional free-form object is left out",
			`{"type":"object","properties":{"path":{"type":"string"},"metadata":{"type":"object","propertyNames":{"type":"string"},"additionalProperties":{}}},"required":["path"]}`,
			`{"additionalProperties":false,"properties":{"path":{"type":"string"}},"required":["path"],"type":"object"}`},
		{"so is an optional list of them",
			`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"object","additionalProperties":{"type":"string"}}}}}`,
			`{"additionalProperties":false,"properties":{},"required":[],"type":"object"}`},
		{"an optional object with properties stays",
			`{"type":"object","properties":{"o":{"type":"object","properties":{"a":{"type":"string"}}}}}`,
			`{"additionalProperties":false,"properties":{"o":{"additionalProperties":false,"properties":{"a":{"type":["string","null"]}},"required":["a"],"type":["object","null"]}},"required":["o"],"type":"object"}`},
		{"a type list keeps one null",
			`{"type":"object","properties":{"n":{"type":["number","null"]}}}`,
			`{"additionalProperties":false,"properties":{"n":{"type":["number","null"]}},"required":["n"],"type":"object"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in map[string]any
			if err := json.Unmarshal([]byte(tt.in), &in); err != nil {
				t.Fatal(err)
			}
			before, _ := json.Marshal(in)
			got, _ := json.Marshal(Strict(in))
			if string(got) != tt.want {
				t.Errorf("Strict:\n got  %s\n want %s", got, tt.want)
			}
			if after, _ := json.Marshal(in); string(after) != string(before) {
				t.Errorf("Strict changed its input: %s", after)
			}
		})
	}
}
