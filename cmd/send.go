package cmd

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

func newSendCmd(app *App, runF func(context.Context, *workspace.SendInputRequest) error) *cobra.Command {
	var noNewline bool
	return toolCmd(app, workspace.SendInput, runF, &cobra.Command{
		Use:   "send PID [TEXT|-]",
		Short: "Write to the stdin of a background process (started with --stdin-pipe or --tty)",
		Long: `Write TEXT and a newline (--no-newline: TEXT alone) to the stdin of a background
process started with 'ws exec --background --stdin-pipe'; "-" sends ws's stdin as
it is, passed on as it comes until it ends (so 'tail -f cmds | ws send PID -'
works). --eof closes the process's stdin afterwards (or alone, without TEXT), so it
reads end of file. Read its answer with 'ws ps-output PID --since-last'.

To a process started with --tty the text is typed into its terminal, which echoes
it: it shows in the output before the answer. --eof sends ^D, the terminal's end of
file, after the text (at the start of a line it ends a program's input; the terminal
stays open).

A process that takes no input for --timeout seconds (default 10) fails the send;
the error says how many bytes went in. Sends to one process write one at a time:
a second send waits (as long) for the first to finish, so inputs never mix.`,
		Example: `  ws send 4242 'print(6*7)'
  ws send 4242 - < commands.txt
  tail -f commands.txt | ws send 4242 -
  ws send 4242 --eof`,
		Args: rangeArgs(1, 2, "a PID and at most one TEXT"),
	}, func(b *binder, req *workspace.SendInputRequest) {
		b.bool(&req.EOF, "eof", "", false, "close the process's stdin after the text")
		b.f.BoolVar(&noNewline, "no-newline", false, "send TEXT without a newline after it")
		b.seconds(&req.Timeout, "timeout", "timeout", "10", "seconds to wait for the process to take the input; 0 = no limit")
	}, func(cmd *cobra.Command, args []string, req *workspace.SendInputRequest) error {
		req.PID = args[0]
		switch {
		case len(args) == 1 && (req.EOF == nil || !*req.EOF):
			return usagef("needs TEXT (or - for stdin), or --eof")
		case len(args) == 1:
		case args[1] == "-":
			if err := app.stdinTaken(); err != nil {
				return err
			}
			req.Source = app.IO.In
		case noNewline:
			req.Input = args[1]
		default:
			req.Input = args[1] + "\n"
		}
		return nil
	})
}
