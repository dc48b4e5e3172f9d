package cmd

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

func newUndoCmd(app *App, runF func(context.Context, *workspace.UndoRequest) error) *cobra.Command {
	return toolCmd(app, workspace.Undo, runF, &cobra.Command{
		Use:   "undo [PATH]",
		Short: "Take back the last change ws made to a file (or in the workspace)",
		Long: `Put back what ws's last write, edit, delete, move, patch (or undo) of PATH replaced;
without PATH, the last change ws made in the workspace. A change is taken
back whole: when PATH's last change is a patch, every file of the patch is
put back with it. It is refused, with the reason, when a file changed since
(--force takes it back anyway). An undo is itself a change: undo again to
redo. With --thread, only that thread's changes are taken back, so one
agent never undoes another's. ws history PATH lists what is kept.`,
		Example: `  ws undo src/app.ts
  ws undo
  ws undo notes.md --force`,
		Args: rangeArgs(0, 1, "at most one PATH"),
	}, func(b *binder, req *workspace.UndoRequest) {
		b.bool(&req.Force, "force", "", false, "undo even if the file changed since")
	}, func(cmd *cobra.Command, args []string, req *workspace.UndoRequest) error {
		if len(args) == 1 {
			req.Path = &args[0]
		}
		return nil
	})
}

func newHistoryCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:     "history PATH",
		Short:   "List the versions of a file that ws undo can put back",
		Example: `  ws history src/app.ts`,
		Args:    exactArgs(1, "one PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, err := app.Workspace()
			if err != nil {
				return app.fail("history", err)
			}
			res, err := ws.History(cmd.Context(), workspace.HistoryRequest{Path: args[0]})
			return app.print("history", res, err)
		},
	}
}
