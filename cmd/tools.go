package cmd

import (
	"encoding/json"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/mcp"
	"github.com/wstools/ws/pkg/render"
	"github.com/wstools/ws/pkg/schema"
	"github.com/wstools/ws/pkg/workspace"
)

// toolDef is one entry of `ws tools --format json`.
type toolDef struct {
	Name        string `json:"name"`
	ID          string `json:"id"`
	Description string `json:"description"`
	Parameters  any    `json:"parameters"`
}

// toolFormats are the shapes `ws tools` can print the definitions in.
var toolFormats = map[string]func(ws *workspace.Workspace, defs []toolDef) any{
	// Our own: name, id, description, parameters.
	"json": func(_ *workspace.Workspace, defs []toolDef) any { return defs },
	// OpenAI Chat Completions `tools`.
	"openai": func(_ *workspace.Workspace, defs []toolDef) any {
		out := []any{}
		for _, d := range defs {
			out = append(out, map[string]any{"type": "function", "function": map[string]any{
				"name": d.Name, "description": d.Description, "parameters": withoutSchemaKey(d.Parameters)}})
		}
		return out
	},
	// OpenAI's strict function calling: every parameter required, the
	// optional ones nullable (a call takes a null as not given), no other
	// keys, none of the keywords strict mode refuses.
	"openai-strict": func(_ *workspace.Workspace, defs []toolDef) any {
		out := []any{}
		for _, d := range defs {
			out = append(out, map[string]any{"type": "function", "function": map[string]any{
				"name": d.Name, "description": d.Description, "strict": true, "parameters": schema.Strict(decoded(d.Parameters))}})
		}
		return out
	},
	// Anthropic Messages `tools`.
	"anthropic": func(_ *workspace.Workspace, defs []toolDef) any {
		out := []any{}
		for _, d := range defs {
			out = append(out, map[string]any{"name": d.Name, "description": d.Description, "input_schema": withoutSchemaKey(d.Parameters)})
		}
		return out
	},
	// The tools/list result of ws mcp, annotations included.
	"mcp": func(ws *workspace.Workspace, _ []toolDef) any { return mcp.ToolList(ws) },
}

// withoutSchemaKey drops "$schema", which some function-calling APIs refuse.
func withoutSchemaKey(schema any) any {
	m := decoded(schema)
	if m == nil {
		return schema
	}
	delete(m, "$schema")
	return m
}

// decoded is a schema as a JSON object's map (nil if it is not one).
func decoded(schema any) map[string]any {
	b, err := json.Marshal(schema)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

func newToolsCmd(app *App) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "List the enabled tools as function-calling definitions",
		Long: `Print the tools this workspace offers (after renames, with disabled ones and, on a
read-only filesystem, the write tools left out) with our descriptions and JSON Schemas
generated from the request structs. --format picks the shape: json (ws's own), openai
(Chat Completions "tools"), openai-strict (the same with "strict": true: every
parameter required, the optional ones nullable, as a call takes a null for
"not given"), anthropic (Messages "tools") or mcp (a tools/list result).`,
		Example: `  ws tools
  ws tools --format openai > tools.json
  ws tools --format anthropic | jq '.[].name'`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			shape, ok := toolFormats[format]
			if !ok {
				return usagef("--format must be one of json, openai, openai-strict, anthropic, mcp")
			}
			ws, err := app.Workspace()
			if err != nil {
				return app.fail("tools", err)
			}
			defs := []toolDef{}
			var names []string
			for _, o := range ws.Offered() {
				defs = append(defs, toolDef{Name: o.Name, ID: o.Spec.ID, Description: o.Description(), Parameters: o.Schema()})
				names = append(names, o.Name)
			}
			if app.opts.json {
				return app.print("tools", &plainResult{text: strings.Join(names, "\n"), data: shape(ws, defs)}, nil)
			}
			return render.IndentedJSON(app.IO.Out, shape(ws, defs))
		},
	}
	cmd.Flags().StringVar(&format, "format", "json", "output format: json, openai, openai-strict, anthropic or mcp")
	return cmd
}
