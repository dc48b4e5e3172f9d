package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/history"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/internal/wording"
	"github.com/wstools/ws/pkg/patch"
	"github.com/wstools/ws/pkg/tokens"
	"github.com/wstools/ws/pkg/udiff"
)

// PatchResult says what a patch changed.
type PatchResult struct {
	Format string        `json:"format"` // codex or unified
	Files  []PatchedFile `json:"files"`
	DryRun bool          `json:"dry_run,omitempty"`
	Diff   Bytes         `json:"diff,omitempty"` // with --dry-run: the change, as a diff ({"bytes"} when not UTF-8)
	textOut
}

// PatchedFile is one file of a patch.
type PatchedFile struct {
	Op     string             `json:"op"` // add, delete, update
	Path   Bytes              `json:"path"`
	MoveTo Bytes              `json:"move_to,omitempty"`
	Hunks  []patch.HunkResult `json:"hunks,omitempty"`
	// Executable is set when a git diff's mode lines make the file
	// executable (true) or not (false).
	Executable *bool `json:"executable,omitempty"`
}

// patchTarget is a path a patch touches, its write lock held.
type patchTarget struct {
	t    *fsroot.Target
	g    *writeGuard
	mode fs.FileMode
	// st is the file there when the patch was planned, and owner its
	// owner (nil: nothing there): what the history keeps of it, and what
	// a file the patch removed gets back when a later write fails.
	st    fsroot.FileStat
	owner *[2]uint32
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
		if err != nil {
			return nil, false, patchReadError{err}
		}
		return data, true, nil
	})
	if err != nil {
		return nil, errs.BadPatch(patchCode(err), err)
	}
	res := &PatchResult{Format: p.Format, DryRun: req.DryRun}
	for _, c := range changes {
		f := PatchedFile{Op: c.Op.String(), Path: Bytes(c.Path), MoveTo: Bytes(c.MoveTo), Hunks: c.Hunks}
		if c.Exec != patch.ExecKeep && c.Op != patch.Delete {
			x := c.Exec == patch.ExecSet
			f.Executable = &x
		}
		res.Files = append(res.Files, f)
	}
	if req.DryRun {
		res.Diff = Bytes(patchDiff(changes))
		res.text = patchText(res, w.cfg.MaxOutputTokens(ApplyPatch, tokens.DefaultMaxOutputTokens)) + diffText(string(res.Diff))
		return res, nil
	}
	// The files change together or not at all: after the deadline, no
	// file is touched (the rollback of a failed file must still run).
	if err := commit(ctx, func() error { return w.writePatch(changes, targets) }); err != nil {
		return nil, err
	}
	res.text = patchText(res, w.cfg.MaxOutputTokens(ApplyPatch, tokens.DefaultMaxOutputTokens))
	return res, nil
}

