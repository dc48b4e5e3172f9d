package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/history"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/internal/wording"
	"github.com/wstools/ws/pkg/media"
	"github.com/wstools/ws/pkg/notebook"
	"github.com/wstools/ws/pkg/tokens"
	"github.com/wstools/ws/pkg/udiff"
)

// maxNotebookBytes is the largest notebook the notebook tools load (a
// notebook is parsed whole; its outputs may hold big images).
const maxNotebookBytes = 256 << 20

// NotebookReadResult is the outcome of notebook_read.
type NotebookReadResult struct {
	Path      Bytes          `json:"path"`
	Nbformat  string         `json:"nbformat"`
	Language  string         `json:"language,omitempty"`
	CellCount int            `json:"cell_count"`
	Cells     []NotebookCell `json:"cells"` // the cells shown
	Truncated bool           `json:"truncated,omitempty"`
	parts     []MediaPart
	partsNote string
	textOut
}

// MediaPart is an image (or other media) a result carries beside its
// text, for clients that show media to the model (MCP).
type MediaPart struct {
	Label     string // what it is, in the text's words: "cell 3, output 1"
	MediaType string
	Base64    string // standard, padded
}

// Media is what a result carries beside its text: media parts, and a
// note on those it left out ("" when none).
type Media interface {
	Media() (parts []MediaPart, note string)
}

// Media is the images of the outputs shown, within the tool's mediaTypes
// and maxMediaBytes, at most maxNotebookImages of them.
func (r *NotebookReadResult) Media() ([]MediaPart, string) { return r.parts, r.partsNote }

// maxNotebookImages is the most images one notebook_read carries (model
// APIs take a few dozen per request at most).
const maxNotebookImages = 8

// NotebookCell is one cell as notebook_read's --json gives it.
type NotebookCell struct {
	Index          int              `json:"index"`
	ID             string           `json:"id,omitempty"`
	Type           string           `json:"type"`
	Source         string           `json:"source"`
	ExecutionCount *int             `json:"execution_count,omitempty"`
	Outputs        []NotebookOutput `json:"outputs,omitempty"`
}

// NotebookOutput is one output of a code cell.
type NotebookOutput struct {
	Type  string           `json:"type"`
	Name  string           `json:"name,omitempty"`
	Text  string           `json:"text,omitempty"`
	Media []notebook.Media `json:"media,omitempty"`
}

// NotebookEditResult is the outcome of notebook_edit.
type NotebookEditResult struct {
	Path     Bytes  `json:"path"`
	Mode     string `json:"mode"` // replace, insert or delete
	Index    int    `json:"index"`
	ID       string `json:"id,omitempty"`
	CellType string `json:"cell_type"`
	Cells    int    `json:"cells"` // how many the notebook has now
	Diff     string `json:"diff,omitempty"`
	DryRun   bool   `json:"dry_run,omitempty"`
	// NotKeptForUndo is set when the notebook was over the most bytes the
	// history keeps of a file: the edit is made, but undo cannot take it
	// back.
	NotKeptForUndo bool `json:"not_kept_for_undo,omitempty"`
	// DroppedAttachments is how many attachments a markdown or raw cell
	// that became code lost (nbformat allows them on those cells only).
	DroppedAttachments int `json:"dropped_attachments,omitempty"`
	textOut
}

// loadNotebook reads and parses the notebook open at f.
func loadNotebook(f *os.File, st fsroot.FileStat, path string) ([]byte, *notebook.Notebook, error) {
	if st.Size > maxNotebookBytes {
		return nil, nil, errs.NotebookTooLarge(path, st.Size, maxNotebookBytes)
	}
	data, err := readAll(f)
	if err != nil {
		return nil, nil, errs.FromOS("read", path, err, false)
	}
	nb, err := notebook.Parse(data)
	var bad *notebook.Error
	if errors.As(err, &bad) {
		return nil, nil, errs.NotNotebook(path, bad.Why)
	}
	return data, nb, err
}

// findCell is the index of the cell ref names, or NO_CELL; an id that
// more than one cell has is NOT_UNIQUE, as taking the first would change
// a cell the caller may not have meant.
func findCell(nb *notebook.Notebook, ref, path string, d Dialect) (int, error) {
	if at := nb.WithID(ref); len(at) > 1 {
		return 0, errs.CellIDNotUnique(path, ref, at, d.setting("cellId", "cell", at[0]))
	}
	i, ok := nb.Find(ref)
	if !ok {
		return 0, errs.NoCell(path, ref, len(nb.Cells), nb.IDs(5))
	}
	return i, nil
}

