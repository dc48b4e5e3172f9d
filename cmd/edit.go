package cmd

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

func newEditCmd(app *App, runF func(context.Context, *workspace.EditRequest) error) *cobra.Command {
	var oldFile, newFile string
	return toolCmd(app, workspace.EditFile, runF, &cobra.Command{
		Use:   "edit PATH",
		Short: "Replace an exact piece of text in a file",
		Example: `  ws edit src/app.ts --old 'const x = 1' --new 'const x = 2'
  ws edit README.md --old-file before.txt --new-file after.txt
  ws edit go.mod --old 'go 1.25' --new 'go 1.26' --replace-all`,
		Args: exactArgs(1, "one PATH"),
	}, func(b *binder, req *workspace.EditRequest) {
		stringVar(b.f, &req.OldString, "old", "the exact text to replace (old_string)")
		stringVar(b.f, &req.NewString, "new", "the replacement text, taken literally (new_string)")
		stringVar(b.f, &oldFile, "old-file", "read the text to replace from this file")
		stringVar(b.f, &newFile, "new-file", "read the replacement from this file")
		b.bool(&req.ReplaceAll, "replace-all", "", false, "replace every occurrence")
	}, func(cmd *cobra.Command, args []string, req *workspace.EditRequest) (err error) {
		req.Path = args[0]
		if req.OldString, err = fileOr(cmd.Flags(), req.OldString, oldFile, "old"); err != nil {
			return err
		}
		req.NewString, err = fileOr(cmd.Flags(), req.NewString, newFile, "new")
		return err
	})
}
