package cmd

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

func newKillCmd(app *App, runF func(context.Context, *workspace.KillRequest) error) *cobra.Command {
	return toolCmd(app, workspace.KillProcess, runF, &cobra.Command{
		Use:   "kill PID",
		Short: "Stop a background process and show its last output",
		Long: `Stop a background process: TERM to its process group and everything its
supervisor still has, KILL after 2 s. --signal INT stops it the same way with INT
first; --signal KILL kills it at once. Any other signal (HUP, USR1, …) is only
sent to its process group, which keeps running unless the signal ends it.`,
		Example: `  ws kill 4242
  ws kill 4242 --signal INT
  ws kill 4242 --signal HUP`,
		Args: exactArgs(1, "one PID"),
	}, func(b *binder, req *workspace.KillRequest) {
		stringVar(b.f, &req.Signal, "signal", "signal to send: a name (TERM, INT, HUP, KILL, USR1, …) or a number (default TERM)")
	}, pathArg(func(req *workspace.KillRequest) *string { return &req.PID }))
}
