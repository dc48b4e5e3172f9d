package cmd

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

func newLsCmd(app *App, runF func(context.Context, *workspace.ListRequest) error) *cobra.Command {
	return toolCmd(app, workspace.ListFiles, runF, &cobra.Command{
		Use:   "ls [PATH]",
		Short: "List a directory tree",
		Example: `  ws ls
  ws ls src --max-depth 4 --pattern '**/*.test.ts'
  ws ls --all --gitignore=false --exclude 'node_modules|*.min.js'
  ws ls --long src`,
		Args: rangeArgs(0, 1, "at most one PATH"),
	}, func(b *binder, req *workspace.ListRequest) {
		b.countIn(&req.MaxDepth, "max-depth", "", b.atLeast("maxDepth", 1), "2", "levels to show")
		b.bool(&req.ShowHidden, "all", "a", false, "show hidden names (showHidden)")
		b.bool(&req.DirsOnly, "dirs-only", "", false, "show directories only")
		stringVar(b.f, &req.Exclude, "exclude", "leave out '|'-separated globs or name substrings")
		stringVar(b.f, &req.Extension, "extension", "show only files with this extension")
		b.f.StringArrayVar((*[]string)(&req.Pattern), "pattern", nil, "show only files matching this glob (repeatable)")
		b.bool(&req.RespectGitignore, "gitignore", "", true, "leave out what .gitignore and .ignore files exclude (respectGitignore)")
		b.f.BoolVarP(&req.Long, "long", "l", false, "show each entry's size (files) and last change")
	}, func(cmd *cobra.Command, args []string, req *workspace.ListRequest) error {
		if len(args) == 1 {
			req.Path = args[0]
		}
		return nil
	})
}
