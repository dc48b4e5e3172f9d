package cmd

import (
	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

func newInfoCmd(app *App) *cobra.Command {
	var req workspace.InfoRequest
	cmd := &cobra.Command{
		Use:   "info",
		Short: "Describe the workspace: id, name, status, filesystem, sandbox, state",
		Long: `Describe the workspace as Mastra's getInfo does (id, name, status, createdAt,
lastAccessedAt, the filesystem and the sandbox), then ws's own facts: the
state directory, background processes by state, and the search index's
documents and vectors. Nothing is changed.`,
		Example: `  ws info
  ws info --file-count --json | jq .data.filesystem.total_files`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, err := app.Workspace()
			if err != nil {
				return app.fail("info", err)
			}
			res, err := ws.Info(cmd.Context(), req)
			return app.print("info", res, err)
		},
	}
	cmd.Flags().BoolVar(&req.FileCount, "file-count", false, "count the workspace's files too (ten levels deep; slow on a big tree)")
	return cmd
}

func newDestroyCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "destroy",
		Short: "Stop the workspace's background processes and remove its state",
		Long: `Stop every background process of the workspace and remove its state
directory: read records, locks, process records and logs, the search index
and its vectors. The workspace's files are never touched. On a terminal ws
asks first; --yes skips the question (and is needed without a terminal).`,
		Example: `  ws destroy
  ws destroy --yes`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, err := app.Workspace()
			if err != nil {
				return app.fail("destroy", err)
			}
			if err := app.confirmDestroy(ws); err != nil {
				return app.fail("destroy", err)
			}
			res, err := ws.Destroy(cmd.Context(), workspace.DestroyRequest{})
			return app.printRun("destroy", res, err)
		},
	}
}
