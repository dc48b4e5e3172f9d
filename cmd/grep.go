package cmd

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

func newGrepCmd(app *App, runF func(context.Context, *workspace.GrepRequest) error) *cobra.Command {
	if runF == nil {
		runF = app.grep
	}
	return toolCmd(app, workspace.Grep, runF, &cobra.Command{
		Use:   "grep PATTERN [PATH]",
		Short: "Search file contents for a regular expression",
		Example: `  ws grep TODO
  ws grep -i 'func \w+Handler' 'internal/**/*.go' -C 2
  ws grep --max-count 1 'package main'`,
		Args: rangeArgs(1, 2, "a PATTERN and an optional PATH"),
	}, func(b *binder, req *workspace.GrepRequest) {
		b.count(&req.ContextLines, "context", "C", "contextLines", "0", "lines of context around each match (contextLines)")
		b.count(&req.MaxCount, "max-count", "m", "maxCount", "", "at most N matching lines per file (maxCount)")
		b.boolMapped(&req.CaseSensitive, "ignore-case", "i", false, true, "case-insensitive (caseSensitive=false)")
		b.bool(&req.IncludeHidden, "hidden", "", false, "search dot-files and dot-directories too (includeHidden)")
	}, func(cmd *cobra.Command, args []string, req *workspace.GrepRequest) error {
		req.Pattern = args[0]
		if len(args) == 2 {
			req.Path = args[1]
		}
		return nil
	})
}

// grep runs the search; like grep(1) and rg, the subcommand exits 1 when
// nothing matched (a tool call still succeeds: the search was done).
func (a *App) grep(ctx context.Context, req *workspace.GrepRequest) error {
	res, err := a.runToolResult(ctx, workspace.Grep, *req)
	if err != nil {
		return err
	}
	if r, ok := res.(*workspace.GrepResult); ok && len(r.Matches) == 0 {
		return &exitStatusError{exitFailure}
	}
	return nil
}
