package config

import (
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	c, err := Parse([]byte(`{
		"filesystem": {"contained": false, "allowedPaths": ["../x"], "readOnly": true},
		"sandbox": {"env": {"A": "1"}, "timeout": 12.5, "isolation": "bwrap", "inheritEnv": true,
			"nativeSandbox": {"allowNetwork": true, "readWritePaths": ["/tmp"], "readOnlyPaths": []}},
		"tools": {"enabled": true, "requireApproval": true, "writeLockTimeoutMs": 500,
			"hooks": {"beforeToolCall": ["hook", "--before"], "afterToolCall": "echo after"},
			"mastra_workspace_read_file": {"maxOutputTokens": 30, "mediaTypes": ["image/*", "application/pdf"], "maxMediaBytes": 10, "name": "view"},
			"mastra_workspace_write_file": {"requireReadBeforeWrite": true, "enabled": false}},
		"bm25": {"k1": 1.2, "b": 0.75},
		"autoIndexPaths": ["docs/**/*.md"],
		"skills": ["skills"]
	}`), testKeys)
	if err != nil {
		t.Fatal(err)
	}
	if c.Filesystem.Contained || !c.Filesystem.ReadOnly || c.Filesystem.AllowedPaths[0] != "../x" {
		t.Errorf("filesystem: %+v", c.Filesystem)
	}
	if *c.Sandbox.Timeout != 12.5 || c.Sandbox.Isolation != "bwrap" || c.Sandbox.Env["A"] != "1" || !c.Sandbox.NativeSandbox.AllowNetwork {
		t.Errorf("sandbox: %+v", c.Sandbox)
	}
	if c.Tools.WriteLockTimeoutMs != 500 || !c.Tools.RequireApproval || strings.Join(c.Tools.AfterToolCall, " ") != "/bin/sh -c echo after" {
		t.Errorf("tools: %+v", c.Tools)
	}
	if c.MaxOutputTokens(ReadFile, 2000) != 30 || c.MaxMediaBytes(ReadFile) != 10 || c.Tool(ReadFile).Name != "view" || len(c.MediaTypes(ReadFile)) != 2 {
		t.Errorf("read_file: %+v", c.Tool(ReadFile))
	}
	if c.ToolEnabled(WriteFile) || !c.RequireReadBeforeWrite(WriteFile) || !c.ToolEnabled(EditFile) {
		t.Errorf("write_file: %+v", c.Tool(WriteFile))
	}
	if !c.BM25 || c.AutoIndexPaths[0] != "docs/**/*.md" || c.Skills[0] != "skills" {
		t.Errorf("search: %+v", c)
	}

	d, err := Parse([]byte(`{"sandbox": false, "tools": {"mastra_workspace_read_file": {"mediaTypes": false}}}`), testKeys)
	if err != nil || !d.Sandbox.Disabled || len(d.MediaTypes(ReadFile)) != 0 {
		t.Errorf("false forms: %+v %v", d, err)
	}
	def := Default()
	if !def.Filesystem.Contained || def.Tools.WriteLockTimeoutMs != 30000 || def.MaxMediaBytes(ReadFile) != 10<<20 || len(def.MediaTypes(ReadFile)) != 4 {
		t.Errorf("defaults: %+v", def)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"filesystem": {"readonly": true}}`, `config: filesystem.readonly: unknown key (did you mean "readOnly"? known keys here: allowedPaths, basePath, contained, readOnly)`},
		{`{"filesystem": {"allowedPath": []}}`, `config: filesystem.allowedPath: unknown key (did you mean "allowedPaths"? known keys here:`},
		{`{"tools": {"requireAproval": true}}`, `config: tools.requireAproval: unknown key (did you mean "requireApproval"? known keys here:`},
		{`{"tools": {"mastra_workspace_reed_file": {}}}`, `config: tools.mastra_workspace_reed_file: unknown key (did you mean "mastra_workspace_read_file"? known keys here:`},
		{`{"tools": {"mastra_workspace_read_file": {"maxOutputToken": 5}}}`, `config: tools.mastra_workspace_read_file.maxOutputToken: unknown key (did you mean "maxOutputTokens"?`},
		{`{"sandbox": {"timeOut": 5}}`, `config: sandbox.timeOut: unknown key (did you mean "timeout"?`},
		{`{"bm52": true}`, `config: bm52: unknown key (known keys here:`},
		{`{"filesystem": {"readOnly": "yes"}}`, "config: filesystem.readOnly: expected a boolean, got string"},
		{`{"tools": {"mastra_workspace_read_file": {"maxTokens": 5}}}`, "config: tools.mastra_workspace_read_file.maxTokens: unknown key"},
		{`{"tools": {"mastra_workspace_write_file": {"mediaTypes": ["x"]}}}`, "config: tools.mastra_workspace_write_file.mediaTypes: unknown key"},
		{`{"tools": {"mastra_workspace_read_file": {"mediaTypes": ["not a type"]}}}`, "config: tools.mastra_workspace_read_file.mediaTypes: Invalid `mediaTypes` pattern: \"not a type\". Expected `*`, `*/*`, `type/*`, or a full mime type like `application/pdf`."},
		{`{"tools": {"writeLockTimeoutMs": -1}}`, "config: tools.writeLockTimeoutMs: expected a non-negative integer, got -1"},
		{`{"tools": {"nope_tool": {}}}`, "config: tools.nope_tool: unknown key"},
		{`{"tools": {"mastra_workspace_execute_command": {"background": {"enabled": true}}}}`, "config: tools.mastra_workspace_execute_command.background: this key is for Mastra's agent background tasks"},
		{`{"tools": {"mastra_workspace_read_file": {"name": "x"}, "mastra_workspace_grep": {"name": "x"}}}`, `config: tools.mastra_workspace_grep.name: Duplicate workspace tool name "x"`},
		{`{"tools": {"mastra_workspace_grep": {"name": "mastra_workspace_read_file"}}}`, `config: tools.mastra_workspace_grep.name: Duplicate workspace tool name "mastra_workspace_read_file"`},
		{`{"tools": {"mastra_workspace_grep": {"name": "has space"}}}`, `config: tools.mastra_workspace_grep.name: a tool name must be`},
		{`{"sandbox": {"isolation": "docker"}}`, `config: sandbox.isolation: expected "none", "bwrap" or "landlock", got "docker"`},
		{`[]`, "config: expected a JSON object at the top level, got array"},
		{`{"filesystem": {"readOnly": true, "readOnly": false}}`, "config: filesystem.readOnly: given twice in its object (keep one)"},
		{`{"bm25": true, "tools": {}, "bm25": false}`, "config: bm25: given twice in its object (keep one)"},
		{`{"upload": {"rules": [{"a": 1}, {"b": 1, "b": 2}]}}`, "config: upload.rules[1].b: given twice in its object (keep one)"},
		{`{`, "config: invalid JSON"},
		// A syntax error says where it is.
		{"{\n  \"tools\": {\n    \"enabled\": true,\n  }\n}", "config: invalid JSON at line 4, column 3: invalid character '}' looking for beginning of object key string"},
		{`{"é": tru}`, "config: invalid JSON at line 1, column 10: invalid character '}' in literal true"},
		{`{} {}`, "config: invalid JSON: trailing data"},
		{`{"skills": "skills"}`, "config: skills: expected an array of strings, got string"},
		{`{"autoIndexPaths": [1]}`, "config: autoIndexPaths[0]: expected a string, got number"},
		// A variable "A=B" would set A to "B=1"; "" and NUL bytes fail at exec.
		{`{"sandbox": {"env": {"A=B": "1"}}}`, `config: sandbox.env: "A=B": a variable name cannot hold '=' or a NUL byte`},
		{`{"sandbox": {"env": {"": "1"}}}`, "config: sandbox.env: a variable name cannot be empty"},
		{`{"sandbox": {"env": {"A\u0000": "1"}}}`, `config: sandbox.env: "A\x00": a variable name cannot hold '=' or a NUL byte`},
		{`{"sandbox": {"env": {"X": "a\u0000b"}}}`, `config: sandbox.env.X: holds a NUL byte (\u0000)`},
		{`{"tools": {"hooks": {"beforeToolCall": ["/bin/e\u0000cho"]}}}`, `config: tools.hooks.beforeToolCall[0]: holds a NUL byte`},
		{`{"tools": {"hooks": {"afterToolCall": "echo \u0000"}}}`, `config: tools.hooks.afterToolCall: holds a NUL byte`},
		{`{"filesystem": {"allowedPaths": ["/tmp\u0000x"]}}`, `config: filesystem.allowedPaths[0]: holds a NUL byte`},
		{`{"name": "my\nproject"}`, `config: name: expected a string without control characters (newlines, tabs …), got "my\nproject"`},
		{`{"id": "a\tb"}`, `config: id: expected a string without control characters`},
		{`{"tools": {"hooks": {"beforeToolCall": [""]}}}`, `config: tools.hooks.beforeToolCall[0]: expected a program, got ""`},
		{`{"tools": {"mastra_workspace_ast_edit": {"enabled": false}}}`, "config: tools.mastra_workspace_ast_edit: ws has no AST editing tool"},
		// Out of range, BM25 scores nothing and search finds nothing.
		{`{"bm25": {"k1": -1}}`, "config: bm25.k1: expected a number ≥ 0"},
		{`{"bm25": {"b": 5}}`, "config: bm25.b: expected a number from 0 to 1"},
		{`{"bm25": {"bm25": {"b": -0.1}}}`, "config: bm25.bm25.b: expected a number from 0 to 1"},
		// 0 is no "no limit": every output would be the notice alone.
		{`{"tools": {"mastra_workspace_grep": {"maxOutputTokens": 0}}}`, "config: tools.mastra_workspace_grep.maxOutputTokens: expected at least 1"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.in), testKeys)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Parse(%s):\n got %v\nwant %s…", tt.in, err, tt.want)
		}
	}
	// A tool keeping its id is not blamed for a clash: the key named is
	// the rename the config gave.
	if _, err := Parse([]byte(`{"tools": {"mastra_workspace_read_file": {"name": "mastra_workspace_grep"}}}`), testKeys); err == nil ||
		!strings.HasPrefix(err.Error(), `config: tools.mastra_workspace_read_file.name: Duplicate workspace tool name "mastra_workspace_grep": tool "mastra_workspace_grep" conflicts`) {
		t.Errorf("rename onto another tool's id: %v", err)
	}
	// ws's own tools take their names only when tools.wsTools offers them.
	if _, err := Parse([]byte(`{"tools": {"mastra_workspace_read_file": {"name": "glob"}}}`), testKeys); err != nil {
		t.Errorf("rename onto an unoffered ws tool: %v", err)
	}
	if _, err := Parse([]byte(`{"tools": {"wsTools": true, "mastra_workspace_read_file": {"name": "glob"}}}`), testKeys); err == nil ||
		!strings.HasPrefix(err.Error(), `config: tools.mastra_workspace_read_file.name: Duplicate workspace tool name "glob"`) {
		t.Errorf("rename onto an offered ws tool: %v", err)
	}
	// A disabled tool's name does not clash.
	if _, err := Parse([]byte(`{"tools": {"mastra_workspace_read_file": {"name": "x"}, "mastra_workspace_grep": {"name": "x", "enabled": false}}}`), testKeys); err != nil {
		t.Errorf("disabled tool clashed: %v", err)
	}
}

// A number of milliseconds past a duration's range is the longest
// duration, not an overflow into a negative (instant) timeout.
func TestMillisClamped(t *testing.T) {
	c, err := Parse([]byte(`{"tools": {"operationTimeout": 1e13, "writeLockTimeoutMs": 2e15}, "embedder": {"command": "x", "timeoutMs": 9300000000000}}`), testKeys)
	if err != nil {
		t.Fatal(err)
	}
	if c.Tools.OperationTimeoutMs != MaxMillis || c.Tools.WriteLockTimeoutMs != MaxMillis || c.Embedder.TimeoutMs != MaxMillis {
		t.Errorf("got %d, %d, %d; want %d", c.Tools.OperationTimeoutMs, c.Tools.WriteLockTimeoutMs, c.Embedder.TimeoutMs, MaxMillis)
	}
	if d := time.Duration(c.Tools.OperationTimeoutMs) * time.Millisecond; d <= 0 {
		t.Errorf("the longest operationTimeout overflows: %v", d)
	}
	c, err = Parse([]byte(`{"operationTimeout": 1500}`), testKeys)
	if err != nil || c.Tools.OperationTimeoutMs != 1500 {
		t.Errorf("operationTimeout 1500: %v, %v", c, err)
	}
}

// A UTF-8 byte order mark before the object, as some editors write it,
// is taken off.
func TestParseBOM(t *testing.T) {
	c, err := Parse([]byte("\ufeff{\"bm25\": true}"), testKeys)
	if err != nil || !c.BM25 {
		t.Fatalf("Parse with a BOM: %v, %v", c, err)
	}
}

// The tool keys of the tests: a few of the table's.
const (
	ReadFile  = "mastra_workspace_read_file"
	WriteFile = "mastra_workspace_write_file"
	EditFile  = "mastra_workspace_edit_file"
)

var testKeys = []ToolKey{{ID: ReadFile, Media: true}, {ID: WriteFile}, {ID: EditFile}, {ID: "mastra_workspace_grep"},
	{ID: "mastra_workspace_list_files"}, {ID: "mastra_workspace_execute_command"}, {ID: "glob", WSOnly: true}}

// The same key in two objects is no duplicate.
func TestDuplicateKeyPerObject(t *testing.T) {
	for _, in := range []string{
		`{"tools": {"mastra_workspace_read_file": {"enabled": true}, "mastra_workspace_grep": {"enabled": true}}}`,
		`{"filesystem": {"readOnly": true}, "sandbox": {"env": {"readOnly": "x"}}}`,
	} {
		if k := duplicateKey([]byte(in)); k != "" {
			t.Errorf("duplicateKey(%s) = %q, want none", in, k)
		}
	}
}
