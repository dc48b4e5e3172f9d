package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"syscall"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/history"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/patch"
	"github.com/wstools/ws/pkg/udiff"
)

// PatchResult says what a patch changed.
type PatchResult struct {
	Format string        `json:"format"` // codex or unified
	Files  []PatchedFile `json:"files"`
	DryRun bool          `json:"dry_run,omitempty"`
	Diff   string        `json:"diff,omitempty"` // with --dry-run: the change, as a diff
	textOut
}

// PatchedFile is one file of a patch.
type PatchedFile struct {
	Op     string             `json:"op"` // add, delete, update
	Path   string             `json:"path"`
	MoveTo string             `json:"move_to,omitempty"`
	Hunks  []patch.HunkResult `json:"hunks,omitempty"`
}

// patchTarget is a path a patch touches, its write lock held.
type patchTarget struct {
	t    *fsroot.Target
	g    *writeGuard
	mode fs.FileMode
}

// ApplyPatch applies a patch, Codex's envelope or a unified diff: every
// hunk is located first, and only when all fit are the files written; a
// failure while writing puts back the files already written. Paths stay
// inside the workspace, and the read tracker, the write locks and the
// history (one undo step for the whole patch) apply as to any write.
func (w *Workspace) ApplyPatch(ctx context.Context, req PatchRequest) (*PatchResult, error) {
	p, err := patch.Parse(req.Input)
	if err != nil {
		return nil, errs.BadPatch(errs.InvalidPatch, err)
	}
	targets, release, err := w.holdPatch(p)
	defer release()
	if err != nil {
		return nil, err
	}
	changes, err := p.Plan(func(path string) ([]byte, bool, error) {
		data, err := w.readLoc(targets[path].g.loc)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil, false, nil // nothing there (a file where a directory should be fails later)
		}
		return data, err == nil, err
	})
	if err != nil {
		return nil, errs.BadPatch(patchCode(err), err)
	}
	res := &PatchResult{Format: p.Format, DryRun: req.DryRun}
	for _, c := range changes {
		res.Files = append(res.Files, PatchedFile{Op: c.Op.String(), Path: c.Path, MoveTo: c.MoveTo, Hunks: c.Hunks})
	}
	if req.DryRun {
		res.Diff = patchDiff(changes)
		res.text = patchText(res) + "\n\n" + strings.TrimSuffix(res.Diff, "\n")
		return res, nil
	}
	if err := w.writePatch(changes, targets); err != nil {
		return nil, err
	}
	res.text = patchText(res)
	return res, nil
}

