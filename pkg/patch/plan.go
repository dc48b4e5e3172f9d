package patch

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Change is what one file section does, computed by Plan: the bytes to
// write, and where each hunk landed.
type Change struct {
	Op     Op
	Path   string
	MoveTo string
	// Old is the file's current content (nil for Add).
	Old []byte
	// New is the content to write, at MoveTo when it is set, at Path
	// otherwise (nil for Delete, never nil otherwise).
	New []byte
	// Hunks tell where each hunk landed, in order (none for Add).
	Hunks []HunkResult
	// Exec is what the patch does to the file's executable bit.
	Exec Exec
}

// HunkResult tells where a hunk landed. Lines are numbered from 1; an empty
// range starts at the line that follows it.
type HunkResult struct {
	// OldStart and OldCount are the lines of Old that the hunk replaced.
	OldStart int `json:"old_start"`
	OldCount int `json:"old_count"`
	// NewStart and NewCount are the lines of New that replaced them.
	NewStart int `json:"new_start"`
	NewCount int `json:"new_count"`
	// Level is the leniency level the hunk's old lines (context and
	// removed) needed where they were found (LevelExact for a hunk that
	// has none). Its @@ lines count for nothing here: one written without
	// its indentation, or as the start of its line, is how @@ lines are
	// written.
	Level Level `json:"level"`
}

// Plan computes the new content of every file of the patch from the
// current ones, without writing anything. read returns the current content
// of a path (exists is false when there is no such file).
//
// Plan checks every file section and every hunk before it returns: either
// all changes are good, or it returns no change and an error. The error
// joins (errors.Join) one *FileError or *HunkError per failure, in patch
// order; KindOf gives the kind of the first.
func (p *Patch) Plan(read func(path string) (content []byte, exists bool, err error)) ([]Change, error) {
	var errs []error
	seen := map[string]int{}
	skip := map[int]bool{}
	for i, fp := range p.Files {
		for _, name := range []string{fp.Path, fp.MoveTo} {
			if name == "" {
				continue
			}
			if first, ok := seen[name]; ok && first != i {
				errs = append(errs, &FileError{Kind: KindDuplicate, Op: fp.Op, Path: name, Sections: []int{first + 1, i + 1}})
				skip[i] = true
				continue
			}
			seen[name] = i
		}
	}
	var changes []Change
	for i := range p.Files {
		if skip[i] {
			continue
		}
		c, ferrs := p.planFile(&p.Files[i], read)
		if len(ferrs) > 0 {
			errs = append(errs, ferrs...)
			continue
		}
		changes = append(changes, c)
	}
	switch len(errs) {
	case 0:
		return changes, nil
	case 1:
		return nil, errs[0]
	}
	return nil, errors.Join(errs...)
}

func (p *Patch) planFile(fp *FilePatch, read func(string) ([]byte, bool, error)) (Change, []error) {
	c := Change{Op: fp.Op, Path: fp.Path, MoveTo: fp.MoveTo, Exec: fp.Exec}
	fail := func(kind Kind, err error) (Change, []error) {
		return c, []error{&FileError{Kind: kind, Op: fp.Op, Path: fp.Path, MoveTo: fp.MoveTo, Err: err}}
	}
	old, exists, err := read(fp.Path)
	if err != nil {
		return fail(KindRead, err)
	}
	switch fp.Op {
	case Add:
		if exists {
			return fail(KindExists, nil)
		}
		c.New = append([]byte{}, fp.Content...)
		return c, nil
	case Delete, Update:
		if !exists {
			return fail(KindMissing, nil)
		}
	default:
		return fail(KindSyntax, fmt.Errorf("unknown operation %d", fp.Op))
	}
	c.Old = old
	if fp.MoveTo != "" {
		_, exists, err := read(fp.MoveTo)
		if err != nil {
			return c, []error{&FileError{Kind: KindRead, Op: fp.Op, Path: fp.MoveTo, Err: err}}
		}
		if exists {
			return fail(KindMoveExists, nil)
		}
	}
	out, results, errs := apply(fp, p.Format, old)
	if len(errs) > 0 {
		return c, errs
	}
	c.Hunks = results
	if fp.Op == Delete {
		if len(fp.Hunks) > 0 && strings.TrimPrefix(string(out), bom) != "" {
			return fail(KindDeleteMismatch, nil)
		}
		return c, nil
	}
	c.New = out
	return c, nil
}

