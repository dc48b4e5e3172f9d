package cmd

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/render"
)

func newCallCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "call TOOL [JSON|-]",
		Short: "Run a tool by its function-calling name with JSON arguments",
		Long: `Run a tool the way a function-calling model does: by its exposed name
(mastra_workspace_read_file, or the name the config gives it) with Mastra's
JSON arguments, given inline or on stdin with "-". Exit 0 means the call
succeeded; arguments that fail validation exit 2; a tool that is not offered
exits 1 with "tool not available".`,
		Example: `  ws call mastra_workspace_read_file '{"path":"a.txt","offset":3,"limit":2}'
  echo '{"path":"notes.md","content":"hi\n"}' | ws call mastra_workspace_write_file -`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return usagef("ws call takes a TOOL name and JSON arguments (or - for stdin)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			app.ran = true
			input := "{}"
			if len(args) == 2 {
				input = args[1]
			}
			if input == "-" {
				data, err := io.ReadAll(app.IO.In)
				if err != nil {
					return err
				}
				input = string(data)
			}
			if strings.TrimSpace(input) == "" {
				input = "{}"
			}
			ws, err := app.Workspace()
			if err != nil {
				return app.fail(args[0], err)
			}
			spec, res, err := ws.Call(cmd.Context(), args[0], []byte(input))
			tool := args[0]
			if spec != nil {
				tool = spec.ID
			}
			return app.print(tool, res, err)
		},
	}
}

// toolDef is one entry of `ws tools --format json`.
type toolDef struct {
	Name        string `json:"name"`
	ID          string `json:"id"`
	Description string `json:"description"`
	Parameters  any    `json:"parameters"`
}

// toolFormats are the shapes `ws tools` can print the definitions in.
var toolFormats = map[string]func(defs []toolDef) any{
	// Our own: name, id, description, parameters.
	"json": func(defs []toolDef) any { return defs },
	// OpenAI Chat Completions `tools`.
	"openai": func(defs []toolDef) any {
		out := []any{}
		for _, d := range defs {
			out = append(out, map[string]any{"type": "function", "function": map[string]any{
				"name": d.Name, "description": d.Description, "parameters": withoutSchemaKey(d.Parameters)}})
		}
		return out
	},
	// Anthropic Messages `tools`.
	"anthropic": func(defs []toolDef) any {
		out := []any{}
		for _, d := range defs {
			out = append(out, map[string]any{"name": d.Name, "description": d.Description, "input_schema": withoutSchemaKey(d.Parameters)})
		}
		return out
	},
	// An MCP tools/list result.
	"mcp": func(defs []toolDef) any {
		out := []any{}
		for _, d := range defs {
			out = append(out, map[string]any{"name": d.Name, "description": d.Description, "inputSchema": d.Parameters})
		}
		return map[string]any{"tools": out}
	},
}

// withoutSchemaKey drops "$schema", which some function-calling APIs refuse.
func withoutSchemaKey(schema any) any {
	b, err := json.Marshal(schema)
	if err != nil {
		return schema
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return schema
	}
	delete(m, "$schema")
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
(Chat Completions "tools"), anthropic (Messages "tools") or mcp (a tools/list result).`,
		Example: `  ws tools
  ws tools --format openai > tools.json
  ws tools --format anthropic | jq '.[].name'`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			shape, ok := toolFormats[format]
			if !ok {
				return usagef(`ws tools: --format must be json, openai, anthropic or mcp`)
			}
			app.ran = true
			ws, err := app.Workspace()
			if err != nil {
				return app.fail("tools", err)
			}
			defs := []toolDef{}
			var names []string
			for _, o := range ws.Offered() {
				defs = append(defs, toolDef{Name: o.Name, ID: o.Spec.ID, Description: o.Spec.Description, Parameters: o.Spec.Schema()})
				names = append(names, o.Name)
			}
			if app.opts.json {
				return app.print("tools", &plainResult{text: strings.Join(names, "\n"), data: shape(defs)}, nil)
			}
			return render.IndentedJSON(app.IO.Out, shape(defs))
		},
	}
	cmd.Flags().StringVar(&format, "format", "json", "output format: json, openai, anthropic or mcp")
	return cmd
}

func newInstructionsCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:     "instructions",
		Short:   "Print the workspace description for a model's system prompt",
		Example: `  ws instructions >> system-prompt.txt`,
		Args:    exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			app.ran = true
			ws, err := app.Workspace()
			if err != nil {
				return app.fail("instructions", err)
			}
			text := ws.Instructions()
			return app.print("instructions", &plainResult{text: text, data: map[string]string{"instructions": text}}, nil)
		},
	}
}

// plainResult is a result of a ws command that is not a tool: its text,
// and the data --json shows.
type plainResult struct {
	text string
	data any
}

// Text is what text mode prints.
func (r *plainResult) Text() string { return r.text }

// MarshalJSON is the envelope's data.
func (r *plainResult) MarshalJSON() ([]byte, error) { return json.Marshal(r.data) }
