package cmd

import (
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/procstate"
	"github.com/wstools/ws/pkg/workspace"
)

// exitStatusError ends ws with a status of its own choosing and nothing
// more printed (exec passes its command's status on).
type exitStatusError struct{ code int }

func (e *exitStatusError) Error() string { return "exit status " + strconv.Itoa(e.code) }

// exitWSFailed is `ws exec`'s status when ws itself failed, as timeout(1)
// and env(1) use it.
const exitWSFailed = 125

func newExecCmd(app *App) *cobra.Command {
	var req workspace.ExecRequest
	var timeout float64
	var tail int
	var background bool
	cmd := &cobra.Command{
		Use:   "exec [flags] -- COMMAND",
		Short: "Run a shell command in the workspace (or in the background)",
		Long: `Run COMMAND with /bin/sh -c in the workspace root, stdin from /dev/null, and print
its output as the model sees it. Several arguments are joined with spaces. ws exits
with the command's status: 124 on timeout, 128+N when killed by signal N, 125 when
ws itself failed. --background starts it under a supervisor and prints its PID.`,
		Example: `  ws exec -- go test ./...
  ws exec --cwd web --timeout 60 -- 'npm ci && npm test | tail -20'
  ws exec --background -- python3 -m http.server 8000`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("ws exec needs a COMMAND (after --)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			app.ran = true
			req.Command = strings.Join(args, " ")
			f := cmd.Flags()
			if f.Changed("timeout") {
				req.Timeout = &timeout
			}
			if f.Changed("tail") {
				req.Tail = &tail
			}
			if background {
				req.Background = &background
			}
			res, err := app.runToolResult(cmd.Context(), workspace.ExecuteCommand, req)
			if err != nil {
				// Usage, config and approval keep their statuses (2, 2, 3);
				// anything else is ws failing to run the command: 125.
				if _, ok := exitCodes[errs.CodeOf(err)]; ok {
					return err
				}
				return &exitStatusError{exitWSFailed}
			}
			if r, ok := res.(*workspace.ExecResult); ok && r.ExitStatus() != 0 {
				return &exitStatusError{r.ExitStatus()}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.Float64Var(&timeout, "timeout", 0, "seconds before the command is stopped; 0 = no limit (default: config sandbox.timeout, else 300)")
	f.StringVar(&req.Cwd, "cwd", "", "working directory, inside the workspace")
	f.IntVar(&tail, "tail", 200, "show the last N lines of each stream; 0 = all")
	f.BoolVar(&background, "background", false, "start in the background and print the PID")
	f.StringArrayVar(&req.Env, "env", nil, "set an environment variable for the command (NAME=value, repeatable)")
	return cmd
}

func newPSOutputCmd(app *App) *cobra.Command {
	var req workspace.ProcessOutputRequest
	var tail int
	var wait bool
	var waitTimeout float64
	cmd := &cobra.Command{
		Use:   "ps-output PID",
		Short: "Show a background process's output (and exit code once it ended)",
		Example: `  ws ps-output 4242
  ws ps-output 4242 --wait --wait-timeout 30 --tail 50`,
		Args: exactArgs(1, "one PID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			app.ran = true
			req.PID = args[0]
			f := cmd.Flags()
			if f.Changed("tail") {
				req.Tail = &tail
			}
			if wait {
				req.Wait = &wait
			}
			if f.Changed("wait-timeout") {
				req.WaitTimeout = &waitTimeout
			}
			return app.runTool(cmd.Context(), workspace.GetProcessOutput, req)
		},
	}
	f := cmd.Flags()
	f.IntVar(&tail, "tail", 200, "show the last N lines of each stream; 0 = all")
	f.BoolVar(&wait, "wait", false, "wait for the process to exit")
	f.Float64Var(&waitTimeout, "wait-timeout", 0, "with --wait: stop waiting after this many seconds")
	return cmd
}

func newKillCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:     "kill PID",
		Short:   "Stop a background process and show its last output",
		Example: `  ws kill 4242`,
		Args:    exactArgs(1, "one PID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			app.ran = true
			return app.runTool(cmd.Context(), workspace.KillProcess, workspace.KillRequest{PID: args[0]})
		},
	}
}

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
			app.ran = true
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

func newSuperviseCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "__supervise DIR",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ready := os.NewFile(3, "ready")
			if code := procstate.Supervise(args[0], ready); code != 0 {
				return &exitStatusError{code}
			}
			return nil
		},
	}
}