// placed is a hunk with the 0-based line of the file where it goes.
type placed struct {
	h     *Hunk
	pos   int
	level int
}

// apply places every hunk of fp in old and returns the new content.
func apply(fp *FilePatch, format string, old []byte) ([]byte, []HunkResult, []error) {
	f := splitFile(old)
	var errs []error
	var done []placed
	cursor, offset := 0, 0
	prev := firstAnchor{at: -1} // the first @@ line of the hunk placed last, and where
	for k := range fp.Hunks {
		h := &fp.Hunks[k]
		hint := rangeStart(h) + offset // meaningful only when h.HasRange
		pos, lv, err := locate(f, h, cursor, hint)
		enclosing := enclosingAnchor(f, h, prev, cursor)
		if enclosing >= 0 {
			pos, lv, err = underEnclosingAnchor(f, h, enclosing, cursor, hint, pos, lv, err)
		}
		if err != nil && err.Kind == KindNotFound && err.Anchor == "" {
			if t := trimTrailingBlank(h); t != nil {
				switch p, l, err2 := locate(f, t, cursor, hint); {
				case err2 == nil:
					h, pos, lv, err = t, p, l, nil
				case err2.Kind == KindAmbiguous:
					err = err2 // more to the point: more context fixes it
				}
			}
		}
		if err != nil {
			err.Path, err.Hunk, err.PatchLine, err.Format = fp.Path, k+1, h.PatchLine, format
			errs = append(errs, err)
			continue
		}
		done = append(done, placed{h: h, pos: pos, level: lv})
		prev = placedAnchor(f, h, enclosing, pos)
		cursor = pos + len(h.Old())
		if h.HasRange {
			offset = pos - rangeStart(h)
		}
	}
	if len(errs) > 0 {
		return nil, nil, errs
	}
	out, results := assemble(f, fp, format, done, old)
	return out, results, nil
}

// firstAnchor is the first @@ line of a placed hunk and the 0-based line of
// the file where it is (-1: the hunk had none).
type firstAnchor struct {
	text string
	at   int
}

// enclosingAnchor returns the line of the file where h's first @@ line
// stands before the cursor and encloses it, or -1. That is where the hunk
// placed before had it (a model writes "@@ func f" again for a second
// change in f), or else its last place before the cursor when that line
// opens an indented block that the cursor is still in (a diff names the
// function around each hunk).
func enclosingAnchor(f *fileText, h *Hunk, prev firstAnchor, cursor int) int {
	switch {
	case len(h.Anchors) == 0 || len(h.Old()) == 0 || h.EndOfFile:
		return -1
	case prev.at >= 0 && prev.text == h.Anchors[0]:
		return prev.at
	}
	q := lastMatchBefore(f, newElem(h.Anchors[:1], true), cursor)
	if q < 0 {
		return -1
	}
	if end, opened := blockEnd(f, q, len(f.text)); !opened || end < cursor {
		return -1
	}
	return q
}

// placedAnchor is h's first @@ line, h being placed at pos: at the line
// enclosingAnchor gave, or else at its last match before the next @@ line
// (or the hunk).
func placedAnchor(f *fileText, h *Hunk, enclosing, pos int) firstAnchor {
	if len(h.Anchors) == 0 {
		return firstAnchor{at: -1}
	}
	if enclosing >= 0 {
		return firstAnchor{h.Anchors[0], enclosing}
	}
	at := pos
	for i := len(h.Anchors) - 1; i >= 0 && at >= 0; i-- {
		at = lastMatchBefore(f, newElem(h.Anchors[i:i+1], true), at)
	}
	return firstAnchor{h.Anchors[0], at}
}