// holdPatch resolves every path the patch names, takes their write locks
// in path order (so two patches cannot deadlock) and applies the read
// tracker's rule to each. It refuses a patch that names one file twice
// (through a link, say), that changes a path and one inside it (d and
// d/x: a failure could not be put back), or that deletes or moves a
// symbolic link (apply_patch changes files; ws delete removes links).
func (w *Workspace) holdPatch(p *patch.Patch) (map[string]*patchTarget, func(), error) {
	targets := map[string]*patchTarget{}
	var names []string
	removed := map[string]bool{} // the paths a Delete or a Move takes away
	for _, fp := range p.Files {
		if fp.Op == patch.Delete || fp.MoveTo != "" {
			removed[fp.Path] = true
		}
		for _, n := range []string{fp.Path, fp.MoveTo} {
			if n != "" && targets[n] == nil {
				targets[n] = &patchTarget{}
				names = append(names, n)
			}
		}
	}
	type dest struct {
		name string
		l    fsroot.Loc
		real string
	}
	dests := make([]dest, 0, len(names))
	byReal := map[string]string{}
	for _, n := range names {
		t, err := w.fs.Resolve(n)
		if err != nil {
			return targets, func() {}, err
		}
		if st, err := w.fs.Lstat(t.Loc()); err == nil && st.Mode&fs.ModeSymlink != 0 && removed[n] {
			return targets, func() {}, errs.BadPatch(errs.InvalidPatch, fmt.Errorf("%s is a symbolic link: a patch does not delete or move links (ws delete removes the link itself)", n))
		}
		targets[n].t = t
		l, real := w.writeDest(t)
		if other, dup := byReal[real]; dup {
			return targets, func() {}, errs.BadPatch(errs.InvalidPatch, fmt.Errorf("%s and %s are the same file: name it once", other, n))
		}
		byReal[real] = n
		dests = append(dests, dest{n, l, real})
	}
	for _, d := range dests {
		for dir := filepath.Dir(d.real); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
			if other, ok := byReal[dir]; ok {
				return targets, func() {}, errs.BadPatch(errs.InvalidPatch, fmt.Errorf("the patch changes both %s and %s inside it: make it two patches", other, d.name))
			}
		}
	}
	sort.Slice(dests, func(i, j int) bool { return dests[i].real < dests[j].real })
	release := func() {
		for _, n := range names {
			if t := targets[n]; t.g != nil {
				t.g.release()
			}
		}
	}
	for _, d := range dests {
		tg := targets[d.name]
		g, err := w.guardAt(tg.t, d.l, d.real, ApplyPatch)
		if err != nil {
			return targets, release, err
		}
		tg.g = g
		if st, err := w.fs.Stat(g.loc); err == nil {
			if !st.Mode.IsRegular() && !st.IsDir() {
				// A FIFO, socket or device: reading it would take a
				// writer's bytes (or block), deleting it would keep it
				// as an empty file that undo makes regular.
				return targets, release, errs.NotRegular("patch", tg.t.Input, fsroot.ErrNotRegular)
			}
			tg.mode, tg.owner, tg.st = st.Mode, &[2]uint32{st.Uid, st.Gid}, st
		}
	}
	return targets, release, nil
}

// writePatch writes the planned changes, recorded as one change of the
// history. When a write fails, the files already written get their old
// bytes back and the directories made for new files are removed; when
// that too fails, the error says so and the history keeps the change, so
// that ws undo can finish the job.
func (w *Workspace) writePatch(changes []patch.Change, targets map[string]*patchTarget) error {
	var hc []history.Change
	type slot struct {
		name    string
		present bool   // something is there after the patch
		data    []byte // what
	}
	var slots []slot
	for _, c := range changes {
		for _, n := range []string{c.Path, c.MoveTo} {
			if n == "" {
				continue
			}
			tg := targets[n]
			before := history.AbsentState()
			if n == c.Path && c.Old != nil {
				before = w.keptState(c.Old, tg.st)
			}
			hc = append(hc, history.Change{Key: tg.g.real, Path: string(tg.t.Rel()), Before: before})
			present := c.Op != patch.Delete && (c.MoveTo == "" || n == c.MoveTo)
			slots = append(slots, slot{n, present, c.New})
		}
	}
	rec := w.record(history.OpPatch, hc...)
	written := map[string]fsroot.FileStat{}
	var undo []func() error
	err := func() error {
		for _, c := range changes {
			if err := w.writeChange(c, targets, written, &undo); err != nil {
				return err
			}
		}
		return nil
	}()
	if err != nil {
		var failed []string
		for i := len(undo) - 1; i >= 0; i-- {
			if uerr := undo[i](); uerr != nil {
				failed = append(failed, uerr.Error())
			}
		}
		if len(failed) == 0 {
			rec.done(err)
			return err
		}
		// Some of the patch stays: keep it in the history as the files
		// now are, for ws undo.
		after := make([]history.Fingerprint, len(slots))
		for i, sl := range slots {
			after[i] = history.AbsentFingerprint()
			if data, rerr := w.readLoc(targets[sl.name].g.loc); rerr == nil {
				if st, serr := w.fs.Stat(targets[sl.name].g.loc); serr == nil {
					after[i] = w.writtenPrint(data, st)
				}
			}
		}
		rec.done(nil, after...)
		return errs.Coded(errs.CodeOf(err), fmt.Errorf("%w; putting the files back failed too (%s): ws undo restores what the history kept", err, strings.Join(failed, "; ")))
	}
	after := make([]history.Fingerprint, len(slots))
	for i, sl := range slots {
		if st, ok := written[sl.name]; ok && sl.present {
			after[i] = w.writtenPrint(sl.data, st)
		} else {
			after[i] = history.AbsentFingerprint()
		}
	}
	rec.done(nil, after...)
	// A file the patch moved keeps this thread's read of it at its new
	// path, as ws move keeps it, with the size and mtime of what the
	// patch wrote there.
	for _, c := range changes {
		if c.MoveTo == "" {
			continue
		}
		src, dst := targets[c.Path].g.real, targets[c.MoveTo].g.real
		w.carryReads(src, dst, false)
		if st, ok := written[c.MoveTo]; ok {
			_ = w.recordWrite(dst, st)
		}
	}
	return nil
}

