package cmd

import (
	"context"

	"github.com/spf13/cobra"
	"github.com/wstools/ws/pkg/workspace"
)

func newNotebookCmd(app *App, runF func(context.Context, *workspace.NotebookReadRequest) error) *cobra.Command {
	return toolCmd(app, workspace.NotebookRead, runF, &cobra.Command{
		Use:   "notebook PATH",
		Short: "Show a Jupyter notebook as its cells, with their ids and outputs",
		Long: `Show the Jupyter notebook PATH (.ipynb, nbformat 4) as its cells: each between
<cell index="N" id="…" type="…"> and </cell>, its source as written, then its
outputs (text as text, images and other media by type and size; a long output
keeps its first and last lines). --cell (an id, or an index from 0; -1 is
the last) shows that cell alone, its outputs whole. Cells over the output budget
are named, not cut. It counts as a read of the file, so ws notebook-edit may
change it next.`,
		Example: `  ws notebook analysis.ipynb
  ws notebook analysis.ipynb --cell 3
  ws notebook analysis.ipynb --outputs=false`,
		Args: exactArgs(1, "one PATH"),
	}, func(b *binder, req *workspace.NotebookReadRequest) {
		stringVar(b.f, &req.CellID, "cell", "show only this cell (an id, or an index from 0; -1 is the last), its outputs whole (cellId)")
		b.bool(&req.Outputs, "outputs", "", true, "show the outputs of code cells (--outputs=false: sources only)")
		b.int(&req.From, "from", "", "fromCell", "0", "start at the cell with this index")
	}, func(cmd *cobra.Command, args []string, req *workspace.NotebookReadRequest) error {
		req.Path = args[0]
		return nil
	})
}

func newNotebookEditCmd(app *App, runF func(context.Context, *workspace.NotebookEditRequest) error) *cobra.Command {
	var source, sourceFile string
	var insert, del bool
	return toolCmd(app, workspace.NotebookEdit, runF, &cobra.Command{
		Use:   "notebook-edit PATH --cell CELL",
		Short: "Replace, insert or delete one cell of a Jupyter notebook",
		Long: `Change one cell of the Jupyter notebook PATH. --cell is a cell's id or its
index from 0 (-1 is the last), as ws notebook shows them. By default the
cell's source becomes --source (or --source-file, - for stdin), and --type
changes its type too (a code cell that stops being one loses its outputs).
--insert puts a new cell (--type, default code) after --cell, or first
without it; --delete removes the cell. Only that cell's part of the file changes, written as
Jupyter writes it; the rest keeps its bytes. ws undo takes the change back.`,
		Example: `  ws notebook-edit analysis.ipynb --cell 9b0d1c2e --source 'df = load("data.csv")'
  ws notebook-edit analysis.ipynb --cell -1 --insert --type markdown --source '## Results'
  ws notebook-edit analysis.ipynb --cell 2 --source-file cell.py --dry-run
  ws notebook-edit analysis.ipynb --cell 4 --delete`,
		Args: exactArgs(1, "one PATH"),
	}, func(b *binder, req *workspace.NotebookEditRequest) {
		stringVar(b.f, &req.CellID, "cell", "the cell: an id, or an index from 0 (-1 is the last); --insert puts the new one after it (cellId)")
		stringVar(b.f, &source, "source", "the cell's new source (newSource)")
		stringVar(b.f, &sourceFile, "source-file", "read the new source from this file (- for stdin)")
		b.choice(&req.CellType, "type", "cellType", "code, markdown or raw (cellType)")
		b.f.BoolVar(&insert, "insert", false, "insert a new cell after CELL (first without CELL)")
		b.f.BoolVar(&del, "delete", false, "delete CELL")
		b.f.BoolVar(&req.DryRun, "dry-run", false, "show the change; write nothing")
		localFiles(b.f, "source-file")
	}, func(cmd *cobra.Command, args []string, req *workspace.NotebookEditRequest) error {
		f := cmd.Flags()
		req.Path = args[0]
		if err := notBoth(f, "insert", "delete"); err != nil {
			return err
		}
		switch {
		case insert:
			req.EditMode = "insert"
		case del:
			req.EditMode = "delete"
		}
		// A delete takes no source: one given is passed on, to be refused.
		if del && sourceFile == "" && !changed(f, "source") {
			return nil
		}
		s, err := fileOr(app, f, source, sourceFile, "source")
		if err != nil {
			return err
		}
		req.NewSource = &s
		return nil
	})
}