// lastMatchBefore returns the last line before limit where e matches at any
// level, or -1.
func lastMatchBefore(f *fileText, e *elem, limit int) int {
	best := -1
	for lv := range nLevels {
		s := f.matchStarts(e, lv)
		if k := sort.SearchInts(s, limit) - 1; k >= 0 && s[k] > best {
			best = s[k]
		}
	}
	return best
}

// underEnclosingAnchor places h, whose first @@ line encloses the cursor
// from line anchor (see enclosingAnchor), given where locate placed it
// (pos, lv, err) searching after the previous hunk. Codex looks for the @@
// line after the previous hunk only, and so misses a second change in the
// same function. Here the hunk's other @@ lines and its old lines are also
// looked for under the anchor line: from there to the end of the block it
// opens (see blockEnd), or else to the next place where the same line
// stands, or the file's end. They must fit one place there, after the
// previous hunk; when they do, and locate found none, or the same, that is
// the place. When locate found another (under a later line like the @@
// one: an overload, a method of the same name in another class), the hunk
// is ambiguous and refused.
func underEnclosingAnchor(f *fileText, h *Hunk, anchor, cursor, hint, pos, lv int, err *HunkError) (int, int, *HunkError) {
	if err != nil && err.Kind != KindNotFound {
		return pos, lv, err
	}
	end := len(f.text)
	if again, _, ok := f.nearest(newElem(h.Anchors[:1], true), cursor, false); ok {
		end = again
	}
	if b, opened := blockEnd(f, anchor, end); opened && b >= cursor {
		end = b
	}
	rest := *h
	rest.Anchors = h.Anchors[1:]
	p, l, err2 := locate(f.head(end), &rest, anchor+1, hint)
	switch {
	case err2 != nil:
		if err != nil && err2.Kind == KindAmbiguous {
			return 0, 0, err2
		}
		return pos, lv, err
	case p < cursor:
		return pos, lv, err // in or before the previous hunk: out of order
	case err == nil && pos != p:
		ps := []place{{p, l}, {pos, lv}}
		if pos < p {
			ps[0], ps[1] = ps[1], ps[0]
		}
		return 0, 0, ambiguous(h.Old(), cursor, ps)
	}
	return p, l, nil
}

// blockEnd returns the line that ends the block the line at anchor opens,
// or limit when that comes first, and whether it opens one: whether the
// next line that is not blank is indented more than it (a heading opens
// none). The block ends at the first line that is not blank, is indented
// no more than the anchor line, and is not only closing brackets (or
// "end"): the "}" of a Go function is in it, the next "func" is not; in
// Python, the next "def" at the same depth.
func blockEnd(f *fileText, anchor, limit int) (int, bool) {
	depth := indent(f.text[anchor])
	opened := false
	for i := anchor + 1; i < limit; i++ {
		t := f.text[i]
		if strings.TrimSpace(t) == "" {
			continue
		}
		if !opened {
			if indent(t) <= depth {
				return limit, false
			}
			opened = true
			continue
		}
		if indent(t) <= depth && !closesBlock(t) {
			return i, true
		}
	}
	return limit, opened
}

// indent is the number of spaces and tabs a line starts with.
func indent(s string) int {
	return len(s) - len(strings.TrimLeft(s, " \t"))
}

// closesBlock: the line is only closing brackets and punctuation, or "end".
func closesBlock(s string) bool {
	t := strings.TrimSpace(s)
	return t == "end" || strings.Trim(t, "})];,") == ""
}

// rangeStart is the 0-based line where a unified hunk's header puts it.
func rangeStart(h *Hunk) int {
	if h.OldCount == 0 {
		return h.OldStart // the line after which it inserts
	}
	return h.OldStart - 1
}

