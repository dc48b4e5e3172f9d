package cmd

import (
	"context"
	"regexp"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/render"
	"github.com/wstools/ws/pkg/workspace"
)

func newPSOutputCmd(app *App, runF func(context.Context, *workspace.ProcessOutputRequest) error) *cobra.Command {
	var follow bool
	if runF == nil {
		runF = func(ctx context.Context, req *workspace.ProcessOutputRequest) error {
			if follow {
				return app.follow(ctx, req)
			}
			return app.runTool(ctx, workspace.GetProcessOutput, *req)
		}
	}
	c := toolCmd(app, workspace.GetProcessOutput, runF, &cobra.Command{
		Use:   "ps-output PID",
		Short: "Show a background process's output (and exit code once it ended)",
		Long: `Show what a background process printed, and its exit code once it has ended
(or the whole output of a foreground run whose text ws exec cut, which it kept).
--wait waits for it to end (--wait-timeout bounds the wait, and implies --wait);
--since-last shows only what this thread has not been shown yet; --filter keeps the
lines that match a regular expression. --follow streams new output as it comes
(stdout to stdout, stderr to stderr; JSON Lines with --json) until the process
exits or --wait-timeout passes, then prints the exit code.`,
		Example: `  ws ps-output 4242
  ws ps-output 4242 --wait --wait-timeout 30 --tail 50
  ws ps-output 4242 --since-last --filter 'ERROR|WARN'
  ws ps-output 4242 --follow --tail 0`,
		Args: exactArgs(1, "one PID"),
	}, func(b *binder, req *workspace.ProcessOutputRequest) {
		b.int(&req.Tail, "tail", "", "tail", "200", "show the last N lines of each stream; 0 = all")
		b.bool(&req.Wait, "wait", "", false, "wait for the process to exit")
		b.seconds(&req.WaitTimeout, "wait-timeout", "waitTimeout", "", "stop waiting (or following) after this many seconds; implies --wait")
		b.bool(&req.SinceLast, "since-last", "", false, "show only the output this thread has not seen yet")
		stringVar(b.f, &req.Filter, "filter", "keep only the lines that match this regular expression (RE2)")
		b.f.BoolVar(&follow, "follow", false, "stream new output until the process exits (or --wait-timeout)")
	}, func(cmd *cobra.Command, args []string, req *workspace.ProcessOutputRequest) error {
		req.PID = args[0]
		if _, err := regexp.Compile(req.Filter); err != nil {
			return usagef("--filter must be a regular expression (RE2): %v", err)
		}
		return nil
	})
	return c
}

// follow streams a process's output as it comes, then how it ended.
func (a *App) follow(ctx context.Context, req *workspace.ProcessOutputRequest) error {
	const tool = workspace.GetProcessOutput
	ws, err := a.Workspace()
	if err != nil {
		return a.fail(tool, err)
	}
	s := render.NewStream(a.IO, a.opts.json)
	res, err := ws.Follow(workspace.WithDialect(ctx, workspace.CLIFlags), *req, s.Chunk)
	if err := s.End(tool, res, err); err != nil {
		return err
	}
	if err != nil {
		return &reported{err}
	}
	return nil
}
