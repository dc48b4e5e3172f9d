package editmatch

import (
	"bytes"
	"io"
	"sort"
	"strings"

	"github.com/wstools/ws/pkg/internal/wording"
)

// Names of the fallback steps, from strict to loose, as Match.Fallback
// reports them.
const (
	// FallbackLineEndings matches CRLF against LF, and an old_string that
	// ends with a line ending where the file ends without one.
	FallbackLineEndings = "line-endings"
	// FallbackBOM matches an old_string that starts with a byte-order mark
	// the file does not have there.
	FallbackBOM = "bom"
	// FallbackTrailingWhitespace ignores spaces and tabs at line ends.
	FallbackTrailingWhitespace = "trailing-whitespace"
	// FallbackIndentation ignores indentation (a shift, another width,
	// tabs against spaces) and re-indents new_string.
	FallbackIndentation = "indentation"
	// FallbackGutter removes read_file's "     12→" (or cat -n's
	// "    12\t") gutters copied from read output.
	FallbackGutter = "gutter"
	// FallbackEscapes decodes "\n" and "\t" typed as two characters,
	// when the file has no such sequence.
	FallbackEscapes = "escapes"
	// FallbackBlankLines ignores blank lines missing or extra, inside the
	// block or at its edges.
	FallbackBlankLines = "blank-lines"
	// FallbackUnicode matches typographic quotes, dashes, ellipsis,
	// no-break and thin spaces against their ASCII forms.
	FallbackUnicode = "unicode"
	// FallbackNormalization matches the same characters composed (NFC) on
	// one side and decomposed (NFD) on the other.
	FallbackNormalization = "normalization"
)

// stepNames holds the step of each difference bit.
var stepNames = [numBits]string{
	FallbackLineEndings, FallbackBOM, FallbackTrailingWhitespace, FallbackIndentation,
	FallbackGutter, FallbackEscapes, FallbackBlankLines, FallbackUnicode, FallbackNormalization,
}

// stepText says what each step ignored, for Match.Note.
var stepText = [numBits]string{
	"line endings", "a byte-order mark", "trailing whitespace", "indentation",
	"line-number gutters copied from read output", `literal \n and \t escapes`,
	"blank lines", "typographic quotes, dashes and spaces", "Unicode normalization (NFC/NFD)",
}

// Fallbacks returns the names of the fallback steps in cascade order, from
// strict to loose.
func Fallbacks() []string { return append([]string(nil), stepNames[:]...) }

// Match is an edit that can be applied. The new file is made on demand
// (Content), or written out without being made (WriteTo): a big file
// then costs no second copy in memory.
type Match struct {
	parts   [][]byte // the new file: slices of src and replacement texts
	content []byte   // the new file, once Content made it
	size    int
	// Count is the number of places replaced.
	Count int
	// Fallback is "" for an exact match, else the name of the step that
	// matched (one of the Fallback constants): the loosest difference the
	// place needed.
	Fallback string
	// Note is one line for the model saying which fallback matched and what
	// was kept ("" for an exact match).
	Note string
	// Ranges are the "(lines …)" ranges of the edit, 1-based and inclusive,
	// one per place, computed on the original content as Mastra does: from
	// the line of the place's first byte, over max(lines of new_string,
	// lines of the place), not shifted for earlier places. For a fallback
	// the place is the region matched and new_string the text written.
	Ranges []Range
	// Edits are the replaced regions, in order, as byte offsets in the
	// original content and in Content. Bytes outside them are unchanged.
	Edits []Span
}

// add appends a piece of the new file.
func (m *Match) add(p []byte) {
	if len(p) > 0 {
		m.parts = append(m.parts, p)
		m.size += len(p)
	}
}

// Replacement is the text an edit span was replaced with.
func (m *Match) Replacement(e Span) []byte {
	if m.content != nil {
		return m.content[e.NewStart:e.NewEnd]
	}
	// Find the part that starts at e.NewStart.
	at := 0
	for _, p := range m.parts {
		if at == e.NewStart && e.NewEnd-e.NewStart <= len(p) {
			return p[:e.NewEnd-e.NewStart]
		}
		at += len(p)
		if at > e.NewStart {
			break
		}
	}
	return m.Content()[e.NewStart:e.NewEnd]
}

