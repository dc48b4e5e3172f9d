package cmd

import (
	"bufio"
	"context"
	"math"
	"strings"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/grep"
	"github.com/wstools/ws/pkg/workspace"
)

func newGrepCmd(app *App, runF func(context.Context, *workspace.GrepRequest) error) *cobra.Command {
	if runF == nil {
		runF = app.grep
	}
	return toolCmd(app, workspace.Grep, runF, &cobra.Command{
		Use:   "grep PATTERN [PATH...]",
		Short: "Search file contents for a regular expression",
		Example: `  ws grep TODO
  ws grep -i 'func \w+Handler' 'internal/**/*.go' -C 2
  ws grep --max-count 1 'package main'
  ws grep -l -t go -g '!*_test.go' 'context\.TODO'
  ws grep -w -F 'a.b' src docs
  ws grep -o 'v[0-9]+\.[0-9]+' CHANGELOG.md
  if ws grep -q 'FIXME' src; then echo 'still to fix'; fi`,
		Args: rangeArgs(1, math.MaxInt, "a PATTERN and optional PATHs"),
	}, func(b *binder, req *workspace.GrepRequest) {
		b.countIn(&req.ContextLines, "context", "C", b.atLeast("contextLines", 0), "0", "lines of context around each match (contextLines)")
		b.intIn(&req.After, "after-context", "A", b.atLeast("contextLines", 0), "", "lines of context after each match (over -C)")
		b.intIn(&req.Before, "before-context", "B", b.atLeast("contextLines", 0), "", "lines of context before each match (over -C)")
		b.countIn(&req.MaxCount, "max-count", "m", b.atLeast("maxCount", 1), "", "at most N matching lines per file (maxCount)")
		b.boolMapped(&req.CaseSensitive, "ignore-case", "i", false, true, "case-insensitive (caseSensitive=false)")
		b.bool(&req.IncludeHidden, "hidden", "", false, "search dot-files and dot-directories too (includeHidden)")
		b.f.BoolVarP(&req.FilesOnly, "files-with-matches", "l", false, "print only the paths of files with a match")
		b.f.BoolVarP(&req.Without, "files-without-match", "L", false, "print only the paths of the files searched that have no match")
		b.f.BoolVarP(&req.CountOnly, "count", "c", false, "print path:count for each file with a match")
		b.f.BoolVarP(&req.Quiet, "quiet", "q", false, "print nothing; exit 0 on a match, 1 otherwise")
		b.f.BoolVarP(&req.Word, "word-regexp", "w", false, "match whole words only")
		b.f.BoolVarP(&req.Fixed, "fixed-strings", "F", false, "the pattern is a plain string, not a regexp")
		b.f.BoolVarP(&req.Invert, "invert-match", "v", false, "show the lines that do not match")
		b.bool(&req.Multiline, "multiline", "U", false, `let a match span lines: \n, \s and [^x] match line ends (. does not; [\s\S] does), ^ and $ match at each line (multiline)`)
		b.f.VarP(&listValue{p: &req.Globs, typ: "GLOB", want: "a glob", ok: grep.ValidGlob}, "glob", "g",
			"search only files matching GLOB; !GLOB leaves them out (repeatable, the last that matches wins; without a slash it matches a file or directory name at any depth; over .gitignore and dot names, as in rg)")
		types := strings.Join(grep.TypeNames(), ", ")
		b.f.VarP(&listValue{p: &req.Types, typ: "NAME", want: "one of " + types, ok: grep.KnownType}, "type", "t",
			"search only files of this type (repeatable): "+types)
		b.f.BoolVar(&req.NoIgnore, "no-ignore", false, "search what .gitignore and .ignore files exclude too")
		b.f.BoolVarP(&req.Only, "only-matching", "o", false, "print each match's own text, every match of a line, not the line")
		b.f.BoolVarP(&req.Null, "null", "0", false, "with -l or -L, end each path with a NUL, not a newline (for xargs -0); with -c, a NUL between path and count")
		b.f.Bool("jsonl", false, "stream ripgrep's --json messages (begin, match, context, end, summary) as files are found")
		// grep's and rg's habits that ask for what ws grep always does.
		b.f.BoolP("line-number", "n", false, "lines are always numbered (accepted, as grep and rg take it)")
		b.f.BoolP("with-filename", "H", false, "paths are always shown (accepted, as grep and rg take it)")
	}, func(cmd *cobra.Command, args []string, req *workspace.GrepRequest) error {
		req.Pattern = args[0]
		if len(args) >= 2 {
			req.Path = args[1]
			req.MorePaths = args[2:]
		}
		if req.FilesOnly && req.CountOnly {
			return usagef("-l and -c cannot be used together")
		}
		if req.Only {
			switch {
			case req.Invert:
				return usagef("-o and -v cannot be used together: -v's lines have no match to show")
			case req.Multiline != nil && *req.Multiline:
				return usagef("-o and -U cannot be used together")
			case changed(cmd.Flags(), "context"), changed(cmd.Flags(), "after-context"), changed(cmd.Flags(), "before-context"):
				return usagef("-o shows matches, not lines: it does not go with -C, -A or -B")
			}
		}
		if req.Without && (req.FilesOnly || req.CountOnly || req.Only || req.Quiet) {
			return usagef("-L cannot be used with -l, -c, -o or -q")
		}
		if req.Null {
			switch {
			case app.opts.json:
				return usagef("--json and -0 cannot be used together")
			case !req.FilesOnly && !req.CountOnly && !req.Without:
				return usagef("-0 goes with -l, -L or -c: it ends the paths they print with a NUL")
			}
		}
		if jsonl, _ := cmd.Flags().GetBool("jsonl"); jsonl {
			// --jsonl streams the matching lines, as rg --json does; like
			// rg, it does not go with output that has no lines.
			switch {
			case app.opts.json:
				return usagef("--json and --jsonl cannot be used together")
			case req.FilesOnly, req.CountOnly, req.Without, req.Quiet:
				return usagef("-l, -L, -c and -q cannot be used with --jsonl")
			}
			// Written in blocks, each file's messages flushed at its
			// end (every message on a terminal): a write per message
			// cost a system call per matching line.
			longRun()
			out := bufio.NewWriterSize(app.IO.Out, 64<<10)
			var line []byte
			req.Events = func(ev grep.Event) {
				line = append(ev.AppendJSON(line[:0]), '\n')
				_, _ = out.Write(line)
				if ev.Type == "end" || ev.Type == "summary" || app.IO.OutTTY {
					_ = out.Flush()
				}
			}
		}
		return nil
	})
}