// trimTrailingBlank returns h without the blank context lines at its end,
// or nil when it has none (Codex retries the same way: such lines often
// stand for the file's final newline).
func trimTrailingBlank(h *Hunk) *Hunk {
	n := len(h.Lines)
	for n > 0 && h.Lines[n-1].Kind == Context && strings.TrimSpace(h.Lines[n-1].Text) == "" {
		n--
	}
	if n == len(h.Lines) || len(h.Old()) == len(h.Lines)-n {
		return nil
	}
	t := *h
	t.Lines = h.Lines[:n]
	return &t
}

// locate finds the 0-based line where h's old lines start (or where its
// added lines go, for a hunk without old lines), searching from line from.
// For a unified hunk with line numbers, hint is where its header puts it.
func locate(f *fileText, h *Hunk, from, hint int) (int, int, *HunkError) {
	old := h.Old()
	var chain []*elem
	for _, a := range h.Anchors {
		chain = append(chain, newElem([]string{a}, true))
	}
	if len(old) > 0 {
		chain = append(chain, newElem(old, false))
	}
	n := len(f.text)
	if len(chain) == 0 {
		// Only added lines, and no anchor: at the end of the file (as Codex
		// does), or where a unified header says.
		if h.EndOfFile || !h.HasRange {
			return n, 0, nil
		}
		if hint < from {
			return 0, 0, &HunkError{Kind: KindOverlap, From: from + 1, At: hint + 1}
		}
		if hint > n {
			return 0, 0, &HunkError{Kind: KindNotFound, From: from + 1,
				Hint: fmt.Sprintf("the hunk adds lines after line %d, but the file has %d lines", hint, n)}
		}
		return hint, 0, nil
	}
	atEnd := func(k int) bool { return h.EndOfFile && !chain[k].anchor }
	first := f.occurrences(chain[0], from, atEnd(0))
	if first == nil {
		return 0, 0, notFound(f, h, chain[0], from, atEnd(0))
	}
	// Each start of the first element leads, through the first match of
	// each later element, to one place; the hunk must lead to exactly one.
	// A place's level is its old lines' (an @@ line written without its
	// indentation, or as the start of its line, is how anchors are
	// written, not leniency); for a hunk without old lines, its @@ lines'
	// (which decide picks by, but which is not reported).
	var ends []place
	failAt, failFrom := -1, 0
	var strayErr *HunkError
	for _, o := range first {
		p, at, ok := o.pos+len(chain[0].raw), o.pos, true
		lv, anchorLv := o.level, o.level
		anchors := []int{o.pos}
		for k := 1; k < len(chain); k++ {
			q, l, found := f.nearest(chain[k], p, atEnd(k))
			if !found {
				if failAt < 0 {
					failAt, failFrom = k, p
				}
				ok = false
				break
			}
			p, at, lv = q+len(chain[k].raw), q, l
			if chain[k].anchor {
				anchorLv = max(anchorLv, l)
			}
			anchors = append(anchors, q)
		}
		if !ok {
			continue
		}
		if len(old) == 0 {
			lv = anchorLv
		}
		if len(old) > 0 {
			// The old lines must be under each @@ line, not under a later
			// line like it (another function, another class).
			for i, a := range anchors[:len(h.Anchors)] {
				if s := strayed(f, a, at); s >= 0 {
					ok = false
					if strayErr == nil {
						strayErr = &HunkError{Kind: KindNotFound, Want: old, From: a + 2,
							Hint: fmt.Sprintf("they are at line %d, under %q (line %d), outside the block that the @@ line %q opens at line %d",
								at+1, strings.TrimSpace(f.text[s]), s+1, h.Anchors[i], a+1)}
					}
					break
				}
			}
			if !ok {
				continue
			}
		}
		pos := at
		if len(old) == 0 {
			pos = p
			if h.EndOfFile {
				pos = n
			}
		}
		// Starts come in order and each step goes to the first match after
		// the previous one, so the places come in order too.
		if k := len(ends) - 1; k >= 0 && ends[k].pos == pos {
			ends[k].level = min(ends[k].level, lv)
		} else {
			ends = append(ends, place{pos, lv})
		}
	}
	switch {
	case len(ends) == 0 && strayErr != nil:
		return 0, 0, strayErr
	case len(ends) == 0:
		return 0, 0, notFound(f, h, chain[failAt], failFrom, atEnd(failAt))
	}
	ends = decide(ends)
	if len(ends) == 1 {
		return ends[0].pos, ends[0].level, nil
	}
	for _, e := range ends {
		if h.HasRange && e.pos == hint {
			return e.pos, e.level, nil
		}
	}
	return 0, 0, ambiguous(old, from, ends)
}