// writeChange makes one file's change and notes how to take it back.
func (w *Workspace) writeChange(c patch.Change, targets map[string]*patchTarget, written map[string]fsroot.FileStat, undo *[]func() error) error {
	src := targets[c.Path]
	// mode is the mode a file written by the change gets: its own (or a
	// new file's usual one), with the executable bit as the patch says.
	mode := func(m fs.FileMode) fs.FileMode {
		if c.Exec == patch.ExecKeep {
			return m
		}
		if m == 0 {
			m = fs.FileMode(0o666 &^ fsroot.Umask())
		}
		if c.Exec == patch.ExecSet {
			return m | (m&0o444)>>2 // x where r is, as chmod +x under the umask
		}
		return m &^ 0o111
	}
	// put writes data at tg with the mode m (0: its own, or the usual
	// one), and, when it makes the file, tg's owner (where permitted).
	put := func(tg *patchTarget, data []byte, noReplace bool, m fs.FileMode) error {
		st, err := w.fs.WriteAtomic(tg.g.loc, bytes.NewReader(data), fsroot.WriteOptions{NoReplace: noReplace, Mode: m, SetMode: c.Exec != patch.ExecKeep, Owner: tg.owner})
		if err != nil {
			return errs.FromOS("write", tg.t.Input, err, false)
		}
		written[tg.t.Input] = st
		return w.recordWrite(tg.g.real, st)
	}
	remove := func(tg *patchTarget) error {
		if err := w.fs.Remove(tg.g.loc, false); err != nil {
			return errs.FromOS("delete", tg.t.Input, err, false)
		}
		return nil
	}
	// create writes a new file, and notes how to remove it and the
	// directories made for it.
	create := func(tg *patchTarget, data []byte) error {
		made := w.missingDirs(tg.g.loc)
		if err := put(tg, data, true, mode(tg.mode)); err != nil {
			return err
		}
		*undo = append(*undo, func() error {
			if err := remove(tg); err != nil {
				return err
			}
			for _, d := range made {
				if err := w.fs.Remove(d, false); err != nil {
					return errs.FromOS("delete", d.Sub(), err, true)
				}
			}
			return nil
		})
		return nil
	}
	old := c.Old
	switch {
	case c.Op == patch.Delete:
		if err := remove(src); err != nil {
			return err
		}
		*undo = append(*undo, func() error { return put(src, old, true, src.mode) })
	case c.MoveTo != "":
		dst := targets[c.MoveTo]
		dst.mode, dst.owner = src.mode, src.owner // a file moved keeps its owner, as mv keeps it
		if err := create(dst, c.New); err != nil {
			return err
		}
		if err := remove(src); err != nil {
			return err
		}
		*undo = append(*undo, func() error { return put(src, old, true, src.mode) })
	case c.Op == patch.Add:
		return create(src, c.New)
	default:
		if err := put(src, c.New, false, mode(src.mode)); err != nil {
			return err
		}
		*undo = append(*undo, func() error { return put(src, old, false, src.mode) })
	}
	return nil
}

// missingDirs lists the directories above l that do not exist yet, the
// deepest first: what writing l would create.
func (w *Workspace) missingDirs(l fsroot.Loc) []fsroot.Loc {
	var out []fsroot.Loc
	for {
		p, _ := l.Parent()
		if p.Abs() == l.Abs() {
			return out
		}
		if _, err := w.fs.Lstat(p); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return out
		}
		out = append(out, p)
		l = p
	}
}

// patchReadError is a file of the patch that could not be read, said
// without Go's "read /abs/path:" (messages name no absolute paths).
type patchReadError struct{ err error }

func (e patchReadError) Error() string {
	if errors.Is(e.err, syscall.EISDIR) {
		return "it is a directory; a patch adds, updates, moves and deletes files only"
	}
	return errs.Errno(e.err)
}

func (e patchReadError) Unwrap() error { return e.err }