// Size is the length of the new file.
func (m *Match) Size() int { return m.size }

// Content is the whole new file (made on the first call).
func (m *Match) Content() []byte {
	if m.content == nil {
		m.content = make([]byte, 0, m.size)
		for _, p := range m.parts {
			m.content = append(m.content, p...)
		}
	}
	return m.content
}

// WriteTo writes the new file to w, piece by piece.
func (m *Match) WriteTo(w io.Writer) (int64, error) {
	if m.content != nil {
		n, err := w.Write(m.content)
		return int64(n), err
	}
	var total int64
	for _, p := range m.parts {
		n, err := w.Write(p)
		total += int64(n)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// Range is a range of lines, 1-based and inclusive.
type Range struct{ Start, End int }

// Span is a replaced region: content[OldStart:OldEnd] became
// Match.Content()[NewStart:NewEnd].
type Span struct{ OldStart, OldEnd, NewStart, NewEnd int }

// maxPlaces bounds how many places are collected when replace_all is off.
const maxPlaces = 1000

// maxListed bounds how many entries (lines or line ranges) an
// *AmbiguousError lists.
const maxListed = 20

// Apply replaces old with new in content, the file's bytes as they are on
// disk (which may start with a byte-order mark, use CRLF, lack a final
// newline, or hold bytes that are not UTF-8).
//
// An exact occurrence of old always wins: one is replaced (all with
// replaceAll), and several without replaceAll are an *AmbiguousError with
// Mastra's text. Only when old does not occur at all does the cascade of
// fallbacks run; then every place old matches at any step counts, so two
// places are ambiguous even when one matches more strictly, and
// replaceAll applies only when all places match at the same step. A place
// whose indentation does not map consistently onto old's is refused.
// Nothing matched is a *NotFoundError, with the closest region, an
// elision or an edit already applied noted.
//
// Every edit keeps the file's line endings (new is written with those of
// the place it replaces), its byte-order mark and whether it ends with a
// line ending. A fallback also keeps the file's indentation style,
// re-indenting new when the indentation differed, and keeps, as the file
// has them, the lines new leaves as old had them.
func Apply(content []byte, old, new string, replaceAll bool) (*Match, error) {
	if old == "" {
		return nil, &NotFoundError{Reason: "old_string is empty."}
	}
	fd := newFinder(content, []byte(old))
	if at := fd.index(content); at >= 0 {
		return exact(content, fd, at, new, replaceAll)
	}
	return fallback(content, old, new, replaceAll)
}

// exact replaces the exact occurrences of the pattern of fd, the first of
// which is at first (only that one without replaceAll).
func exact(c []byte, fd *finder, first int, new string, all bool) (*Match, error) {
	f := newFile(c)
	ob := fd.pat
	old := string(ob)
	n := 1
	if next := first + len(ob); !all {
		if fd.index(c[next:]) >= 0 {
			n := 1 + fd.count(c[next:])
			lines, times := occurrences(c, fd, maxListed)
			return nil, &AmbiguousError{Count: n, Lines: lines, Times: times}
		}
	} else {
		n += fd.count(c[next:])
	}
	newLines := strings.Count(new, "\n") + 1
	m := &Match{Count: n}
	prev, line := 0, 1
	for i := 0; i < n; i++ {
		at := first
		if i > 0 {
			at = prev + fd.index(c[prev:])
		}
		start := line + bytes.Count(c[prev:at], nl)
		oldEnd := start + bytes.Count(ob[:len(ob)-1], nl)
		m.Ranges = append(m.Ranges, Range{start, start + max(newLines, oldEnd-start+1) - 1})
		eol := f.eolNear(at)
		repl := toEOL(new, eol)
		// The file keeps its byte-order mark (put back after the final
		// newline is seen to: the mark is not text that needs one).
		keepBOM := at == 0 && f.base > 0 && strings.HasPrefix(old, bom) && !strings.HasPrefix(repl, bom)
		place := at
		if ob[0] == '\n' && at-1 >= max(prev, f.base) && c[at-1] == '\r' {
			// old starts with the LF of a CRLF: the place takes its CR
			// too, so that the line ending is replaced whole (new's
			// line endings are written as CRLF).
			place = at - 1
		}
		from, r := keepFinalNewline(f, prev, place, at+len(ob), []byte(repl), eol)
		if keepBOM {
			r = append([]byte(bom), r...)
		}
		if bytes.Equal(r, c[from:at+len(ob)]) && new != old {
			// Keeping the file's line endings, final newline and
			// byte-order mark would undo the edit: it changes only
			// those, so new is written as given.
			from, r = at, []byte(new)
		}
		m.add(c[prev:from])
		ns := m.size
		m.add(r)
		m.Edits = append(m.Edits, Span{from, at + len(ob), ns, m.size})
		prev, line = at+len(ob), start+bytes.Count(ob, nl)
	}
	m.add(c[prev:])
	return m, nil
}

// occurrences returns the lines of the exact occurrences, those on the
// same lines as one entry, and how many each entry holds, for the first
// limit entries. Every occurrence on those lines counts, however many
// there are (old_string "a" in a line of a million "a"s is one entry of
// a million): the occurrences of one line follow each other, so the scan
// goes on only as far as the first occurrence past the last entry.
func occurrences(c []byte, fd *finder, limit int) (lines []Range, times []int) {
	ob := fd.pat
	prev, line := 0, 1
	for {
		i := fd.index(c[prev:])
		if i < 0 {
			break
		}
		at := prev + i
		start := line + bytes.Count(c[prev:at], nl)
		r := Range{start, start + bytes.Count(ob[:len(ob)-1], nl)}
		if n := len(lines); n > 0 && lines[n-1] == r {
			times[n-1]++
		} else if n == limit {
			break
		} else {
			lines, times = append(lines, r), append(times, 1)
		}
		prev, line = at+len(ob), start+bytes.Count(ob, nl)
	}
	return lines, times
}

// fallback runs the cascade.
func fallback(c []byte, old, new string, all bool) (*Match, error) {
	f := newFile(c)
	m := &matcher{f: f, budget: maxVisits}
	vs := variants(f, old, new)
	limit := maxPlaces
	if all {
		limit = len(c) + 1
	}
	var places []*place
	capped := false
	for _, v := range vs {
		found := m.search(v, limit)
		// The search stopped at the limit (after the whole line it was
		// on) with lines left to look at.
		capped = capped || len(found) >= limit && f.lineAt(found[len(found)-1].start).next < len(c)
		for _, p := range found {
			m.classify(p)
			places = append(places, p)
		}
	}
	if m.exhausted() {
		return nil, &NotFoundError{Reason: "old_string is too repetitive to be matched loosely in this file; copy it exactly from the file."}
	}
	places = dedupe(places)
	if len(places) == 0 {
		return nil, m.notFound(vs, new)
	}

	// Uniqueness, across all steps.
	mixed, overlap := false, false
	for i, p := range places {
		mixed = mixed || p.level() != places[0].level()
		// Places that touch overlap too when new_string, lacking the line
		// ending old_string ends with, would join them into one line.
		overlap = overlap || i > 0 && (p.start < places[i-1].end ||
			p.start == places[i-1].end && !places[i-1].v.new.endsNL)
	}
	if len(places) > 1 && (!all || mixed || overlap) {
		e := &AmbiguousError{Count: len(places), AtLeast: capped, ReplaceAll: all, Overlap: overlap}
		for _, p := range places {
			r, step := m.regionLines(p), stepNames[p.level()]
			if n := len(e.Lines); n > 0 && e.Lines[n-1] == r && e.Fallbacks[n-1] == step {
				e.Times[n-1]++
				continue
			}
			if len(e.Lines) == maxListed {
				break
			}
			e.Lines = append(e.Lines, r)
			e.Fallbacks = append(e.Fallbacks, step)
			e.Times = append(e.Times, 1)
		}
		return nil, e
	}
	for _, p := range places {
		m.prepare(p)
		if p.reason != "" {
			r := m.regionLines(p)
			return nil, &NotFoundError{
				CandidateStart: r.Start, CandidateEnd: r.End,
				Reason: "old_string matches " + r.lines() + " when formatting is ignored, but it was not applied: " + p.reason + ". Copy old_string exactly from the file.",
			}
		}
	}

	// Write.
	res := &Match{Count: len(places), Fallback: stepNames[places[0].level()]}
	prev, line := 0, 1
	for _, p := range places {
		m.build(p)
		m.keepFinalNewline(p, prev)
		start := line + bytes.Count(c[prev:p.start], nl)
		oldEnd := start + bytes.Count(c[p.start:max(p.start, p.end-1)], nl)
		written := bytes.Count(p.repl, nl) + 1
		res.Ranges = append(res.Ranges, Range{start, start + max(written, oldEnd-start+1) - 1})
		res.add(c[prev:p.start])
		ns := res.size
		res.add(p.repl)
		res.Edits = append(res.Edits, Span{p.start, p.end, ns, res.size})
		prev, line = p.end, start+bytes.Count(c[p.start:p.end], nl)
	}
	res.add(c[prev:])
	res.Note = m.note(places)
	return res, nil
}

// dedupe sorts places by position and keeps one of each region: the one
// that needed the fewest differences.
func dedupe(ps []*place) []*place {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].start != ps[j].start {
			return ps[i].start < ps[j].start
		}
		if ps[i].end != ps[j].end {
			return ps[i].end < ps[j].end
		}
		return ps[i].level() < ps[j].level()
	})
	out := ps[:0]
	for _, p := range ps {
		if n := len(out); n > 0 && out[n-1].start == p.start && out[n-1].end == p.end {
			continue
		}
		out = append(out, p)
	}
	return out
}