// holdPatch resolves every path the patch names, takes their write locks
// in path order (so two patches cannot deadlock) and applies the read
// tracker's rule to each.
func (w *Workspace) holdPatch(p *patch.Patch) (map[string]*patchTarget, func(), error) {
	targets := map[string]*patchTarget{}
	var names []string
	for _, fp := range p.Files {
		for _, n := range []string{fp.Path, fp.MoveTo} {
			if n != "" && targets[n] == nil {
				targets[n] = &patchTarget{}
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	release := func() {
		for _, n := range names {
			if t := targets[n]; t.g != nil {
				t.g.release()
			}
		}
	}
	for _, n := range names {
		t, g, err := w.resolveGuarded(n, ApplyPatch)
		if err != nil {
			return targets, release, err
		}
		targets[n].t, targets[n].g = t, g
		if st, err := w.fs.Stat(g.loc); err == nil {
			targets[n].mode = st.Mode
		}
	}
	return targets, release, nil
}

// writePatch writes the planned changes, recorded as one change of the
// history. When a write fails, the files already written get their old
// bytes back.
func (w *Workspace) writePatch(changes []patch.Change, targets map[string]*patchTarget) error {
	var hc []history.Change
	var slots []string // the path of each history change, in order
	for _, c := range changes {
		for _, n := range []string{c.Path, c.MoveTo} {
			if n == "" {
				continue
			}
			tg := targets[n]
			before := history.AbsentState()
			if n == c.Path && c.Old != nil {
				before = w.keptState(c.Old, fsroot.FileStat{Mode: tg.mode})
			}
			hc = append(hc, history.Change{Key: tg.g.real, Path: string(tg.t.Rel()), Before: before})
			slots = append(slots, n)
		}
	}
	rec := w.record(history.OpPatch, hc...)
	written := map[string]fsroot.FileStat{}
	var undo []func()
	err := func() error {
		for _, c := range changes {
			if err := w.writeChange(c, targets, written, &undo); err != nil {
				return err
			}
		}
		return nil
	}()
	if err != nil {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
		rec.done(err)
		return err
	}
	after := make([]history.Fingerprint, len(slots))
	for i, n := range slots {
		if st, ok := written[n]; ok {
			data, _ := w.readLoc(targets[n].g.loc)
			after[i] = w.writtenPrint(data, st)
		} else {
			after[i] = history.AbsentFingerprint()
		}
	}
	rec.done(nil, after...)
	return nil
}

// writeChange makes one file's change and notes how to take it back.
func (w *Workspace) writeChange(c patch.Change, targets map[string]*patchTarget, written map[string]fsroot.FileStat, undo *[]func()) error {
	src := targets[c.Path]
	put := func(tg *patchTarget, data []byte, noReplace bool) error {
		st, err := w.fs.WriteAtomic(tg.g.loc, bytes.NewReader(data), fsroot.WriteOptions{NoReplace: noReplace, Mode: tg.mode})
		if err != nil {
			return errs.FromOS("write", tg.t.Input, err, false)
		}
		written[tg.t.Input] = st
		return w.recordRead(tg.g.real, st)
	}
	remove := func(tg *patchTarget) error {
		if err := w.fs.Remove(tg.g.loc, false); err != nil {
			return errs.FromOS("delete", tg.t.Input, err, false)
		}
		return nil
	}
	old := c.Old
	switch {
	case c.Op == patch.Delete:
		if err := remove(src); err != nil {
			return err
		}
		*undo = append(*undo, func() { _ = put(src, old, true) })
	case c.MoveTo != "":
		dst := targets[c.MoveTo]
		dst.mode = src.mode
		if err := put(dst, c.New, true); err != nil {
			return err
		}
		*undo = append(*undo, func() { _ = remove(dst) })
		if err := remove(src); err != nil {
			return err
		}
		*undo = append(*undo, func() { _ = put(src, old, true) })
	case c.Op == patch.Add:
		if err := put(src, c.New, true); err != nil {
			return err
		}
		*undo = append(*undo, func() { _ = remove(src) })
	default:
		if err := put(src, c.New, false); err != nil {
			return err
		}
		*undo = append(*undo, func() { _ = put(src, old, false) })
	}
	return nil
}

// patchCode is the error code of a patch that does not fit the files.
func patchCode(err error) errs.Code {
	switch patch.KindOf(err) {
	case patch.KindNotFound, patch.KindDeleteMismatch:
		return errs.NoMatch
	case patch.KindAmbiguous:
		return errs.NotUnique
	case patch.KindExists, patch.KindMoveExists:
		return errs.EEXIST
	case patch.KindMissing:
		return errs.ENOENT
	case patch.KindRead:
		return errs.EIO
	}
	return errs.InvalidPatch
}

// patchText lists what the patch did, one line per file.
func patchText(res *PatchResult) string {
	var sb strings.Builder
	verb := "Applied the patch"
	if res.DryRun {
		verb = "The patch would apply (dry run: nothing was written)"
	}
	fmt.Fprintf(&sb, "%s: %d %s", verb, len(res.Files), pluralWord(len(res.Files), "file", "files"))
	for _, f := range res.Files {
		switch {
		case f.Op == "add":
			sb.WriteString("\nA " + f.Path)
		case f.Op == "delete":
			sb.WriteString("\nD " + f.Path)
		case f.MoveTo != "":
			sb.WriteString("\nR " + f.Path + " -> " + f.MoveTo)
		default:
			sb.WriteString("\nM " + f.Path)
		}
		var at []string
		for _, h := range f.Hunks {
			s := fmt.Sprintf("%d", h.NewStart)
			if h.NewCount > 1 {
				s += fmt.Sprintf("-%d", h.NewStart+h.NewCount-1)
			}
			if h.Level != patch.LevelExact {
				s += " (" + string(h.Level) + ")"
			}
			at = append(at, s)
		}
		if len(at) > 0 {
			sb.WriteString(" (lines " + strings.Join(at, ", ") + ")")
		}
	}
	return sb.String()
}

// patchDiff shows the planned changes as one unified diff.
func patchDiff(changes []patch.Change) string {
	var sb strings.Builder
	for _, c := range changes {
		from, to := "a/"+c.Path, "b/"+c.Path
		switch {
		case c.Op == patch.Add:
			from = "/dev/null"
		case c.Op == patch.Delete:
			to = "/dev/null"
		case c.MoveTo != "":
			to = "b/" + c.MoveTo
		}
		sb.WriteString(udiff.Unified(from, to, c.Old, c.New, 3))
	}
	return sb.String()
}