// place is where a hunk fits: the 0-based line of its old lines (or where
// it adds its lines), and the level that needed.
type place struct{ pos, level int }

// decide keeps the places that count, by the rule edit_file's matcher
// follows (package editmatch): the exact ones when there are any, else
// all of them, whatever level each needed. The hunk applies when one
// remains.
func decide(ps []place) []place {
	var exact []place
	for _, p := range ps {
		if p.level == 0 {
			exact = append(exact, p)
		}
	}
	if len(exact) > 0 {
		return exact
	}
	return ps
}

// ambiguous is the error for a hunk that fits the places ps.
func ambiguous(old []string, from int, ps []place) *HunkError {
	err := &HunkError{Kind: KindAmbiguous, Want: old, From: from + 1, Places: len(ps)}
	for _, e := range ps[:min(len(ps), maxMatches)] {
		err.Matches = append(err.Matches, e.pos+1)
		err.Levels = append(err.Levels, levels[e.level])
		err.Level = levels[max(e.level, slices.Index(levels[:], err.Level))]
	}
	return err
}

// strayed returns the line that holds line at in its block when that is
// not the block the @@ line at a opens, or -1: a line as little indented as
// a's, after it, that opens a block at is indented under (the hunk's lines
// were found in the next function, not in the one its @@ line names). A
// line that opens no block (a comment, a decorator, a heading) is a
// landmark only, and any place after it does.
func strayed(f *fileText, a, at int) int {
	if _, opened := blockEnd(f, a, len(f.text)); !opened || at >= len(f.text) {
		return -1
	}
	d := indent(f.text[a])
	for s := at - 1; s > a; s-- {
		t := f.text[s]
		if strings.TrimSpace(t) == "" || closesBlock(t) || indent(t) > d {
			continue
		}
		if _, opened := blockEnd(f, s, len(f.text)); opened && indent(f.text[at]) > indent(t) {
			return s
		}
		return -1
	}
	return -1
}

// notFound describes why e was not found at or after line from.
func notFound(f *fileText, h *Hunk, e *elem, from int, atEnd bool) *HunkError {
	err := &HunkError{Kind: KindNotFound, Want: e.raw, From: from + 1}
	if e.anchor {
		err.Anchor = e.raw[0]
		if p := f.anyMatch(e, 0, from); p >= 0 {
			err.Hint = fmt.Sprintf("that line is at line %d, before line %d where the search started (after the previous hunk); hunks must be in file order", p+1, from+1)
		}
		return err
	}
	err.Want = h.Old()
	if start, k, ok := f.closest(e, from); ok {
		err.Closest, err.DiffLine, err.Expected = start+1, start+k+1, e.raw[k]
		if start+k < len(f.text) {
			err.Found = f.text[start+k]
		} else {
			err.FoundEOF = true
		}
	}
	switch {
	case atEnd && f.anyMatch(e, from, len(f.text)) >= 0:
		err.Hint = fmt.Sprintf("the lines are at line %d, but the hunk says they end the file (*** End of File, or \\ No newline at end of file) and they do not", f.anyMatch(e, from, len(f.text))+1)
	case f.anyMatch(e, 0, from) >= 0:
		err.Hint = fmt.Sprintf("the lines are at line %d, before line %d where the search started (after the previous hunk); hunks must be in file order", f.anyMatch(e, 0, from)+1, from+1)
	}
	return err
}

