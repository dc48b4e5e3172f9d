package cmd

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

func newMoveCmd(app *App, runF func(context.Context, *workspace.MoveRequest) error) *cobra.Command {
	return toolCmd(app, workspace.MoveFile, runF, &cobra.Command{
		Use:     "move SOURCE DESTINATION",
		Aliases: []string{"mv"},
		Short:   "Move or rename a file or a symlink (undo moves it back)",
		Long: `Move the file or symbolic link SOURCE (a link itself, not what it points to)
to DESTINATION, its new path, in one rename: missing directories are made, and a
file already at DESTINATION is replaced only with --overwrite. DESTINATION is the
new path, not a directory to move into. A directory is not moved (use ws exec --
mv). ws undo takes the move back, and a file it replaced. A file this thread read
stays read at its new path.`,
		Example: `  ws move src/old.ts src/new.ts
  ws mv notes.md docs/notes.md
  ws move draft.txt final.txt --overwrite --dry-run`,
		Args: exactArgs(2, "a SOURCE and a DESTINATION"),
	}, func(b *binder, req *workspace.MoveRequest) {
		b.bool(&req.Overwrite, "overwrite", "", false, "replace a file already at DESTINATION")
		b.f.BoolVar(&req.DryRun, "dry-run", false, "say what would move; move nothing")
	}, func(cmd *cobra.Command, args []string, req *workspace.MoveRequest) error {
		req.Source, req.Destination = args[0], args[1]
		return nil
	})
}
