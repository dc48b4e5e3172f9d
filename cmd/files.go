package cmd

import (
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

func newReadCmd(app *App) *cobra.Command {
	var req workspace.ReadRequest
	var offset, limit int
	var lineNumbers bool
	cmd := &cobra.Command{
		Use:   "read PATH",
		Short: "Read a file: numbered lines, a line window, media or encoded bytes",
		Example: `  ws read src/app.ts
  ws read big.log --offset 200 --limit 50
  ws read logo.png --encoding base64`,
		Args: exactArgs(1, "one PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			app.ran = true
			req.Path = args[0]
			f := cmd.Flags()
			if f.Changed("offset") {
				req.Offset = &offset
			}
			if f.Changed("limit") {
				req.Limit = &limit
			}
			if f.Changed("line-numbers") {
				req.ShowLineNumbers = &lineNumbers
			}
			return app.runTool(cmd.Context(), workspace.ReadFile, req)
		},
	}
	f := cmd.Flags()
	f.IntVar(&offset, "offset", 1, "first line to show (1-based)")
	f.IntVar(&limit, "limit", 0, "number of lines to show")
	f.BoolVar(&lineNumbers, "line-numbers", true, "prefix lines with their numbers")
	f.StringVar(&req.Encoding, "encoding", "", "read raw bytes as base64, hex or binary (latin1); utf-8 forces text")
	return cmd
}

func newWriteCmd(app *App) *cobra.Command {
	var req workspace.WriteRequest
	var overwrite bool
	cmd := &cobra.Command{
		Use:   "write PATH",
		Short: "Write a file atomically, from --content or stdin",
		Example: `  ws write notes/todo.md --content "- ship it"
  make report | ws write out/report.txt
  ws write config.json --overwrite=false < template.json`,
		Args: exactArgs(1, "one PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			app.ran = true
			req.Path = args[0]
			if !cmd.Flags().Changed("content") {
				if app.IO.InTTY {
					return usagef("ws write: give the content with --content, or pipe it on stdin")
				}
				data, err := io.ReadAll(app.IO.In)
				if err != nil {
					return err
				}
				req.Content = string(data)
			}
			if cmd.Flags().Changed("overwrite") {
				req.Overwrite = &overwrite
			}
			return app.runTool(cmd.Context(), workspace.WriteFile, req)
		},
	}
	cmd.Flags().StringVar(&req.Content, "content", "", "the new content (default: read stdin to EOF)")
	cmd.Flags().BoolVar(&overwrite, "overwrite", true, "replace an existing file; false fails if it exists")
	return cmd
}

func newEditCmd(app *App) *cobra.Command {
	var req workspace.EditRequest
	var oldFile, newFile string
	var replaceAll bool
	cmd := &cobra.Command{
		Use:   "edit PATH",
		Short: "Replace an exact piece of text in a file",
		Example: `  ws edit src/app.ts --old 'const x = 1' --new 'const x = 2'
  ws edit README.md --old-file before.txt --new-file after.txt
  ws edit go.mod --old 'go 1.25' --new 'go 1.26' --replace-all`,
		Args: exactArgs(1, "one PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			app.ran = true
			req.Path = args[0]
			f := cmd.Flags()
			var err error
			if req.OldString, err = textFlag(f.Changed("old"), req.OldString, oldFile, "--old"); err != nil {
				return err
			}
			if req.NewString, err = textFlag(f.Changed("new"), req.NewString, newFile, "--new"); err != nil {
				return err
			}
			if f.Changed("replace-all") {
				req.ReplaceAll = &replaceAll
			}
			return app.runTool(cmd.Context(), workspace.EditFile, req)
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.OldString, "old", "", "the exact text to replace")
	f.StringVar(&req.NewString, "new", "", "the replacement text (literal)")
	f.StringVar(&oldFile, "old-file", "", "read the text to replace from this file")
	f.StringVar(&newFile, "new-file", "", "read the replacement from this file")
	f.BoolVar(&replaceAll, "replace-all", false, "replace every occurrence")
	cmd.MarkFlagsMutuallyExclusive("old", "old-file")
	cmd.MarkFlagsMutuallyExclusive("new", "new-file")
	return cmd
}

// textFlag picks the text of a --x / --x-file pair; one of them is required.
func textFlag(set bool, value, file, name string) (string, error) {
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return "", usagef(name + "-file: " + err.Error())
		}
		return string(data), nil
	}
	if !set {
		return "", usagef("ws edit: " + name + " or " + name + "-file is required")
	}
	return value, nil
}

func newDeleteCmd(app *App) *cobra.Command {
	var req workspace.DeleteRequest
	var recursive bool
	cmd := &cobra.Command{
		Use:     "delete PATH",
		Aliases: []string{"rm"},
		Short:   "Delete a file, a symlink or a directory",
		Example: `  ws delete build/out.txt
  ws rm -r build`,
		Args: exactArgs(1, "one PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			app.ran = true
			req.Path = args[0]
			if cmd.Flags().Changed("recursive") {
				req.Recursive = &recursive
			}
			return app.runTool(cmd.Context(), workspace.Delete, req)
		},
	}
	cmd.Flags().BoolVarP(&recursive, "recursive", "r", false, "delete a directory and everything in it")
	return cmd
}

func newStatCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:     "stat PATH",
		Short:   "Show a path's type, size and modification time",
		Example: `  ws stat src/app.ts`,
		Args:    exactArgs(1, "one PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			app.ran = true
			return app.runTool(cmd.Context(), workspace.FileStat, workspace.StatRequest{Path: args[0]})
		},
	}
}

func newMkdirCmd(app *App) *cobra.Command {
	var req workspace.MkdirRequest
	var recursive bool
	cmd := &cobra.Command{
		Use:   "mkdir PATH",
		Short: "Create a directory (and its parents)",
		Example: `  ws mkdir src/components/button
  ws mkdir only-this --recursive=false`,
		Args: exactArgs(1, "one PATH"),
		RunE: func(cmd *cobra.Command, args []string) error {
			app.ran = true
			req.Path = args[0]
			if cmd.Flags().Changed("recursive") {
				req.Recursive = &recursive
			}
			return app.runTool(cmd.Context(), workspace.Mkdir, req)
		},
	}
	cmd.Flags().BoolVar(&recursive, "recursive", true, "create missing parents; false fails when the parent is missing")
	return cmd
}
