package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"slices"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/workspace"
)

// editOptions are edit's: one edit, or with --edits several (multi_edit).
type editOptions struct {
	workspace.EditRequest
	Multi *workspace.MultiEditRequest `json:"multi,omitempty"`
}

func newEditCmd(app *App, runF func(context.Context, *editOptions) error) *cobra.Command {
	var oldFile, newFile, edits string
	if runF == nil {
		runF = func(ctx context.Context, o *editOptions) error {
			if o.Multi != nil {
				return app.runTool(ctx, workspace.MultiEdit, *o.Multi)
			}
			return app.runTool(ctx, workspace.EditFile, o.EditRequest)
		}
	}
	return toolCmd(app, workspace.EditFile, runF, &cobra.Command{
		Use:   "edit PATH",
		Short: "Replace a piece of text in a file (or several, with --edits)",
		Long: `Replace --old with --new in PATH. The text must match exactly, or else
through one of ws's fallbacks (line endings, BOM, trailing whitespace,
indentation, gutters copied from read output, literal \n escapes, blank
lines, Unicode punctuation, NFC/NFD), at exactly one place (every place
with --replace-all); the output names the fallback and shows the diff.
With --edits, the edits of a JSON list [{"old_string", "new_string",
"replace_all"}] are made in order, all or none, and the file written once.
The version replaced is kept: ws undo takes the edit back.`,
		Example: `  ws edit src/app.ts --old 'const x = 1' --new 'const x = 2'
  ws edit README.md --old-file before.txt --new-file after.txt
  ws edit go.mod --old 'go 1.25' --new 'go 1.26' --replace-all
  ws edit app.py --edits edits.json --dry-run`,
		Args: exactArgsOr(1, "one PATH", "the texts go in --old TEXT and --new TEXT"),
	}, func(b *binder, o *editOptions) {
		stringVar(b.f, &o.OldString, "old", "the text to replace (old_string)")
		stringVar(b.f, &o.NewString, "new", "the replacement text, taken literally (new_string)")
		stringVar(b.f, &oldFile, "old-file", "read the text to replace from this file (- for stdin)")
		stringVar(b.f, &newFile, "new-file", "read the replacement from this file (- for stdin)")
		b.bool(&o.ReplaceAll, "replace-all", "", false, "replace every occurrence")
		stringVar(b.f, &edits, "edits", `make the edits of this JSON file (- for stdin): [{"old_string": …, "new_string": …, "replace_all": …}]`)
		b.f.BoolVar(&o.DryRun, "dry-run", false, "show the diff the edit would make; write nothing")
		localFiles(b.f, "old-file", "new-file", "edits")
	}, func(cmd *cobra.Command, args []string, o *editOptions) (err error) {
		f := cmd.Flags()
		o.Path = args[0]
		if changed(f, "edits") {
			for _, single := range []string{"old", "new", "old-file", "new-file", "replace-all"} {
				if err := notBoth(f, "edits", single); err != nil {
					return err
				}
			}
			o.Multi = &workspace.MultiEditRequest{Path: o.Path, DryRun: o.DryRun}
			o.Multi.Edits, err = readEdits(app, edits)
			return err
		}
		if oldFile == "-" && newFile == "-" {
			return usagef("--old-file and --new-file cannot both be - (stdin)")
		}
		if o.OldString, err = fileOr(app, f, o.OldString, oldFile, "old"); err != nil {
			return err
		}
		if oldFile != "" && o.OldString == "" {
			// The edit would fail with "--old is empty.", naming a flag
			// that was not given.
			return usagef("--old-file %s is empty: the text to replace cannot be empty", oldFileName(oldFile))
		}
		o.NewString, err = fileOr(app, f, o.NewString, newFile, "new")
		return err
	})
}

// oldFileName names --old-file's file in its errors ("-" is stdin).
func oldFileName(name string) string {
	if name == "-" {
		return "- (stdin)"
	}
	return strconv.Quote(name)
}

// readEdits reads the --edits list from a file or stdin.
func readEdits(app *App, path string) ([]workspace.EditOp, error) {
	var data []byte
	var err error
	if path == "-" {
		if app.IO.InTTY {
			return nil, usagef("--edits -: pipe the edits on stdin")
		}
		if err := app.stdinTaken(); err != nil {
			return nil, err
		}
		data, err = io.ReadAll(app.IO.In)
	} else {
		data, err = app.readFile(path)
	}
	if err != nil {
		return nil, usagef("--edits %q: %s (it takes a file of JSON edits, or - for stdin)", path, errs.Errno(err))
	}
	return decodeEdits(data)
}

// editsShape is what --edits takes, for its errors.
const editsShape = `--edits must hold a JSON list of {"old_string", "new_string", "replace_all"}`

// decodeEdits reads the --edits list as multi_edit's parameter takes it:
// each edit an object with old_string and new_string (strings) and
// replace_all (a boolean) if any, nothing else, and nothing after the
// list. Its errors name the edit and the field, never a Go type.
func decodeEdits(data []byte) ([]workspace.EditOp, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw []map[string]json.RawMessage
	var syn *json.SyntaxError
	switch err := dec.Decode(&raw); {
	case errors.Is(err, io.EOF):
		return nil, usagef("%s; it is empty", editsShape)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil, usagef("%s; its JSON ends too soon", editsShape)
	case errors.As(err, &syn):
		return nil, usagef("%s; it is not JSON (%v at byte %d)", editsShape, syn, syn.Offset)
	case err != nil:
		return nil, usagef("%s", editsShape)
	}
	if rest := bytes.TrimSpace(data[dec.InputOffset():]); len(rest) > 0 {
		return nil, usagef("%s; there is more after the list", editsShape)
	}
	list := make([]workspace.EditOp, len(raw))
	for i, m := range raw {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if k != "old_string" && k != "new_string" && k != "replace_all" {
				return nil, usagef("--edits: edit %d has an unknown key %q (it takes old_string, new_string, replace_all)", i+1, k)
			}
		}
		for _, f := range []struct {
			key string
			p   *string
		}{{"old_string", &list[i].OldString}, {"new_string", &list[i].NewString}} {
			v, ok := m[f.key]
			if !ok {
				return nil, usagef("--edits: edit %d needs %s", i+1, f.key)
			}
			if json.Unmarshal(v, f.p) != nil || string(bytes.TrimSpace(v)) == "null" {
				return nil, usagef("--edits: edit %d: %s must be a string", i+1, f.key)
			}
		}
		if v, ok := m["replace_all"]; ok && string(bytes.TrimSpace(v)) != "null" {
			var b bool
			if json.Unmarshal(v, &b) != nil {
				return nil, usagef("--edits: edit %d: replace_all must be true or false", i+1)
			}
			list[i].ReplaceAll = &b
		}
	}
	return list, nil
}