// grep runs the search; like grep(1) and rg, the subcommand exits 1 when
// nothing matched (a tool call still succeeds: the search was done). -q
// prints nothing; -l and -c print their lines as the files are found, and
// nothing when nothing matched.
func (a *App) grep(ctx context.Context, req *workspace.GrepRequest) error {
	ws, err := a.Workspace()
	if err != nil {
		return a.fail(workspace.Grep, err)
	}
	var rows *bufio.Writer
	if (req.FilesOnly || req.CountOnly || req.Without) && !req.Quiet && !a.opts.json {
		// Written in blocks, as rg writes to a pipe; a line at a time to
		// a terminal.
		rows = bufio.NewWriterSize(a.IO.Out, 64<<10)
		end := "\n"
		if req.Null && (req.FilesOnly || req.Without) {
			end = "\x00"
		}
		req.Rows = func(row string) {
			_, _ = rows.WriteString(row + end)
			if a.IO.OutTTY {
				_ = rows.Flush()
			}
		}
	}
	res, err := ws.Run(workspace.WithDialect(ctx, workspace.CLIFlags), workspace.Grep, *req)
	if rows != nil {
		if ferr := rows.Flush(); ferr != nil && err == nil {
			err = ferr
		}
	}
	r, _ := res.(*workspace.GrepResult)
	silent := err == nil && r != nil && !a.opts.json && (req.Quiet || req.Events != nil || req.Rows != nil)
	if !silent {
		if perr := a.printRun(workspace.Grep, res, err); perr != nil {
			return perr
		}
	}
	switch {
	case r != nil && req.Without && !req.Quiet:
		// As grep -L and rg: success is a file listed.
		if r.Without == nil || len(*r.Without) == 0 {
			return &exitStatusError{exitFailure}
		}
	case r != nil && r.Matched() == 0:
		return &exitStatusError{exitFailure}
	}
	return nil
}