// NotebookRead shows a notebook as its cells (notebook.Render), within the
// tool's output budget: cells that do not fit are named, not cut in the
// middle, and one cell asked for by id or index shows its outputs whole.
// It counts as a read of the file, so notebook_edit may change it next.
func (w *Workspace) NotebookRead(ctx context.Context, req NotebookReadRequest) (*NotebookReadResult, error) {
	t, f, st, err := w.openRead(req.Path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	_, nb, err := loadNotebook(f, st, req.Path)
	if err != nil {
		return nil, err
	}
	d := dialectOf(ctx)
	opts := notebook.RenderOptions{Cell: -1, Outputs: req.Outputs == nil || *req.Outputs}
	if req.CellID != "" {
		if opts.Cell, err = findCell(nb, req.CellID, req.Path, d); err != nil {
			return nil, err
		}
		opts.Whole = true
	}
	name := string(t.Rel())
	res := &NotebookReadResult{Path: Bytes(name), Nbformat: fmt.Sprintf("%d.%d", nb.Major, nb.Minor),
		Language: nb.Language, CellCount: len(nb.Cells), Cells: []NotebookCell{}}
	budget := w.cfg.MaxOutputTokens(NotebookRead, defaultReadTokens)
	// Whole cells only: each is shown when it fits with the notice that
	// would name the cells after it; the first is shown anyway (cut to
	// the budget).
	lastOutputs := -1 // the last cell with outputs
	for i, c := range nb.Cells {
		if len(c.Outputs) > 0 {
			lastOutputs = i
		}
	}
	notice := func(from int) string {
		how := d.setting("fromCell", "from", from) + ", one cell with " + d.setting("cellId", "cell", from)
		if opts.Outputs && lastOutputs >= from {
			how += ", or sources only with " + d.setting("outputs", "outputs", false)
		}
		which := fmt.Sprintf("cells %d-%d", from, len(nb.Cells)-1)
		if from == len(nb.Cells)-1 {
			which = fmt.Sprintf("cell %d", from)
		}
		return fmt.Sprintf("\n[%s of %d not shown, over the output budget of ~%d tokens: continue with %s]",
			which, len(nb.Cells), budget, how)
	}
	from := 0
	if req.From != nil {
		from = *req.From
		if from >= len(nb.Cells) && opts.Cell < 0 {
			return nil, errs.Invalid(d.param("fromCell", "from"), fmt.Sprintf("%s has %d cells (indexes 0 to %d)", req.Path, len(nb.Cells), len(nb.Cells)-1))
		}
	}
	var sb strings.Builder
	sb.WriteString(nb.Header(name))
	// The estimate of the text so far, kept as it grows: each part added
	// starts with a newline, so no word spans two parts and the estimate
	// of the whole is the sum of theirs (estimating the whole text again
	// for each cell took minutes on a notebook of thousands of cells
	// under a large budget).
	used := tokens.Estimate(sb.String())
	for i := range nb.Cells {
		if (opts.Cell >= 0 && i != opts.Cell) || i < from {
			continue
		}
		cell := "\n" + nb.RenderCell(i, opts)
		after := 0
		if opts.Cell < 0 && i+1 < len(nb.Cells) {
			after = tokens.Estimate(notice(i + 1))
		}
		n := tokens.Estimate(cell)
		if len(res.Cells) > 0 && used+n+after > budget {
			res.Truncated = true
			sb.WriteString(notice(i))
			break
		}
		used += n
		sb.WriteString(cell)
		res.Cells = append(res.Cells, cellJSON(nb.Cells[i], opts.Outputs))
	}
	var more, next int
	res.parts, more, next = w.notebookMedia(nb, res.Cells)
	if more > 0 {
		res.partsNote = fmt.Sprintf("%d more image%s in these outputs %s not attached (at most %d per call, within maxMediaBytes in all)",
			more, wording.Plural(more, "", "s"), wording.Plural(more, "is", "are"), maxNotebookImages)
		// Showing that cell alone helps only when more than it was shown.
		if next >= 0 && len(res.Cells) > 1 {
			res.partsNote += fmt.Sprintf(": show cell %d alone with %s to see its images", next, d.setting("cellId", "cell", next))
		}
	}
	text, cut, _ := tokens.LimitHead(sb.String(), budget)
	res.Truncated = res.Truncated || cut
	res.text = text
	if err := w.recordRead(fsroot.RealPathOf(int(f.Fd()), string(t.Abs)), st); err != nil {
		return nil, err
	}
	return res, nil
}

// notebookMedia is the images of the outputs of the cells shown that the
// tool's mediaTypes name, in order, as long as their sizes add up to no
// more than its maxMediaBytes and they are at most maxNotebookImages;
// more is how many it left out, and next the cell of the first of those
// that maxMediaBytes would let through alone (-1 for none).
func (w *Workspace) notebookMedia(nb *notebook.Notebook, shown []NotebookCell) (parts []MediaPart, more, next int) {
	types, left := w.cfg.MediaTypes(NotebookRead), w.cfg.MaxMediaBytes(NotebookRead)
	limit := left
	next = -1
	for _, sc := range shown {
		if len(sc.Outputs) == 0 {
			continue // none, or not shown
		}
		for j, o := range nb.Cells[sc.Index].Outputs {
			for _, m := range o.Media {
				if !m.Binary() || !strings.HasPrefix(m.Type, "image/") || !media.MatchPatterns(types, m.Type) {
					continue
				}
				if int64(m.Bytes) > left || len(parts) == maxNotebookImages {
					more++
					if next < 0 && int64(m.Bytes) <= limit {
						next = sc.Index
					}
					continue
				}
				left -= int64(m.Bytes)
				parts = append(parts, MediaPart{Label: fmt.Sprintf("cell %d, output %d", sc.Index, j+1), MediaType: m.Type, Base64: m.Base64()})
			}
		}
	}
	return parts, more, next
}

func cellJSON(c notebook.Cell, outputs bool) NotebookCell {
	nc := NotebookCell{Index: c.Index, ID: c.ID, Type: c.Type, Source: c.Source, ExecutionCount: c.ExecutionCount}
	if outputs {
		for _, o := range c.Outputs {
			nc.Outputs = append(nc.Outputs, NotebookOutput{Type: o.Type, Name: o.Name, Text: o.Text, Media: o.Media})
		}
	}
	return nc
}

// NotebookEdit changes one cell of a notebook: replaces its source (and
// type), inserts a cell after it, or deletes it. Only the bytes of that
// cell change (see pkg/notebook). The write is guarded as edit's is (the
// read tracker, the write lock, a file changed while it was edited), and
// the notebook as it was is kept for undo.
func (w *Workspace) NotebookEdit(ctx context.Context, req NotebookEditRequest) (*NotebookEditResult, error) {
	d := dialectOf(ctx)
	mode := req.EditMode
	if mode == "" {
		mode = "replace"
	}
	switch {
	case mode != "replace" && mode != "insert" && mode != "delete":
		return nil, errs.Invalid("editMode", "must be replace, insert or delete")
	case req.CellType != "" && !notebook.ValidType(req.CellType):
		return nil, errs.Invalid(d.param("cellType", "type"), "must be code, markdown or raw")
	case mode != "delete" && req.NewSource == nil:
		return nil, errs.Invalid(d.param("newSource", "source"), "give the "+map[string]string{"replace": "cell's new", "insert": "new cell's"}[mode]+" source")
	case mode == "delete" && req.NewSource != nil:
		return nil, errs.Invalid(d.param("newSource", "source"), "a cell that is deleted takes none")
	case mode == "delete" && req.CellType != "":
		return nil, errs.Invalid(d.param("cellType", "type"), "a cell that is deleted takes none")
	case mode != "insert" && req.CellID == "":
		return nil, errs.Invalid(d.param("cellId", "cell"), "give the cell to "+mode+" (its id, or its index from 0)")
	}
	t, g, f, st, err := w.openGuarded(req.Path, NotebookEdit)
	if err != nil {
		return nil, err
	}
	defer g.release()
	content, nb, err := loadNotebook(f, st, req.Path)
	f.Close()
	if err != nil {
		return nil, err
	}
	name := string(t.Rel())
	res := &NotebookEditResult{Path: Bytes(name), Mode: mode, DryRun: req.DryRun}
	var out []byte
	var oldSource, newSource string
	switch mode {
	case "insert":
		at := 0
		switch {
		case req.CellID == "":
		case len(nb.Cells) == 0 && strings.TrimSpace(req.CellID) == "-1":
			// After the last cell of none: the first, as appending
			// to an empty notebook is asked so.
		case len(nb.Cells) == 0:
			return nil, errs.NoCellInEmpty(req.Path, req.CellID, d.param("cellId", "cell"))
		default:
			i, err := findCell(nb, req.CellID, req.Path, d)
			if err != nil {
				return nil, err
			}
			at = i + 1
		}
		typ := req.CellType
		if typ == "" {
			typ = notebook.Code
		}
		var id string
		if nb.HasIDs() {
			id = nb.NewID()
		}
		newSource = *req.NewSource
		out, err = nb.Insert(at, typ, newSource, id)
		res.Index, res.ID, res.CellType, res.Cells = at, id, typ, len(nb.Cells)+1
	default:
		i, err := findCell(nb, req.CellID, req.Path, d)
		if err != nil {
			return nil, err
		}
		c := nb.Cells[i]
		res.Index, res.ID, res.CellType = i, c.ID, c.Type
		oldSource = c.Source
		if mode == "delete" {
			out, res.Cells = nb.Delete(i), len(nb.Cells)-1
			break
		}
		newSource = *req.NewSource
		if req.CellType == notebook.Code && c.Type != notebook.Code {
			res.DroppedAttachments = nb.Attachments(i)
		}
		out, err = nb.Replace(i, newSource, req.CellType)
		if req.CellType != "" {
			res.CellType = req.CellType
		}
		res.Cells = len(nb.Cells)
	}
	var bad *notebook.Error
	if errors.As(err, &bad) {
		return nil, errs.Invalid(d.param("newSource", "source"), bad.Why)
	} else if err != nil {
		return nil, err
	}
	label := fmt.Sprintf("%s cell %d", name, res.Index)
	res.Diff = udiff.Unified("a/"+label, "b/"+label, endLine(oldSource), endLine(newSource), 3)
	if !req.DryRun {
		rec := w.record(history.OpEdit, history.Change{Key: g.real, Path: name, Before: w.keptState(content, st)})
		res.NotKeptForUndo = len(rec.tooBig) > 0
		rec.tooBig = nil // the text says so
		var nst fsroot.FileStat
		err := w.unchangedSince(g, st, req.Path)
		if err == nil {
			nst, err = w.fs.WriteAtomic(t.Loc(), bytes.NewReader(out), fsroot.WriteOptions{Commit: commitWith(ctx), Track: trackWith(ctx)})
			if err != nil {
				err = writeError(t, err, false)
			} else {
				err = w.recordWrite(g.real, nst)
			}
		}
		rec.done(err, w.writtenPrint(out, nst))
		if err != nil {
			return nil, err
		}
	}
	res.text = notebookEditText(res, nb, oldSource != newSource || mode != "replace", w.keepLimit())
	return res, nil
}

// endLine is a cell's source ending in a newline, for its diff (a
// source seldom ends in one: every diff would say so).
func endLine(s string) []byte {
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return []byte(s)
}

// notebookEditText: "Replaced the source of cell 2 (code, id 9b0d1c2e) in
// nb.ipynb", "Inserted …", "Deleted …", then the diff of the source.
func notebookEditText(res *NotebookEditResult, nb *notebook.Notebook, changed bool, keepLimit int64) string {
	name := string(res.Path)
	cell := fmt.Sprintf("cell %d (%s", res.Index, res.CellType)
	if res.ID != "" {
		cell += ", id " + res.ID
	}
	cell += ")"
	verbs := map[string][2]string{"insert": {"Inserted", "Would insert"}, "delete": {"Deleted", "Would delete"}, "replace": {"Replaced", "Would replace"}}[res.Mode]
	verb := verbs[0]
	if res.DryRun {
		verb = verbs[1]
	}
	cells := fmt.Sprintf("%d %s", res.Cells, wording.Plural(res.Cells, "cell", "cells"))
	var s string
	switch res.Mode {
	case "insert":
		s = fmt.Sprintf("%s %s in %s, which then has %s", verb, cell, name, cells)
	case "delete":
		s = fmt.Sprintf("%s %s from %s, which then has %s", verb, nb.Describe(res.Index), name, cells)
	default:
		what := "the source of "
		if old := nb.Cells[res.Index].Type; old != res.CellType {
			what = fmt.Sprintf("the source and type (%s before) of ", old)
		}
		s = fmt.Sprintf("%s %s%s in %s", verb, what, cell, name)
		if n := res.DroppedAttachments; n > 0 {
			dropped := "dropped"
			if res.DryRun {
				dropped = "would drop"
			}
			s += fmt.Sprintf("; %s its %d %s (a code cell cannot have them)", dropped, n, wording.Plural(n, "attachment", "attachments"))
		}
		if !changed && nb.Cells[res.Index].Type == res.CellType {
			s += " (its source was that already)"
		}
	}
	if res.NotKeptForUndo {
		s += "\nNot kept for undo: " + tooBigText(name, keepLimit) + ", so undo cannot take this edit back"
	}
	return s + diffText(res.Diff)
}
