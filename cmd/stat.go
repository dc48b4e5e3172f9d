package cmd

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

func newStatCmd(app *App, runF func(context.Context, *workspace.StatRequest) error) *cobra.Command {
	return toolCmd(app, workspace.FileStat, runF, &cobra.Command{
		Use:     "stat PATH",
		Short:   "Show a path's type, size and modification time",
		Example: `  ws stat src/app.ts`,
		Args:    exactArgs(1, "one PATH"),
	}, nil, pathArg(func(req *workspace.StatRequest) *string { return &req.Path }))
}
