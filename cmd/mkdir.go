package cmd

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

func newMkdirCmd(app *App, runF func(context.Context, *workspace.MkdirRequest) error) *cobra.Command {
	return toolCmd(app, workspace.Mkdir, runF, &cobra.Command{
		Use:   "mkdir PATH",
		Short: "Create a directory (and its parents)",
		Example: `  ws mkdir src/components/button
  ws mkdir only-this --recursive=false`,
		Args: exactArgs(1, "one PATH"),
	}, func(b *binder, req *workspace.MkdirRequest) {
		b.bool(&req.Recursive, "recursive", "", true, "create missing parents; false fails when the parent is missing")
	}, pathArg(func(req *workspace.MkdirRequest) *string { return &req.Path }))
}
