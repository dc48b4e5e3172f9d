package cmd

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

func newPSOutputCmd(app *App, runF func(context.Context, *workspace.ProcessOutputRequest) error) *cobra.Command {
	return toolCmd(app, workspace.GetProcessOutput, runF, &cobra.Command{
		Use:   "ps-output PID",
		Short: "Show a background process's output (and exit code once it ended)",
		Example: `  ws ps-output 4242
  ws ps-output 4242 --wait --wait-timeout 30 --tail 50`,
		Args: exactArgs(1, "one PID"),
	}, func(b *binder, req *workspace.ProcessOutputRequest) {
		b.int(&req.Tail, "tail", "", "tail", "200", "show the last N lines of each stream; 0 = all")
		b.bool(&req.Wait, "wait", "", false, "wait for the process to exit")
		b.seconds(&req.WaitTimeout, "wait-timeout", "waitTimeout", "", "with --wait: stop waiting after this many seconds")
	}, pathArg(func(req *workspace.ProcessOutputRequest) *string { return &req.PID }))
}
