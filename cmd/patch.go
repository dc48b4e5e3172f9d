package cmd

import (
	"context"
	"io"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/workspace"
)

func newPatchCmd(app *App, runF func(context.Context, *workspace.PatchRequest) error) *cobra.Command {
	return toolCmd(app, workspace.ApplyPatch, runF, &cobra.Command{
		Use:   "patch [FILE|-]",
		Short: "Apply a patch (Codex's apply_patch format or a unified diff) to the workspace",
		Long: `Apply the patch in FILE (or stdin): Codex's envelope (*** Begin Patch …
*** End Patch) or a unified diff as git diff prints it. Every hunk is located
before anything is written (trailing whitespace and typographic punctuation
in context lines are forgiven; context that fits two places is refused), then
all files are written, or, if a write fails, none stays changed. The patch is
one step for ws undo.`,
		Example: `  git diff > fix.diff && ws patch fix.diff
  ws patch --dry-run < change.patch
  printf '*** Begin Patch\n*** Add File: hello.txt\n+hi\n*** End Patch\n' | ws patch`,
		Args: rangeArgs(0, 1, "at most one FILE"),
	}, func(b *binder, req *workspace.PatchRequest) {
		b.f.BoolVar(&req.DryRun, "dry-run", false, "show the diff the patch would make; write nothing")
	}, func(cmd *cobra.Command, args []string, req *workspace.PatchRequest) error {
		var data []byte
		var err error
		switch {
		case len(args) == 1 && args[0] != "-":
			if data, err = app.readFile(args[0]); err != nil {
				return usagef("%s: %s", args[0], errs.Errno(err))
			}
		default:
			in, err := stdinReader(app, "give the patch as FILE, or pipe it on stdin")
			if err != nil {
				return err
			}
			if data, err = io.ReadAll(in); err != nil {
				return err
			}
		}
		req.Input = string(data)
		return nil
	})
}
