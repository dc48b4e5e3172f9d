package cmd

import (
	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

func newLsCmd(app *App) *cobra.Command {
	var req workspace.ListRequest
	var maxDepth float64
	var all, dirsOnly, gitignore bool
	var patterns []string
	cmd := &cobra.Command{
		Use:   "ls [PATH]",
		Short: "List a directory tree",
		Example: `  ws ls
  ws ls src --max-depth 4 --pattern '**/*.test.ts'
  ws ls --all --gitignore=false --exclude 'node_modules|*.min.js'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("ws ls takes at most one PATH")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			app.ran = true
			if len(args) == 1 {
				req.Path = args[0]
			}
			f := cmd.Flags()
			if f.Changed("max-depth") {
				req.MaxDepth = &maxDepth
			}
			if all {
				req.ShowHidden = &all
			}
			if dirsOnly {
				req.DirsOnly = &dirsOnly
			}
			if f.Changed("gitignore") {
				req.RespectGitignore = &gitignore
			}
			req.Pattern = patterns
			return app.runTool(cmd.Context(), workspace.ListFiles, req)
		},
	}
	f := cmd.Flags()
	f.Float64Var(&maxDepth, "max-depth", 2, "levels to show")
	f.BoolVarP(&all, "all", "a", false, "show hidden names (showHidden)")
	f.BoolVar(&dirsOnly, "dirs-only", false, "show directories only")
	f.StringVar(&req.Exclude, "exclude", "", "leave out '|'-separated globs or name substrings")
	f.StringVar(&req.Extension, "extension", "", "show only files with this extension")
	f.StringArrayVar(&patterns, "pattern", nil, "show only files matching this glob (repeatable)")
	f.BoolVar(&gitignore, "gitignore", true, "leave out what .gitignore files exclude (respectGitignore)")
	return cmd
}

func newGrepCmd(app *App) *cobra.Command {
	var req workspace.GrepRequest
	var context, maxCount float64
	var ignoreCase, hidden bool
	cmd := &cobra.Command{
		Use:   "grep PATTERN [PATH]",
		Short: "Search file contents for a regular expression",
		Example: `  ws grep TODO
  ws grep -i 'func \w+Handler' 'internal/**/*.go' -C 2
  ws grep --max-count 1 'package main'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return usagef("ws grep takes a PATTERN and an optional PATH")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			app.ran = true
			req.Pattern = args[0]
			if len(args) == 2 {
				req.Path = args[1]
			}
			f := cmd.Flags()
			if f.Changed("context") {
				req.ContextLines = &context
			}
			if f.Changed("max-count") {
				req.MaxCount = &maxCount
			}
			if ignoreCase {
				cs := false
				req.CaseSensitive = &cs
			}
			if hidden {
				req.IncludeHidden = &hidden
			}
			return app.runTool(cmd.Context(), workspace.Grep, req)
		},
	}
	f := cmd.Flags()
	f.Float64VarP(&context, "context", "C", 0, "lines of context around each match (contextLines)")
	f.Float64VarP(&maxCount, "max-count", "m", 0, "at most N matching lines per file (maxCount)")
	f.BoolVarP(&ignoreCase, "ignore-case", "i", false, "case-insensitive (caseSensitive=false)")
	f.BoolVar(&hidden, "hidden", false, "search dot-files and dot-directories too (includeHidden)")
	return cmd
}
