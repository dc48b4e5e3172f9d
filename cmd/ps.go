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
	return internalCmd("__callbacks", exactArgs(0, "no arguments"), func([]string) int {
		syscall.CloseOnExec(3) // the callbacks must not hold the pipe
		return procstate.RunCallbacks(os.NewFile(3, "events"))
	})
}

func newSuperviseCmd() *cobra.Command {
	return internalCmd("__supervise DIR", exactArgs(1, "one DIR"), func(args []string) int {
		longRun() // it lives as long as its process
		return procstate.Supervise(args[0], os.NewFile(3, "ready"))
	})
}

// internalCmd is a hidden command that ws starts itself (a supervisor, a
// callback dispatcher); run's result is its exit status.
func internalCmd(use string, args cobra.PositionalArgs, run func(args []string) int) *cobra.Command {
	return &cobra.Command{
		Use:    use,
		Hidden: true,
		Args:   args,
		RunE: func(cmd *cobra.Command, args []string) error {
			return exitStatus(run(args))
		},
	}
}

// exitStatus is the error that makes ws exit with code: none for 0.
func exitStatus(code int) error {
	if code != 0 {
		return &exitStatusError{code}
	}
	return nil
}
