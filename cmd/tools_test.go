package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/wstools/ws/pkg/workspace"
)

// TestToolSchemasValidate compiles every emitted schema, in every format,
// with a JSON Schema validator and checks sample calls against it: the
// calls ws accepts validate, and calls it refuses do not.
func TestToolSchemasValidate(t *testing.T) {
	ws, err := workspace.New(workspace.Options{Root: t.TempDir(), StateDir: t.TempDir(), Supervisor: []string{"ws"}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	var defs []toolDef
	for _, o := range ws.Offered() {
		defs = append(defs, toolDef{Name: o.Name, ID: o.Spec.ID, Description: o.Description(), Parameters: o.Schema()})
	}
	valid := map[string][]string{
		"mastra_workspace_read_file":          {`{"path":"a.txt"}`, `{"path":"a","offset":3,"limit":2,"showLineNumbers":false,"encoding":"hex"}`},
		"mastra_workspace_write_file":         {`{"path":"a","content":"x"}`, `{"path":"a","content":"","overwrite":false}`},
		"mastra_workspace_edit_file":          {`{"path":"a","old_string":"x","new_string":"y","replace_all":true}`},
		"mastra_workspace_list_files":         {`{}`, `{"path":"src","maxDepth":3,"pattern":["*.ts","*.go"],"exclude":"a|b"}`, `{"pattern":"*.ts"}`},
		"mastra_workspace_delete":             {`{"path":"a","recursive":true}`},
		"mastra_workspace_file_stat":          {`{"path":"a"}`},
		"mastra_workspace_mkdir":              {`{"path":"a","recursive":false}`},
		"mastra_workspace_grep":               {`{"pattern":"x"}`, `{"pattern":"x","path":"src","contextLines":2,"maxCount":5,"caseSensitive":false,"includeHidden":true}`},
		"mastra_workspace_execute_command":    {`{"command":"ls"}`, `{"command":"ls","timeout":1.5,"cwd":"src","tail":-2,"background":true,"env":["A=1"]}`},
		"mastra_workspace_get_process_output": {`{"pid":"123","tail":0,"wait":true,"waitTimeout":2}`},
		"mastra_workspace_kill_process":       {`{"pid":"123"}`},
	}
	invalid := map[string][]string{
		"mastra_workspace_read_file":    {`{}`, `{"path":5}`, `{"path":"a","offset":0}`, `{"path":"a","encoding":"utf16"}`, `{"path":"a","bogus":1}`},
		"mastra_workspace_write_file":   {`{"path":"a"}`, `{"path":"a","content":"x","overwrite":"yes"}`},
		"mastra_workspace_grep":         {`{"path":"."}`},
		"mastra_workspace_kill_process": {`{"pid":123}`},
	}
	for format, shape := range toolFormats {
		var buf bytes.Buffer
		if err := json.NewEncoder(&buf).Encode(shape(ws, defs)); err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(&buf)
		if err != nil {
			t.Fatal(err)
		}
		for name, schema := range schemasOf(t, format, doc) {
			c := jsonschema.NewCompiler()
			c.DefaultDraft(jsonschema.Draft7)
			url := fmt.Sprintf("mem://%s/%s.json", format, name)
			if err := c.AddResource(url, schema); err != nil {
				t.Fatalf("%s %s: %v", format, name, err)
			}
			sch, err := c.Compile(url)
			if err != nil {
				t.Fatalf("%s %s: schema does not compile: %v", format, name, err)
			}
			strict := format == "openai-strict"
			if strict {
				checkStrict(t, name, schema)
			}
			for _, call := range valid[name] {
				v, _ := jsonschema.UnmarshalJSON(strings.NewReader(call))
				if strict {
					// A strict model sends every parameter: null for
					// those it leaves out.
					v = withNulls(v, schema)
				}
				if err := sch.Validate(v); err != nil {
					t.Errorf("%s %s: %s rejected: %v", format, name, call, err)
				}
			}
			for _, call := range invalid[name] {
				if strict && boundsOnly[call] {
					continue // strict schemas leave bounds to the call's own check
				}
				v, _ := jsonschema.UnmarshalJSON(strings.NewReader(call))
				if strict {
					v = withNulls(v, schema)
				}
				if err := sch.Validate(v); err == nil {
					t.Errorf("%s %s: %s accepted", format, name, call)
				}
			}
		}
	}
	for name := range valid {
		if _, err := ws.Lookup(name); err != nil {
			t.Errorf("sample calls for %s, which is not offered", name)
		}
	}
}

// boundsOnly are the invalid sample calls only a bound refuses (a
// minimum), which strict schemas leave out.
var boundsOnly = map[string]bool{`{"path":"a","offset":0}`: true}

// checkStrict requires what OpenAI's strict mode requires of a schema:
// each object lists every property as required and allows no others, and
// none of the keywords it may refuse is left.
func checkStrict(t *testing.T, name string, s any) {
	t.Helper()
	switch s := s.(type) {
	case map[string]any:
		for _, k := range []string{"default", "minimum", "maximum", "minItems", "$schema"} {
			if _, ok := s[k]; ok {
				t.Errorf("openai-strict %s: keyword %s left in %v", name, k, s)
			}
		}
		if props, ok := s["properties"].(map[string]any); ok {
			req, _ := s["required"].([]any)
			if s["additionalProperties"] != false || len(req) != len(props) {
				t.Errorf("openai-strict %s: an object that is not strict: %v", name, s)
			}
		}
		for _, v := range s {
			checkStrict(t, name, v)
		}
	case []any:
		for _, v := range s {
			checkStrict(t, name, v)
		}
	}
}

// withNulls is the call v with null for each property of the schema s
// that it leaves out (top level).
func withNulls(v, s any) any {
	call, ok := v.(map[string]any)
	props, ok2 := s.(map[string]any)["properties"].(map[string]any)
	if !ok || !ok2 {
		return v
	}
	for name := range props {
		if _, given := call[name]; !given {
			call[name] = nil
		}
	}
	return call
}

// schemasOf pulls the parameter schemas out of one format's document.
func schemasOf(t *testing.T, format string, doc any) map[string]any {
	out := map[string]any{}
	var list []any
	switch format {
	case "mcp":
		list = doc.(map[string]any)["tools"].([]any)
	default:
		list = doc.([]any)
	}
	for _, e := range list {
		m := e.(map[string]any)
		switch format {
		case "json":
			out[m["name"].(string)] = m["parameters"]
		case "openai", "openai-strict":
			if m["type"] != "function" || (format == "openai-strict") != (m["function"].(map[string]any)["strict"] == true) {
				t.Fatalf("openai entry without type function: %v", m)
			}
			f := m["function"].(map[string]any)
			out[f["name"].(string)] = f["parameters"]
		case "anthropic":
			out[m["name"].(string)] = m["input_schema"]
		case "mcp":
			out[m["name"].(string)] = m["inputSchema"]
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no tools", format)
	}
	return out
}
