package editmatch

import (
	"bytes"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// What a not-found error tells the model: an elision in old_string, an
// edit that seems applied already, and the region of the file most like
// old_string with its first differing line.

// elisionLine matches a line that stands for omitted text: "...", "…",
// "// ... existing code ...", "# ...", "/* ... */", "<!-- ... -->",
// "{ ... }" and the like. A spread such as "...rest" is not one.
var elisionLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(?:(?://+|#+|--|;+|/\*+|\*|<!--|\{|\(|\[)\s*)?(?:\.\.\.|…)(?:\s+[\pL\pN(][^\n]*?)?\s*(?:\.\.\.|…)?\s*(?:\*/|-->|\}|\)|\])?\s*$`)
})

// elision returns the first line of old that is an elision marker and
// that the file does not hold, or "".
func elision(c []byte, old string) string {
	for _, l := range strings.Split(old, "\n") {
		l = strings.TrimRight(l, "\r")
		if elisionLine().MatchString(l) && !bytes.Contains(c, []byte(strings.TrimSpace(l))) {
			return l
		}
	}
	return ""
}

// notFound explains why nothing matched.
func (m *matcher) notFound(vs []*variant, new string) *NotFoundError {
	e := &NotFoundError{}
	if l := elision(m.f.c, vs[0].old.joined()); l != "" {
		e.Elided, e.Marker = true, l
	}
	e.AlreadyApplied = m.alreadyApplied(new)
	m.closest(vs[len(vs)-1], e)
	return e
}

// joined returns the text's lines joined by "\n".
func (t text) joined() string {
	var sb strings.Builder
	for i, l := range t.lines {
		if i > 0 {
			sb.WriteByte('\n')
		}
		sb.Write(l)
	}
	return sb.String()
}

// alreadyApplied returns where new is, when it is in exactly one place
// (exactly, or through the cascade) and is more than a few characters.
func (m *matcher) alreadyApplied(new string) *Range {
	if len(strings.TrimSpace(new)) < 4 {
		return nil
	}
	c := m.f.c
	fd := newFinder(c, []byte(new))
	if at := fd.index(c); at >= 0 {
		if fd.index(c[at+len(new):]) >= 0 {
			return nil
		}
		lines, _ := occurrences(c, fd, 1)
		return &lines[0]
	}
	var found []*place
	m.budget = maxVisits
	for _, v := range variants(m.f, new, "") {
		found = append(found, m.search(v, 2)...)
	}
	found = dedupe(found)
	if len(found) != 1 || m.exhausted() {
		return nil
	}
	r := m.regionLines(found[0])
	return &r
}

// forLines calls fn for each line of the file with its number, until fn
// returns false.
func (m *matcher) forLines(fn func(no int, l fline) bool) {
	l := m.f.lineAt(m.f.base)
	for no := 1; fn(no, l); no++ {
		var ok bool
		if l, ok = m.f.next(l); !ok {
			return
		}
	}
}

// closest fills in the region most like old_string: the alignment most of
// old_string's lines agree on, or, when no line of old_string is in the
// file, the line most like one of them.
func (m *matcher) closest(v *variant, e *NotFoundError) {
	if !v.usable() {
		return
	}
	byKey := map[string][]int{}
	for _, k := range v.nb {
		if len(v.keys[k]) >= 3 {
			byKey[string(v.keys[k])] = append(byKey[string(v.keys[k])], k)
		}
	}
	type tally struct {
		n   int   // weight of the old lines found on this alignment
		no  int   // one of them: its file line number
		hit fline // and the line
	}
	votes := map[int]*tally{}
	vote := func(no int, l fline, ks []int) {
		for _, k := range ks {
			t := votes[no-k]
			if t == nil {
				if len(votes) >= 100000 {
					continue
				}
				t = &tally{no: no, hit: l}
				votes[no-k] = t
			}
			t.n += len(v.keys[k])
		}
	}
	// A line equal to an old line holds that line's anchor: with few old
	// lines, search their anchors; else look at every line.
	anchored := len(byKey) <= 8
	for _, ks := range byKey {
		anchored = anchored && len(anchorOf(v.old.lines[ks[0]])) > 0
	}
	switch {
	case anchored:
		c := m.f.c
		for ky, ks := range byKey {
			fd := newFinder(c, anchorOf(v.old.lines[ks[0]]))
			pos, no := 0, 1
			for hits := 0; hits < 100000; hits++ {
				i := fd.index(c[pos:])
				if i < 0 {
					break
				}
				l := m.f.lineAt(pos + i)
				no += bytes.Count(c[pos:l.start], nl)
				if string(key(m.buf[:], m.f.text(l), trimBoth)) == ky {
					vote(no, l, ks)
				}
				if l.next >= len(c) {
					break
				}
				no += bytes.Count(c[l.start:l.next], nl)
				pos = l.next
			}
		}
	case len(byKey) > 0:
		m.forLines(func(no int, l fline) bool {
			if ks, ok := byKey[string(key(m.buf[:], m.f.text(l), trimBoth))]; ok {
				vote(no, l, ks)
			}
			return true
		})
	}
	best, bestVotes := 0, 0
	for d, t := range votes {
		if t.n > bestVotes || t.n == bestVotes && d < best {
			best, bestVotes = d, t.n
		}
	}
	if bestVotes > 0 {
		t := votes[best]
		m.locate(v, best, t.no, t.hit, e)
		return
	}
	if first, no, hit, ok := m.similar(v); ok {
		m.locate(v, first, no, hit, e)
	}
}

// similar finds the file line most like a line of old_string, and
// returns the number the first line of old_string would have there. It
// looks at the lines holding one of old_string's longer anchor runs, or,
// when none is in the file and the file is small, at every line.
func (m *matcher) similar(v *variant) (first, no int, hit fline, ok bool) {
	c := m.f.c
	type token struct {
		b  []byte
		fd *finder
	}
	var tokens []token
	for _, k := range v.nb {
		for _, r := range anchorRuns(v.old.lines[k]) {
			if len(r) < 3 {
				continue
			}
			if fd := newFinder(c, r); fd.index(c) >= 0 {
				tokens = append(tokens, token{r, fd})
			}
			if len(tokens) == 8 {
				break
			}
		}
	}
	sort.SliceStable(tokens, func(i, j int) bool { return len(tokens[i].b) > len(tokens[j].b) })
	tokens = tokens[:min(len(tokens), 5)]
	olds := v.nb[:min(len(v.nb), 20)]
	bestScore := 0.0
	score := func(n int, l fline) {
		fk := key(m.buf[:], m.f.text(l), trimBoth)
		for _, k := range olds {
			if s := dice(v.keys[k], fk); s > bestScore {
				bestScore, first, no, hit = s, n-k, n, l
			}
		}
	}
	if len(tokens) == 0 && len(c) <= 4<<20 {
		m.forLines(func(n int, l fline) bool {
			score(n, l)
			return true
		})
	}
	for _, tok := range tokens {
		pos, n := 0, 1
		for hits := 0; hits < 2000; hits++ {
			i := tok.fd.index(c[pos:])
			if i < 0 {
				break
			}
			l := m.f.lineAt(pos + i)
			n += bytes.Count(c[pos:l.start], nl)
			score(n, l)
			if l.next >= len(c) {
				break
			}
			n += bytes.Count(c[l.start:l.next], nl)
			pos = l.next
		}
	}
	return first, no, hit, bestScore >= 0.5
}

// dice is the Sørensen–Dice coefficient of the byte bigrams of a and b.
func dice(a, b []byte) float64 {
	if len(a) < 2 || len(b) < 2 {
		if bytes.Equal(a, b) {
			return 1
		}
		return 0
	}
	a, b = a[:min(len(a), 400)], b[:min(len(b), 400)]
	bg := func(s []byte) []int {
		out := make([]int, len(s)-1)
		for i := range out {
			out[i] = int(s[i])<<8 | int(s[i+1])
		}
		sort.Ints(out)
		return out
	}
	x, y := bg(a), bg(b)
	common := 0
	for i, j := 0, 0; i < len(x) && j < len(y); {
		switch {
		case x[i] == y[j]:
			common++
			i++
			j++
		case x[i] < y[j]:
			i++
		default:
			j++
		}
	}
	return 2 * float64(common) / float64(len(x)+len(y))
}

// locate compares old_string with the file from line first (the number
// its first line would have; hit is line no of the file, on the same
// alignment) and records the region and the first line that differs.
func (m *matcher) locate(v *variant, first, no int, hit fline, e *NotFoundError) {
	o := v.old
	k := 0
	if first < 1 {
		k, first = 1-first, 1
	}
	l := hit
	for ; no > first; no-- {
		p, ok := m.f.prev(l)
		if !ok {
			break
		}
		l = p
	}
	first = no
	if k >= len(o.lines) {
		return
	}
	e.CandidateStart = first
	drift := 0
	for ; k < len(o.lines); k++ {
		e.CandidateEnd = no
		oldBlank := len(v.keys[k]) == 0
		switch {
		case oldBlank && m.blank(l):
		case oldBlank:
			continue // a blank line the file lacks here
		case m.blank(l) && drift < maxDrift:
			drift++
			k-- // a blank line old_string lacks
		default:
			if !m.matchesLine(v, k, l) {
				e.DiffLine, e.FileLine, e.OldLine = no, string(m.f.text(l)), string(o.lines[k])
				e.CandidateEnd = max(e.CandidateEnd, min(no+len(o.lines)-1-k, e.CandidateStart+len(o.lines)-1))
				return
			}
		}
		next, ok := m.f.next(l)
		if !ok {
			if k+1 < len(o.lines) {
				e.OldLine = string(o.lines[k+1])
			}
			return
		}
		l, no = next, no+1
	}
}

// matchesLine compares old line k with file line l as the search would.
func (m *matcher) matchesLine(v *variant, k int, l fline) bool {
	if len(v.old.lines) == 1 {
		return len(m.singles(v, l)) > 0
	}
	_, _, ok := m.check(v, k, l)
	return ok
}