// regionLines returns the lines a place covers.
func (m *matcher) regionLines(p *place) Range {
	s := m.f.lineNo(p.start)
	e := s + bytes.Count(m.f.c[p.start:max(p.start, p.end-1)], nl)
	return Range{s, e}
}

// note writes Match.Note for the places of a fallback.
func (m *matcher) note(ps []*place) string {
	bits := 0
	var kept []string
	crlf, reindent := false, ""
	for _, p := range ps {
		bits |= p.bits
		crlf = crlf || p.eol == "\r\n"
		switch {
		case p.imap == nil:
		case p.imap.keep:
			reindent = p.imap.to.String() + " indentation (new_string already had it)"
		case p.imap.cols:
			reindent = "indentation (new_string re-indented)"
		default:
			reindent = p.imap.to.String() + " indentation (new_string re-indented)"
		}
	}
	var ignored []string
	for b := 0; b < numBits; b++ {
		if bits&(1<<b) != 0 {
			ignored = append(ignored, stepText[b])
		}
	}
	if crlf {
		kept = append(kept, "CRLF line endings")
	} else if bits&bitEOL != 0 {
		kept = append(kept, "LF line endings")
	}
	if m.f.base > 0 && (bits&bitBOM != 0 || ps[0].start <= m.f.base) {
		kept = append(kept, "byte-order mark")
	}
	if reindent != "" {
		kept = append(kept, reindent)
	}
	if last := ps[len(ps)-1]; last.end == len(m.f.c) {
		if bytes.HasSuffix(m.f.c, nl) {
			kept = append(kept, "final newline")
		} else {
			kept = append(kept, "no final newline")
		}
	}
	s := "No exact match; old_string matched ignoring " + wording.JoinAnd(ignored) + " (fallback " + stepNames[ps[0].level()] + ")."
	if len(kept) > 0 {
		s += " Kept the file's " + wording.JoinAnd(kept) + "."
	}
	if bits&(bitTrailing|bitBlank|bitUnicode|bitNFD|bitIndent) != 0 {
		s += " Lines new_string leaves as they were keep the file's text."
	}
	return s
}
