package cmd

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

func newWriteCmd(app *App, runF func(context.Context, *workspace.WriteRequest) error) *cobra.Command {
	return toolCmd(app, workspace.WriteFile, runF, &cobra.Command{
		Use:   "write PATH",
		Short: "Write a file atomically, from --content or stdin",
		Example: `  ws write notes/todo.md --content "- ship it"
  make report | ws write out/report.txt
  ws write config.json --overwrite=false < template.json
  ws write app.ts --dry-run < new-app.ts`,
		Args: exactArgsOr(1, "one PATH", "the content goes in --content TEXT, or on stdin"),
	}, func(b *binder, req *workspace.WriteRequest) {
		stringVar(b.f, &req.Content, "content", "the new content (default: read stdin to EOF)")
		b.bool(&req.Overwrite, "overwrite", "", true, "replace an existing file; false fails if it exists")
		b.f.BoolVar(&req.DryRun, "dry-run", false, "show the diff the write would make; write nothing")
	}, func(cmd *cobra.Command, args []string, req *workspace.WriteRequest) (err error) {
		req.Path = args[0]
		if changed(cmd.Flags(), "content") {
			return nil
		}
		// The content is streamed from stdin into the file.
		req.Source, err = stdinSource(app, "content")
		return err
	})
}
