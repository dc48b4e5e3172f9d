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
		Short:   "Move or rename a file, a symlink or a directory (undo moves it back)",
		Long: `Move the file, symbolic link (the link itself, not what it points to; a
link that leads out of the workspace is refused) or directory (with
everything in it) SOURCE to DESTINATION, its new path, in one
rename, never a copy: missing directories are made. DESTINATION is the new path,
not a directory to move into. A file already there is replaced only with
--overwrite; a directory replaces only an empty directory (with --overwrite),
never a file, and never merges into or deletes a directory that holds anything.
A directory cannot move inside itself; the workspace root and ws's state
directory never move. ws undo takes the move back (renaming a directory back),
and puts back what it replaced. What this thread read stays read at its new
path.`,
		Example: `  ws move src/old.ts src/new.ts
  ws mv notes.md docs/notes.md
  ws mv src/utils src/lib/utils
  ws move draft.txt final.txt --overwrite --dry-run`,
		Args: exactArgs(2, "a SOURCE and a DESTINATION"),
	}, func(b *binder, req *workspace.MoveRequest) {
		b.bool(&req.Overwrite, "overwrite", "", false, "replace a file (for a directory, an empty directory) already at DESTINATION")
		b.f.BoolVar(&req.DryRun, "dry-run", false, "say what would move; move nothing")
	}, func(cmd *cobra.Command, args []string, req *workspace.MoveRequest) error {
		req.Source, req.Destination = args[0], args[1]
		return nil
	})
}
