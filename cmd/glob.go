package cmd

import (
	"context"
	"io"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

func newGlobCmd(app *App, runF func(context.Context, *workspace.GlobRequest) error) *cobra.Command {
	if runF == nil {
		runF = app.glob
	}
	return toolCmd(app, workspace.Glob, runF, &cobra.Command{
		Use:   "glob PATTERN [PATH]",
		Short: "Find files by name pattern, newest first",
		Long: `List the files below PATH (default: the workspace root) whose path below it
matches PATTERN ('**' spans directories), one per line, most recently changed
first, at most 100 (--max-results) with a notice saying how many matched.
Hidden names and what .gitignore and .ignore files exclude are left out unless asked;
directories are not listed. With -0 each path ends with a NUL instead of a
newline, for xargs -0, and the notices go to stderr.`,
		Example: `  ws glob '**/*.go'
  ws glob '*_test.go' internal/api
  ws glob '**/*.md' --hidden --no-ignore
  ws glob '**/*.go' --max-results 0 -0 | xargs -0 gofmt -l`,
		Args: rangeArgs(1, 2, "a PATTERN and an optional PATH"),
	}, func(b *binder, req *workspace.GlobRequest) {
		b.bool(&req.IncludeHidden, "hidden", "", false, "find dot-files and files in dot-directories too (includeHidden)")
		b.boolMapped(&req.RespectGitignore, "no-ignore", "", false, true, "find what .gitignore and .ignore files exclude too (respectGitignore=false)")
		b.int(&req.MaxResults, "max-results", "", "maxResults", "100", "show at most N files, the newest; 0 shows all (maxResults)")
		b.f.BoolVarP(&req.Null, "null", "0", false, "end each path with a NUL, not a newline (for xargs -0); notices go to stderr")
	}, func(cmd *cobra.Command, args []string, req *workspace.GlobRequest) error {
		if req.Null && app.opts.json {
			return usagef("--json and -0 cannot be used together")
		}
		req.Pattern = args[0]
		if len(args) == 2 {
			req.Path = args[1]
		}
		return nil
	})
}

// glob runs the tool; with -0 its text (the NUL-ended paths) is written as
// it is, without the newline a text result gets, which xargs -0 would take
// for one more name.
func (a *App) glob(ctx context.Context, req *workspace.GlobRequest) error {
	if !req.Null {
		_, err := a.runToolResult(ctx, workspace.Glob, *req)
		return err
	}
	ws, err := a.Workspace()
	if err != nil {
		return a.fail(workspace.Glob, err)
	}
	res, err := ws.Run(workspace.WithDialect(ctx, workspace.CLIFlags), workspace.Glob, *req)
	if err != nil {
		return a.printRun(workspace.Glob, res, err)
	}
	_, err = io.WriteString(a.IO.Out, res.Text())
	return err
}
