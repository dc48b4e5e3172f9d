package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/workspace"
)

// TestToolSchemasValidate compiles every emitted schema, in every format,
// with a JSON Schema validator and checks sample calls against it: the
// calls ws accepts validate, and calls it refuses do not.
func TestToolSchemasValidate(t *testing.T) {
	ws, defs := offeredDefs(t, t.TempDir(), nil)
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
// every object lists its properties, all of them required, and allows no
// others; none has propertyNames, and none of the keywords strict mode
// may refuse is left.
func checkStrict(t *testing.T, name string, schema any) {
	t.Helper()
	eachSchema(schema, func(s map[string]any) {
		for _, k := range []string{"default", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
			"minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "pattern", "format", "$schema", "propertyNames"} {
			if _, ok := s[k]; ok {
				t.Errorf("openai-strict %s: keyword %s left in %v", name, k, s)
			}
		}
		isObject := s["type"] == "object"
		if types, ok := s["type"].([]any); ok {
			isObject = slices.Contains(types, any("object"))
		}
		props, hasProps := s["properties"].(map[string]any)
		if isObject || hasProps {
			req, _ := s["required"].([]any)
			if !hasProps || s["additionalProperties"] != false || len(req) != len(props) {
				t.Errorf("openai-strict %s: an object that is not strict: %v", name, s)
			}
		}
	})
}

// checkKeywordTypes requires each keyword of a schema to be one of the
// type it stands beside: a bound of a number on a number, of a list on a
// list. A keyword of another type is ignored by a validator, but a strict
// one (Ajv's strictTypes) warns of it or refuses the schema, and it tells a
// model of a bound that is not there.
func checkKeywordTypes(t *testing.T, name string, schema any) {
	t.Helper()
	eachSchema(schema, func(s map[string]any) {
		var types []any
		switch ty := s["type"].(type) {
		case string:
			types = []any{ty}
		case []any:
			types = ty
		}
		for kw, fit := range map[string][]any{
			"minimum": {"integer", "number"}, "maximum": {"integer", "number"},
			"minItems": {"array"}, "maxItems": {"array"}, "items": {"array"},
			"minLength": {"string"}, "maxLength": {"string"}, "pattern": {"string"},
			"properties": {"object"}, "required": {"object"}, "additionalProperties": {"object"},
		} {
			if _, ok := s[kw]; ok && len(types) > 0 && !slices.ContainsFunc(fit, func(f any) bool { return slices.Contains(types, f) }) {
				t.Errorf("%s: %s on a schema of type %v: %v", name, kw, types, s)
			}
		}
	})
}

// eachSchema calls visit on every schema object in s, a decoded JSON
// Schema, s's own first: each value below an object is taken as a schema
// (or a list of them), but for properties, whose values are.
func eachSchema(s any, visit func(map[string]any)) {
	switch s := s.(type) {
	case map[string]any:
		visit(s)
		for k, v := range s {
			if props, ok := v.(map[string]any); ok && k == "properties" {
				for _, p := range props {
					eachSchema(p, visit)
				}
				continue
			}
			eachSchema(v, visit)
		}
	case []any:
		for _, v := range s {
			eachSchema(v, visit)
		}
	}
}

// TestStrictSchemasEveryConfig walks the openai-strict schema of every
// tool each config offers (ws's own tools, skills, bm25, an embedder, and
// all of them), so that no tool, now or later, gives OpenAI's strict mode
// a schema it refuses; and a strict model's call to index, which leaves
// metadata out, still validates.
func TestStrictSchemasEveryConfig(t *testing.T) {
	configs := map[string]string{
		"default":  `{}`,
		"wsTools":  `{"tools": {"wsTools": true}}`,
		"skills":   `{"skills": ["skills"]}`,
		"bm25":     `{"bm25": true}`,
		"embedder": `{"embedder": {"command": ["./embed"]}}`,
		"hybrid":   `{"bm25": true, "embedder": {"command": ["./embed"]}}`,
		"all":      `{"bm25": true, "embedder": {"command": ["./embed"]}, "skills": ["skills"], "tools": {"wsTools": true}}`,
	}
	for cname, doc := range configs {
		t.Run(cname, func(t *testing.T) {
			root := t.TempDir()
			if err := os.MkdirAll(filepath.Join(root, "skills", "pdf"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, "skills", "pdf", "SKILL.md"), []byte("---\nname: pdf\ndescription: d\n---\nbody\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := config.Parse([]byte(doc), workspace.ConfigKeys())
			if err != nil {
				t.Fatal(err)
			}
			ws, defs := offeredDefs(t, root, cfg)
			var buf bytes.Buffer
			if err := json.NewEncoder(&buf).Encode(toolFormats["openai-strict"](ws, defs)); err != nil {
				t.Fatal(err)
			}
			doc, err := jsonschema.UnmarshalJSON(&buf)
			if err != nil {
				t.Fatal(err)
			}
			var plain bytes.Buffer
			if err := json.NewEncoder(&plain).Encode(toolFormats["json"](ws, defs)); err != nil {
				t.Fatal(err)
			}
			plainDoc, err := jsonschema.UnmarshalJSON(&plain)
			if err != nil {
				t.Fatal(err)
			}
			for name, s := range schemasOf(t, "json", plainDoc) {
				checkKeywordTypes(t, name, s)
			}
			schemas := schemasOf(t, "openai-strict", doc)
			if len(schemas) != len(defs) {
				t.Fatalf("%d strict schemas for %d tools", len(schemas), len(defs))
			}
			for name, s := range schemas {
				checkStrict(t, name, s)
			}
			s, ok := schemas["mastra_workspace_index"]
			if !ok {
				return
			}
			c := jsonschema.NewCompiler()
			c.DefaultDraft(jsonschema.Draft7)
			if err := c.AddResource("mem://index.json", s); err != nil {
				t.Fatal(err)
			}
			sch, err := c.Compile("mem://index.json")
			if err != nil {
				t.Fatal(err)
			}
			call := map[string]any{"path": "notes/a", "content": "banana"}
			if err := sch.Validate(withNulls(call, s)); err != nil {
				t.Fatalf("a strict call to index does not validate: %v", err)
			}
			if strings.Contains(cname, "embedder") || cname == "hybrid" || cname == "all" {
				return // the call would run the embedder
			}
			args, _ := json.Marshal(call)
			if _, _, err := ws.Call(context.Background(), "mastra_workspace_index", args); err != nil {
				t.Fatalf("ws refuses a strict call to index: %v", err)
			}
		})
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

// offeredDefs is a workspace over root with the config cfg (nil: the
// default), closed when the test ends, and the definitions of the tools it
// offers, as ws tools gives them to a format.
func offeredDefs(t *testing.T, root string, cfg *config.Config) (*workspace.Workspace, []toolDef) {
	t.Helper()
	ws, err := workspace.New(workspace.Options{Root: root, StateDir: t.TempDir(), Config: cfg, Supervisor: []string{"ws"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	var defs []toolDef
	for _, o := range ws.Offered() {
		defs = append(defs, toolDef{Name: o.Name, ID: o.Spec.ID, Description: o.Description(), Parameters: o.Schema()})
	}
	return ws, defs
}
