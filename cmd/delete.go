package cmd

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

func newDeleteCmd(app *App, runF func(context.Context, *workspace.DeleteRequest) error) *cobra.Command {
	return toolCmd(app, workspace.Delete, runF, &cobra.Command{
		Use:     "delete PATH",
		Aliases: []string{"rm"},
		Short:   "Delete a file, a symlink or a directory",
		Long: `Delete the file, symbolic link (the link itself, not what it points to; a
link that leads out of the workspace is refused) or directory PATH (one that
holds anything only with -r). ws undo puts it back.`,
		Example: `  ws delete build/out.txt
  ws rm -r build
  ws rm -r build --dry-run`,
		Args: exactArgs(1, "one PATH"),
	}, func(b *binder, req *workspace.DeleteRequest) {
		b.bool(&req.Recursive, "recursive", "r", false, "delete a directory and everything in it")
		b.f.BoolVar(&req.DryRun, "dry-run", false, "say what would be deleted; delete nothing")
	}, pathArg(func(req *workspace.DeleteRequest) *string { return &req.Path }))
}
