package cmd

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

func newGlobCmd(app *App, runF func(context.Context, *workspace.GlobRequest) error) *cobra.Command {
	return toolCmd(app, workspace.Glob, runF, &cobra.Command{
		Use:   "glob PATTERN [PATH]",
		Short: "Find files by name pattern, newest first",
		Long: `List the files below PATH (default: the workspace root) whose path below it
matches PATTERN ('**' spans directories), one per line, most recently changed
first, at most 100 with a notice saying how many matched. Hidden names and what
.gitignore files exclude are left out unless asked; directories are not listed.`,
		Example: `  ws glob '**/*.go'
  ws glob '*_test.go' internal/api
  ws glob '**/*.md' --hidden --no-ignore`,
		Args: rangeArgs(1, 2, "a PATTERN and an optional PATH"),
	}, func(b *binder, req *workspace.GlobRequest) {
		b.bool(&req.IncludeHidden, "hidden", "", false, "find dot-files and files in dot-directories too (includeHidden)")
		b.boolMapped(&req.RespectGitignore, "no-ignore", "", false, true, "find what .gitignore files exclude too (respectGitignore=false)")
	}, func(cmd *cobra.Command, args []string, req *workspace.GlobRequest) error {
		req.Pattern = args[0]
		if len(args) == 2 {
			req.Path = args[1]
		}
		return nil
	})
}