// assemble builds the new content from the old lines and the placed hunks.
// Lines that the hunks keep are taken from the file, not from the patch, so
// that what the leniency levels ignored stays as it was.
func assemble(f *fileText, fp *FilePatch, format string, done []placed, old []byte) ([]byte, []HunkResult) {
	type line struct{ text, term string }
	eol := f.eol()
	if eol == "" {
		eol = "\n"
		for _, h := range fp.Hunks {
			for _, l := range h.Lines {
				if l.Kind == Insert && strings.HasSuffix(l.Text, "\r") {
					eol = "\r\n"
				}
			}
		}
	}
	// A "\r" left on a line after parsing is the line's own (the transport's
	// were dropped): a unified diff made of a file with CRLF lines, or of a
	// change to line endings. Such a patch says what each added line ends
	// with, and is followed; a patch without (every Codex patch, and what a
	// model writes) gets the file's usual ending on the lines it adds.
	ownEndings := false
	for _, h := range fp.Hunks {
		for _, l := range h.Lines {
			ownEndings = ownEndings || strings.HasSuffix(l.Text, "\r")
		}
	}
	addedEnding := func(text string) line {
		switch {
		case !ownEndings:
			return line{text, eol}
		case strings.HasSuffix(text, "\r"):
			return line{strings.TrimSuffix(text, "\r"), "\r\n"}
		}
		return line{text, "\n"}
	}
	finalNewline := len(old) == 0 || old[len(old)-1] == '\n'
	dropBOM := false
	out := make([]line, 0, len(f.text))
	var results []HunkResult
	prev := 0
	for _, d := range done {
		for i := prev; i < d.pos; i++ {
			out = append(out, line{f.text[i], f.term[i]})
		}
		r := HunkResult{OldStart: d.pos + 1, NewStart: len(out) + 1, Level: levels[d.level]}
		if len(d.h.Old()) == 0 {
			r.Level = LevelExact // only @@ lines were looked for
		}
		var reindent func(string) string
		if levels[d.level] == LevelWhitespace || levels[d.level] == LevelUnicode {
			reindent = reindenter(f, d.h, d.pos)
		}
		i := d.pos
		for _, l := range d.h.Lines {
			switch l.Kind {
			case Context:
				out = append(out, line{f.text[i], f.term[i]})
				i++
			case Remove:
				// A unified diff (made by a tool, as a rule) whose
				// removed first line shows the byte-order mark says
				// whether the new first line has one: it is then not
				// put back.
				dropBOM = dropBOM || i == 0 && format == FormatUnified && strings.HasPrefix(l.Text, bom)
				i++
			case Insert:
				if reindent != nil {
					out = append(out, addedEnding(reindent(l.Text)))
				} else {
					out = append(out, addedEnding(l.Text))
				}
			}
		}
		r.OldCount, r.NewCount = i-d.pos, len(out)+1-r.NewStart
		results = append(results, r)
		prev = i
		switch d.h.Newline {
		case AddNewline:
			finalNewline = true
		case DropNewline:
			finalNewline = false
		}
	}
	for i := prev; i < len(f.text); i++ {
		out = append(out, line{f.text[i], f.term[i]})
	}
	var b strings.Builder
	for i, l := range out {
		b.WriteString(l.text)
		switch {
		case i < len(out)-1 || finalNewline:
			if l.term == "" {
				l.term = eol
			}
			b.WriteString(l.term)
		}
	}
	s := b.String()
	if strings.HasPrefix(string(old), bom) && s != "" && !strings.HasPrefix(s, bom) && !dropBOM {
		s = bom + s
	}
	return []byte(s), results
}
