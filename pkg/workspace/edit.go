package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/wstools/ws/pkg/editmatch"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/history"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/udiff"
	"golang.org/x/sys/unix"
)

// EditResult is the outcome of a successful edit (or of several, made as
// one change).
type EditResult struct {
	Path         Bytes       `json:"path"`
	Replacements int         `json:"replacements"`
	Ranges       []LineRange `json:"ranges"`
	Fallback     string      `json:"fallback,omitempty"` // the first fallback an edit needed
	Edits        []EditDone  `json:"edits,omitempty"`    // multi-edit: what each edit did
	Diff         Bytes       `json:"diff"`               // {"bytes": base64} when the file is not UTF-8
	DryRun       bool        `json:"dry_run,omitempty"`
	// Unchanged is set when the edits leave the file as it was (new_string
	// equal to old_string): nothing was written and no undo step kept.
	Unchanged bool `json:"unchanged,omitempty"`
	textOut
}

// EditDone is what one edit of a multi-edit did.
type EditDone struct {
	Replacements int         `json:"replacements"`
	Ranges       []LineRange `json:"ranges"`
	Fallback     string      `json:"fallback,omitempty"`
}

// LineRange is an inclusive range of 1-based line numbers.
type LineRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// Edit replaces old_string with new_string in a file, working on its
// bytes. The text must match exactly, or else through one of the
// fallbacks of pkg/editmatch, at exactly one place (every place with
// replace_all); the file's line endings, BOM, final newline and
// indentation are kept. The result says which fallback matched and shows
// the change as a diff; the version replaced is kept for undo.
func (w *Workspace) Edit(ctx context.Context, req EditRequest) (*EditResult, error) {
	return w.editFile(ctx, req.Path, []EditOp{{OldString: req.OldString, NewString: req.NewString, ReplaceAll: req.ReplaceAll}}, req.DryRun, EditFile)
}

// MultiEdit makes several edits of one file in order, in memory, all or
// nothing, and writes the file once.
func (w *Workspace) MultiEdit(ctx context.Context, req MultiEditRequest) (*EditResult, error) {
	if len(req.Edits) == 0 {
		return nil, errs.Invalid(dialectOf(ctx).param("edits", "edits"), "give at least one edit")
	}
	// The edits came as JSON (a file, or the tool's arguments): their
	// messages name the JSON fields, not edit's flags.
	return w.editFile(WithDialect(ctx, JSONParams), req.Path, req.Edits, req.DryRun, MultiEdit)
}

