package cmd

import (
	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/mcp"
)

func newMCPCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve the workspace's tools over MCP (stdio)",
		Long: `Run a Model Context Protocol server on stdin/stdout offering every enabled tool,
under the same names, schemas and results as 'ws call'. Tools that require approval
are asked of the user through the client (MCP elicitation) when it can ask, else
refused; --yes approves them without asking. At the end of its input ws answers
every request already read, running tool calls included, then exits.`,
		Example: `  ws --root ~/project mcp
  # in an MCP client config: {"command": "ws", "args": ["--root", "/path/to/project", "mcp"]}`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			app.noPrompt = true
			ws, err := app.Workspace()
			if err != nil {
				return err
			}
			return mcp.Serve(cmd.Context(), ws, version, app.IO.In, app.IO.Out)
		},
	}
}
