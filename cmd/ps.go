package cmd

import (
	"os"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/procstate"
	"github.com/wstools/ws/pkg/workspace"
)

func newPSCmd(app *App) *cobra.Command {
	var prune bool
	cmd := &cobra.Command{
		Use:   "ps",
		Short: "List this workspace's background processes",
		Example: `  ws ps
  ws ps --prune
  ws ps --json | jq '.data.processes[] | select(.state == "running") | .pid'`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, err := app.Workspace()
			if err != nil {
				return app.fail("ps", err)
			}
			res, err := ws.PS(cmd.Context(), workspace.PSRequest{Prune: &prune})
			return app.print("ps", res, err)
		},
	}
	cmd.Flags().BoolVar(&prune, "prune", false, "remove the records of processes that have ended")
	return cmd
}

func newCallbacksCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "__callbacks",
		Hidden: true,
		Args:   exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			syscall.CloseOnExec(3) // the callbacks must not hold the pipe
			if code := procstate.RunCallbacks(os.NewFile(3, "events")); code != 0 {
				return &exitStatusError{code}
			}
			return nil
		},
	}
}

func newSuperviseCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "__supervise DIR",
		Hidden: true,
		Args:   exactArgs(1, "one DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ready := os.NewFile(3, "ready")
			if code := procstate.Supervise(args[0], ready); code != 0 {
				return &exitStatusError{code}
			}
			return nil
		},
	}
}