func (w *Workspace) editFile(ctx context.Context, path string, edits []EditOp, dryRun bool, tool string) (*EditResult, error) {
	t, g, f, st, err := w.openGuarded(path, tool)
	if err != nil {
		return nil, err
	}
	defer g.release()
	content, unmap, err := readOrMap(f, st)
	f.Close()
	if err != nil {
		return nil, errs.FromOS("read", path, err, false)
	}
	defer unmap()

	res := &EditResult{Path: Bytes(path), Ranges: []LineRange{}, DryRun: dryRun}
	var m *editmatch.Match
	var notes []string
	var after history.Fingerprint // of the new content, but for its mtime
	if err := noFault(path, func() (err error) {
		m, notes, err = applyEdits(ctx, res, content, edits, path)
		if err != nil {
			return err
		}
		name := string(t.Rel())
		if len(edits) == 1 {
			res.Diff = Bytes(spanDiff(name, content, m))
		} else {
			res.Diff = Bytes(udiff.Unified("a/"+name, "b/"+name, content, m.Content(), 3))
		}
		// An edit that changes nothing (new_string equal to old_string)
		// is reported as Mastra reports it, but writes nothing: no new
		// mtime for the file, no history entry for an undo that would
		// undo nothing.
		res.Unchanged = m.Size() == len(content) && bytes.Equal(m.Content(), content)
		if !dryRun && !res.Unchanged {
			// Taken before the write: the pieces of m read a mapped
			// file, and a file rewritten in place (another user's, or in
			// a read-only directory) changes under them, so a hash taken
			// after would be of neither version.
			after = w.matchPrint(m)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if !dryRun && !res.Unchanged {
		var rec *recording
		err := noFault(path, func() error { // keptState hashes the mapped file
			rec = w.record(history.OpEdit, history.Change{Key: g.real, Path: string(t.Rel()), Before: w.keptState(content, st)})
			return nil
		})
		if err != nil {
			return nil, err
		}
		err = w.unchangedSince(g, st, path)
		if err == nil {
			err = noFault(path, func() (err error) {
				var nst fsroot.FileStat
				nst, err = w.writeFrom(ctx, t, g, m)
				after.MtimeNS = nst.MtimeNS
				return err
			})
		}
		rec.done(err, after)
		if err != nil {
			return nil, err
		}
	}
	res.text = editText(res, len(edits), notes)
	if len(edits) == 1 {
		res.Edits = nil // the fields above say it all
	}
	return res, nil
}

// applyEdits applies edits in order to content, each to the result of the
// one before, and fills res with what each did.
func applyEdits(ctx context.Context, res *EditResult, content []byte, edits []EditOp, path string) (m *editmatch.Match, notes []string, err error) {
	out := content
	for i, e := range edits {
		if m != nil {
			out = m.Content() // the next edit works on the result of this one
		}
		if m, err = editmatch.Apply(out, e.OldString, e.NewString, e.ReplaceAll != nil && *e.ReplaceAll); err != nil {
			return nil, nil, editError(err, path, i, len(edits), dialectOf(ctx))
		}
		if note := editTerms(dialectOf(ctx)).Rename(m.Note); note != "" && len(edits) > 1 {
			notes = append(notes, fmt.Sprintf("Edit %d: %s", i+1, note))
		} else if note != "" {
			notes = append(notes, note)
		}
		done := EditDone{Replacements: m.Count, Ranges: lineRanges(m.Ranges), Fallback: m.Fallback}
		res.Edits = append(res.Edits, done)
		res.Replacements += m.Count
		res.Ranges = append(res.Ranges, done.Ranges...)
		if res.Fallback == "" {
			res.Fallback = m.Fallback
		}
	}
	return m, notes, nil
}

// noFault runs fn, which reads a mapped file: when someone truncates the
// file under us the read faults, and that is an error of this call, not a
// crash.
func noFault(path string, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			err = errs.IOFailed("edit", path, fmt.Errorf("the file changed while it was being edited: %v", r))
		}
	}()
	return fn()
}

// openGuarded resolves path, takes its write guard and opens the file to
// change it in place (edit, notebook_edit): the caller releases g and
// closes f.
func (w *Workspace) openGuarded(path, toolID string) (*fsroot.Target, *writeGuard, *os.File, fsroot.FileStat, error) {
	t, g, err := w.resolveGuarded(path, toolID)
	if err != nil {
		return nil, nil, nil, fsroot.FileStat{}, err
	}
	f, st, err := w.fs.OpenRegular(t, "edit")
	if err != nil {
		g.release()
		return nil, nil, nil, fsroot.FileStat{}, err
	}
	return t, g, f, st, nil
}

// unchangedSince refuses to write when the file at g changed after it was
// read as st: the edit was made from what it held then (and a mapped file
// may have changed under the match).
func (w *Workspace) unchangedSince(g *writeGuard, st fsroot.FileStat, path string) error {
	cur, err := w.fs.Stat(g.loc)
	if err != nil || cur.Size != st.Size || cur.MtimeNS != st.MtimeNS {
		return errs.IOFailed("edit", path, errors.New("the file changed while it was being edited; read it again"))
	}
	return nil
}

// readOrMap reads the file open at f. A big one is mapped instead of read
// (no copy, no fresh memory to fault in); unmap releases it.
func readOrMap(f *os.File, st fsroot.FileStat) ([]byte, func(), error) {
	if st.Size < mapEdit {
		data, err := readAll(f)
		return data, func() {}, err
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(st.Size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		data, err := readAll(f)
		return data, func() {}, err
	}
	return data, func() { unix.Munmap(data) }, nil
}

// mapEdit is the size from which edit maps the file rather than read it.
const mapEdit = 8 << 20

// spanDiff is the diff of one edit, made from the lines around the places
// it changed: on a big file, a diff of the whole would compare it all.
func spanDiff(name string, content []byte, m *editmatch.Match) string {
	if len(content) < mapEdit || len(m.Edits) == 0 {
		return udiff.Unified("a/"+name, "b/"+name, content, m.Content(), 3)
	}
	const context = 3
	first, last := m.Edits[0], m.Edits[len(m.Edits)-1]
	from := lineStartBefore(content, first.OldStart, context+1)
	to := lineEndAfter(content, last.OldEnd, context+1)
	line := bytes.Count(content[:from], []byte("\n"))
	window := make([]byte, 0, (to-from)+(last.NewEnd-last.OldEnd)+(first.OldStart-first.NewStart)+64)
	prev := from
	for _, e := range m.Edits {
		window = append(window, content[prev:e.OldStart]...)
		window = append(window, m.Replacement(e)...)
		prev = e.OldEnd
	}
	window = append(window, content[prev:to]...)
	return udiff.UnifiedAt("a/"+name, "b/"+name, content[from:to], window, context, line)
}

// lineStartBefore is the start of the line n lines before the one holding
// at (0 when there are not so many).
func lineStartBefore(b []byte, at, n int) int {
	i := bytes.LastIndexByte(b[:at], '\n') + 1 // the line holding at
	for ; n > 0 && i > 0; n-- {
		i = bytes.LastIndexByte(b[:i-1], '\n') + 1
	}
	return i
}

// lineEndAfter is the end (after its newline) of the line n lines after
// the one holding at (the end of b when there are not so many).
func lineEndAfter(b []byte, at, n int) int {
	i := at
	for ; n >= 0 && i < len(b); n-- {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return len(b)
		}
		i += j + 1
	}
	return i
}

// writeFrom writes the edited file from the match's pieces (not after ctx
// ends: see commit).
func (w *Workspace) writeFrom(ctx context.Context, t *fsroot.Target, g *writeGuard, m *editmatch.Match) (fsroot.FileStat, error) {
	st, err := w.fs.WriteAtomic(t.Loc(), m, fsroot.WriteOptions{Commit: commitWith(ctx), Track: trackWith(ctx)})
	if err != nil {
		return st, writeError(t, err, false)
	}
	return st, w.recordWrite(g.real, st)
}

// matchPrint is the fingerprint of the edited file, but for the mtime its
// write gives it.
func (w *Workspace) matchPrint(m *editmatch.Match) history.Fingerprint {
	if int64(m.Size()) > w.keepLimit() {
		return history.Fingerprint{Kind: history.KindFile, Size: int64(m.Size())}
	}
	return history.FileFingerprint(m.Content(), 0)
}

// maxRangesShown is the most places the first line of an edit's text
// names: a replace_all over a big file would list every line (200,000 of
// them, 1.4 MB). data.ranges keeps them all.
const maxRangesShown = 50

// editText is Mastra's "Replaced N occurrences in PATH (lines …)", a line
// naming each fallback that was needed, and the diff of the whole change.
func editText(res *EditResult, edits int, notes []string) string {
	var sb strings.Builder
	if res.DryRun {
		sb.WriteString("Would replace ")
	} else {
		sb.WriteString("Replaced ")
	}
	fmt.Fprintf(&sb, "%d occurrence", res.Replacements)
	if res.Replacements != 1 {
		sb.WriteByte('s')
	}
	sb.WriteString(" in " + string(res.Path) + " (lines ")
	for i, r := range res.Ranges {
		if i == maxRangesShown {
			fmt.Fprintf(&sb, ", and %d more", len(res.Ranges)-i)
			break
		}
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(strconv.Itoa(r.Start))
		if r.End != r.Start {
			sb.WriteString("-" + strconv.Itoa(r.End))
		}
	}
	sb.WriteByte(')')
	if edits > 1 {
		fmt.Fprintf(&sb, " with %d edits", edits)
	}
	if res.DryRun {
		sb.WriteString(" (dry run: nothing was written)")
	}
	for _, note := range notes {
		sb.WriteString("\n" + note)
	}
	sb.WriteString(diffText(string(res.Diff)))
	return sb.String()
}

// editError gives a failed match its code and, in a multi-edit, the
// edit's number. (A file that changed since this thread read it never gets
// here: the read tracker refuses the edit first.)
func editError(err error, path string, i, n int, d Dialect) error {
	var amb *editmatch.AmbiguousError
	code := errs.NoMatch
	if errors.As(err, &amb) {
		code = errs.NotUnique
	}
	msg := err.Error()
	var t interface{ Text(editmatch.Terms) string }
	if errors.As(err, &t) {
		msg = t.Text(editTerms(d))
	}
	if n > 1 {
		msg = fmt.Sprintf("Edit %d of %d: %s", i+1, n, msg)
		switch {
		case i == 1:
			msg += "\nEdit 2 was matched against the file as edit 1 left it; the line numbers are those of that text."
		case i > 1:
			msg += fmt.Sprintf("\nEdit %d was matched against the file as edits 1-%d left it; the line numbers are those of that text.", i+1, i)
		}
		msg += "\nNo edit was made: the edits are applied all or none."
	}
	return errs.At(errs.Coded(code, errors.New(msg)), path)
}

// editTerms names edit's parameters in the matcher's texts: as the
// subcommand's flags when the edit came from the command line.
func editTerms(d Dialect) editmatch.Terms {
	if d != CLIFlags {
		return editmatch.JSONTerms
	}
	return editmatch.Terms{Old: "--old", New: "--new", ReplaceAll: "--replace-all"}
}

// lineRanges converts the matcher's ranges.
func lineRanges(rs []editmatch.Range) []LineRange {
	out := make([]LineRange, len(rs))
	for i, r := range rs {
		out[i] = LineRange{Start: r.Start, End: r.End}
	}
	return out
}