// patchCode is the error code of a patch that does not fit the files.
func patchCode(err error) errs.Code {
	if errors.Is(err, syscall.EISDIR) {
		return errs.EISDIR
	}
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

// patchText lists what the patch did, one line per file, within budget
// tokens: a file's hunks beyond maxListedHunks are counted, not listed,
// and the files past the budget too (the JSON result has them all).
func patchText(res *PatchResult, budget int) string {
	var sb strings.Builder
	verb := "Applied the patch"
	if res.DryRun {
		verb = "The patch would apply (dry run: nothing was written)"
	}
	fmt.Fprintf(&sb, "%s: %d %s", verb, len(res.Files), wording.Plural(len(res.Files), "file", "files"))
	used := tokens.Estimate(sb.String())
	for i, f := range res.Files {
		line := "\n" + patchedLine(f)
		n := tokens.Estimate(line)
		if used+n > budget && i > 0 {
			more := len(res.Files) - i
			fmt.Fprintf(&sb, "\n(%d more %s not listed: the list is cut at ~%d tokens)", more, wording.Plural(more, "file", "files"), budget)
			break
		}
		used += n
		sb.WriteString(line)
	}
	return sb.String()
}

// patchedLine is a file's line of patchText: "M src/app.go (lines 10-16)".
func patchedLine(f PatchedFile) string {
	var s string
	switch {
	case f.Op == "add":
		s = "A " + string(f.Path)
	case f.Op == "delete":
		s = "D " + string(f.Path)
	case len(f.MoveTo) > 0:
		s = "R " + string(f.Path) + " -> " + string(f.MoveTo)
	default:
		s = "M " + string(f.Path)
	}
	var notes []string
	if len(f.Hunks) > 0 {
		notes = append(notes, hunkLines(f.Hunks))
	}
	switch {
	case f.Executable == nil:
	case f.Op == "add" && *f.Executable:
		notes = append(notes, "executable")
	case *f.Executable:
		notes = append(notes, "made executable")
	default:
		notes = append(notes, "no longer executable")
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, "; ") + ")"
	}
	return s
}

// maxListedHunks is how many of a file's hunks patchText lists (and how
// many hunk numbers it gives for one leniency level).
const maxListedHunks = 20

// hunkLines says where a file's hunks landed, and which needed leniency:
// "lines 3-5, 9-10; hunk 2 found ignoring trailing whitespace". Past
// maxListedHunks it counts the rest: "lines 3-5, …, 90 (and 975 more
// hunks)".
func hunkLines(hunks []patch.HunkResult) string {
	var at []string
	byLevel := map[patch.Level][]string{}
	counts := map[patch.Level]int{}
	var order []patch.Level
	for i, h := range hunks {
		if i < maxListedHunks {
			s := fmt.Sprintf("%d", h.NewStart)
			if h.NewCount > 1 {
				s += fmt.Sprintf("-%d", h.NewStart+h.NewCount-1)
			}
			at = append(at, s)
		}
		if h.Level != patch.LevelExact {
			if counts[h.Level] == 0 {
				order = append(order, h.Level)
			}
			if counts[h.Level]++; counts[h.Level] <= maxListedHunks {
				byLevel[h.Level] = append(byLevel[h.Level], fmt.Sprintf("%d", i+1))
			}
		}
	}
	s := "lines " + strings.Join(at, ", ")
	if more := len(hunks) - len(at); more > 0 {
		s += fmt.Sprintf(" (and %d more %s)", more, wording.Plural(more, "hunk", "hunks"))
	}
	var lenient []string
	for _, lv := range order {
		n := byLevel[lv]
		which := wording.Plural(counts[lv], "hunk ", "hunks ") + wording.JoinAnd(n)
		if more := counts[lv] - len(n); more > 0 {
			which = "hunks " + strings.Join(n, ", ") + fmt.Sprintf(" and %d more", more)
		}
		switch {
		case len(hunks) == 1:
			lenient = append(lenient, "found ignoring "+lv.Describe())
		case len(lenient) == 0:
			lenient = append(lenient, which+" found ignoring "+lv.Describe())
		default:
			lenient = append(lenient, which+" ignoring "+lv.Describe())
		}
	}
	if len(lenient) == 0 {
		return s
	}
	return s + "; " + strings.Join(lenient, "; ")
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
