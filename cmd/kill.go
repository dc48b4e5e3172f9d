package cmd

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

func newKillCmd(app *App, runF func(context.Context, *workspace.KillRequest) error) *cobra.Command {
	return toolCmd(app, workspace.KillProcess, runF, &cobra.Command{
		Use:     "kill PID",
		Short:   "Stop a background process and show its last output",
		Example: `  ws kill 4242`,
		Args:    exactArgs(1, "one PID"),
	}, nil, pathArg(func(req *workspace.KillRequest) *string { return &req.PID }))
}
