package workspace

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/errs"
)

func TestValidate(t *testing.T) {
	read, _ := Spec(ReadFile)
	write, _ := Spec(WriteFile)
	head := "Tool input validation failed for mastra_workspace_read_file. Please fix the following errors and try again:\n"
	tests := []struct {
		spec  *ToolSpec
		in    string
		clean string // on success
		err   string // on failure: the issue lines and provided part
	}{
		{read, `{"path":"a.txt"}`, `{"path":"a.txt"}`, ""},
		{read, `{"path":"a.txt","offset":null,"limit":null,"encoding":null}`, `{"path":"a.txt"}`, ""},
		{read, `{"path":"a.txt","offset":3,"limit":2.0}`, `{"limit":2,"offset":3,"path":"a.txt"}`, ""},
		{read, `{"path":"a.txt","offset":0}`, "", "- offset: Too small: expected number to be >=1\n\nProvided arguments: {\n  \"path\": \"a.txt\",\n  \"offset\": 0\n}"},
		{read, `{}`, "", "- path: Invalid input: expected string, received undefined\n\nProvided arguments: {}"},
		{read, `null`, "", "- path: Invalid input: expected string, received undefined\n\nProvided arguments: null"},
		{read, `{"path":null}`, "", "- path: Invalid input: expected string, received null\n\nProvided arguments: {\n  \"path\": null\n}"},
		{read, `{"path":5}`, "", "- path: Invalid input: expected string, received number\n\nProvided arguments: {\n  \"path\": 5\n}"},
		{read, `{"path":"a","offset":1.5}`, "", "- offset: Invalid input: expected int, received number\n\nProvided arguments: {\n  \"path\": \"a\",\n  \"offset\": 1.5\n}"},
		{read, `{"path":"a","offset":12345678901234567890}`, "", "- offset: Too big: expected int to be <=9007199254740991\n\nProvided arguments: {\n  \"path\": \"a\",\n  \"offset\": 12345678901234567000\n}"},
		{read, `{"path":"a","offset":"3"}`, "", "- offset: Invalid input: expected number, received string\n\nProvided arguments: {\n  \"path\": \"a\",\n  \"offset\": \"3\"\n}"},
		{read, `{"path":"a","encoding":"utf16"}`, "", "- encoding: Invalid option: expected one of \"utf-8\"|\"utf8\"|\"base64\"|\"hex\"|\"binary\"\n\nProvided arguments: {\n  \"path\": \"a\",\n  \"encoding\": \"utf16\"\n}"},
		{read, `"a.txt"`, "", "- root: Invalid input: expected object, received string\n\nProvided arguments: \"a.txt\""},
		{read, `[]`, "", "- root: Invalid input: expected object, received array\n\nProvided arguments: []"},
		{read, `{"path":"a.txt","offest":5}`, "", "- root: Unrecognized key: \"offest\"\n\nProvided arguments: {\n  \"path\": \"a.txt\",\n  \"offest\": 5\n}"},
		{read, `{"path":"a","offset":0,"limit":-1,"encoding":"x","showLineNumbers":1}`, "",
			"- offset: Too small: expected number to be >=1\n- limit: Too small: expected number to be >=1\n- showLineNumbers: Invalid input: expected boolean, received number\n- encoding: Invalid option: expected one of \"utf-8\"|\"utf8\"|\"base64\"|\"hex\"|\"binary\"\n\nProvided arguments: {\n  \"path\": \"a\",\n  \"offset\": 0,\n  \"limit\": -1,\n  \"encoding\": \"x\",\n  \"showLineNumbers\": 1\n}"},
		{write, `{"path":"w.txt"}`, "", "- content: Invalid input: expected string, received undefined\n\nProvided arguments: {\n  \"path\": \"w.txt\"\n}"},
	}
	for _, tt := range tests {
		clean, err := tt.spec.params().Validate(tt.spec.ID, []byte(tt.in))
		if tt.err == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.in, err)
				continue
			}
			var got, want any
			json.Unmarshal(clean, &got)
			json.Unmarshal([]byte(tt.clean), &want)
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			if string(g) != string(w) {
				t.Errorf("%s: cleaned to %s, want %s", tt.in, g, w)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: accepted, want failure", tt.in)
			continue
		}
		h := head
		if tt.spec == write {
			h = strings.Replace(head, "read_file", "write_file", 1)
		}
		if err.Error() != h+tt.err {
			t.Errorf("%s:\n got %q\nwant %q", tt.in, err.Error(), h+tt.err)
		}
		if errs.CodeOf(err) != errs.InvalidArgument {
			t.Errorf("%s: code %s", tt.in, errs.CodeOf(err))
		}
	}
	if _, err := read.params().Validate(read.ID, []byte(`{"path":`)); err == nil || !strings.HasPrefix(err.Error(), "invalid JSON arguments for mastra_workspace_read_file: ") {
		t.Errorf("bad JSON: %v", err)
	}
}

func TestSchema(t *testing.T) {
	mkdir, _ := Spec(Mkdir)
	b, err := json.Marshal(mkdir.Schema(false))
	must(t, err)
	var s struct {
		Schema     string                    `json:"$schema"`
		Type       string                    `json:"type"`
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
		Additional bool                      `json:"additionalProperties"`
	}
	must(t, json.Unmarshal(b, &s))
	if s.Schema != "http://json-schema.org/draft-07/schema#" || s.Type != "object" || s.Additional ||
		strings.Join(s.Required, ",") != "path" || s.Properties["recursive"]["default"] != true ||
		s.Properties["recursive"]["type"] != "boolean" || s.Properties["path"]["type"] != "string" {
		t.Errorf("mkdir schema: %s", b)
	}
	if !strings.HasPrefix(string(b), `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"path":`) {
		t.Errorf("key order: %s", b)
	}
}

// TestCallBoundedInput: hostile JSON arguments (nested 200 000 levels, or
// over the size limit) are a validation error within milliseconds, with a
// short echo, through the call path that `ws call` and `ws mcp` share.
func TestCallBoundedInput(t *testing.T) {
	w, _ := newTestWorkspace(t, nil, "a.txt")
	inputs := map[string]string{
		"deep":     `{"path":` + strings.Repeat("[", 200000) + strings.Repeat("]", 200000) + `}`,
		"unclosed": `{"path":` + strings.Repeat("[{\"a\":", 100000),
		"big":      `{"path":"a.txt","content":"` + strings.Repeat("x", 64<<20) + `"}`,
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			_, _, err := w.Call(context.Background(), WriteFile, []byte(in))
			d := time.Since(start)
			if errs.CodeOf(err) != errs.InvalidArgument {
				t.Fatalf("error %v, want a validation error", err)
			}
			if !strings.HasPrefix(err.Error(), "Tool input validation failed for "+WriteFile) {
				t.Errorf("message: %.200q", err.Error())
			}
			if len(err.Error()) > 1000 {
				t.Errorf("the message takes %d bytes", len(err.Error()))
			}
			if d > 2*time.Second {
				t.Errorf("refusing took %v", d)
			}
		})
	}
}
