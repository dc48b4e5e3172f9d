package editmatch

import (
	"bytes"
	"fmt"
	"strings"
)

// Re-indentation. When old_string matched with different indentation, the
// lines of new_string that are written (not kept from the file) are moved
// from the model's indentation to the file's, line by line, so each keeps
// its depth relative to the block. An indentation is read as a depth
// (levels of one unit: a tab, or N spaces) plus extra spaces below one unit
// (the " * " of a comment block, alignment). The model's depths map to the
// file's by one constant shift, and extra spaces carry over; the units of
// both sides are detected, then tried in a fixed order until one mapping
// explains every matched line. A mapping that does not exist (old_string's
// structure differs from the file's) refuses the edit.

// indentPair is the indentation of one matched line in old_string and in
// the file.
type indentPair struct {
	k, line   int // the old line and the region line
	old, file []byte
}

// style is how a text indents: with tabs, or with unit spaces per level.
type style struct {
	tabs bool
	unit int
}

func (s style) String() string {
	if s.tabs {
		return "tab"
	}
	return fmt.Sprintf("%d-space", s.unit)
}

// indentMap moves indentation from the model's style to the file's.
type indentMap struct {
	from, to style
	shift    int  // levels added
	cols     bool // space to space by a column shift instead
	colShift int
	keep     bool // new_string is indented as the file is: written as it is
}

// split reads ind as levels and extra spaces in style s.
func (s style) split(ind []byte) (level, extra int, ok bool) {
	if s.tabs {
		t := 0
		for t < len(ind) && ind[t] == '\t' {
			t++
		}
		if bytes.IndexByte(ind[t:], '\t') >= 0 {
			return 0, 0, false
		}
		return t, len(ind) - t, true
	}
	if bytes.IndexByte(ind, '\t') >= 0 || s.unit <= 0 {
		return 0, 0, false
	}
	return len(ind) / s.unit, len(ind) % s.unit, true
}

// render writes levels and extra spaces in style s.
func (s style) render(level, extra int) []byte {
	if s.tabs {
		return []byte(strings.Repeat("\t", level) + strings.Repeat(" ", extra))
	}
	return []byte(strings.Repeat(" ", level*s.unit+extra))
}

// apply maps one indentation of the model's to the file's.
func (m *indentMap) apply(ind []byte) ([]byte, bool) {
	if m.keep {
		return ind, true
	}
	if m.cols {
		if bytes.IndexByte(ind, '\t') >= 0 || len(ind)+m.colShift < 0 {
			return nil, false
		}
		return []byte(strings.Repeat(" ", len(ind)+m.colShift)), true
	}
	l, x, ok := m.from.split(ind)
	if !ok || l+m.shift < 0 {
		return nil, false
	}
	return m.to.render(l+m.shift, x), true
}

// detected is what detectStyle found in some lines.
type detected struct {
	tabLed, spaceLed int
	unit             int  // most frequent step between space indents, 0 if none
	stepped          bool // unit is a step seen, not a guess from one indentation
}

// detectStyle looks at the indentation of non-blank lines.
func detectStyle(lines [][]byte) detected {
	var d detected
	var steps [9]int
	prev := -1
	for _, l := range lines {
		if len(trimSpace(l, trimBoth)) == 0 {
			continue
		}
		ind, _ := indentOf(l)
		w := -1
		switch {
		case len(ind) == 0:
			w = 0
		case ind[0] == '\t':
			d.tabLed++
		default:
			d.spaceLed++
			if bytes.IndexByte(ind, '\t') < 0 {
				w = len(ind)
			}
		}
		if w >= 0 && prev >= 0 && w > prev && w-prev >= 2 && w-prev <= 8 {
			steps[w-prev]++
		}
		if w >= 0 {
			prev = w
		}
	}
	best := 0
	for u := 2; u <= 8; u++ {
		if steps[u] > best {
			best, d.unit = steps[u], u
		}
	}
	d.stepped = d.unit > 0
	if d.unit == 0 {
		// No steps: the smallest indentation, if any.
		for _, l := range lines {
			ind, _ := indentOf(l)
			if len(ind) >= 2 && bytes.IndexByte(ind, '\t') < 0 && len(trimSpace(l, trimBoth)) > 0 && (d.unit == 0 || len(ind) < d.unit) {
				d.unit = len(ind)
			}
		}
		d.unit = min(d.unit, 8)
	}
	return d
}

// buildIndentMap finds the mapping that explains every pair and decides in
// which frame new_string is indented: old_string's (the usual case: new
// text made from old text, re-indented through the mapping) or the file's
// (old_string mis-indented, new_string already as the file has it: kept as
// written). A frame fits when every line of new_string lies on its grid;
// when both fit, the lines new_string shares with old_string tell, and
// then new_string's own unit. A choice the text cannot make is refused,
// never guessed. first gives the file line number of the region's first
// line, for the message when there is no mapping.
func buildIndentMap(pairs []indentPair, oldLines, newLines, around [][]byte, first func() int) (*indentMap, string) {
	ad, fd := detectStyle(oldLines), detectStyle(around)
	if ad.tabLed+ad.spaceLed == 0 {
		ad = detectStyle(newLines) // old_string has no indentation: new_string's tells its style
	}
	if ad.tabLed > 0 && ad.spaceLed > 0 {
		return nil, "old_string and new_string indent some lines with tabs and others with spaces"
	}
	aTabs := ad.tabLed > 0
	fTabs := fd.tabLed > fd.spaceLed
	units := func(first, second int) []int {
		var out []int
		for _, u := range []int{first, second, 4, 2, 8, 3, 1} {
			if u > 0 && !containsInt(out, u) {
				out = append(out, u)
			}
		}
		return out
	}
	var aStyles, fStyles []style
	if aTabs {
		aStyles = []style{{tabs: true}}
	} else {
		for _, u := range units(ad.unit, fd.unit) {
			aStyles = append(aStyles, style{unit: u})
		}
	}
	switch {
	case fTabs:
		fStyles = []style{{tabs: true}}
	case fd.stepped:
		fStyles = []style{{unit: fd.unit}} // the file shows its unit: no other reading
	default:
		for _, u := range units(fd.unit, ad.unit) {
			fStyles = append(fStyles, style{unit: u})
		}
	}
	// The mappings that explain every pair, most likely first, each with
	// the alignments (spaces below one unit) old_string has.
	type mapping struct {
		m      *indentMap
		extras map[int]bool
	}
	var maps []mapping
	for _, as := range aStyles {
	next:
		for _, fs := range fStyles {
			m := &indentMap{from: as, to: fs}
			extras := map[int]bool{0: true}
			set := false
			for _, p := range pairs {
				la, xa, ok1 := as.split(p.old)
				lf, xf, ok2 := fs.split(p.file)
				if !ok1 || !ok2 || xa != xf || (set && lf-la != m.shift) {
					continue next
				}
				m.shift, set = lf-la, true
				extras[xa] = true
			}
			maps = append(maps, mapping{m, extras})
		}
	}
	if !aTabs && !fTabs {
		m := &indentMap{cols: true}
		set := true
		for i, p := range pairs {
			d := len(p.file) - len(p.old)
			if bytes.IndexByte(p.old, '\t') >= 0 || bytes.IndexByte(p.file, '\t') >= 0 || (i > 0 && d != m.colShift) {
				set = false
				break
			}
			m.colShift = d
		}
		if set {
			maps = append(maps, mapping{m, nil})
		}
	}
	if len(maps) == 0 {
		return nil, inconsistency(pairs, first())
	}
	misfit := -1 // a line of new that no mapping of the pairs can place
	fits := func(mp mapping) bool {
		for i, l := range newLines {
			if len(trimSpace(l, trimBoth)) == 0 {
				continue
			}
			ind, _ := indentOf(l)
			ok := okApply(mp.m, ind)
			if _, x, split := mp.m.from.split(ind); ok && !mp.m.cols && (!split || !mp.extras[x]) {
				ok = false // off old_string's grid: an alignment it does not have
			}
			if !ok {
				if misfit < 0 {
					misfit = i
				}
				return false
			}
		}
		return true
	}
	// The file's frame: new_string's lines on the grid of the file's style.
	fileStyle := maps[0].m.to
	if maps[0].m.cols {
		fileStyle = fStyles[0]
	}
	fileExtras := map[int]bool{0: true}
	for _, p := range pairs {
		if _, x, ok := fileStyle.split(p.file); ok {
			fileExtras[x] = true
		}
	}
	fileFits := true
	for _, l := range newLines {
		if len(trimSpace(l, trimBoth)) == 0 {
			continue
		}
		ind, _ := indentOf(l)
		if _, x, ok := fileStyle.split(ind); !ok || !fileExtras[x] {
			fileFits = false
			break
		}
	}
	// Lines new_string shares with old_string, where old_string and the
	// file indent them differently, vote for the frame in which they
	// stayed as they were.
	byText := map[string]int{}
	for k, l := range oldLines {
		t := string(trimSpace(l, trimBoth))
		if _, seen := byText[t]; seen {
			byText[t] = -1 // not one line: no vote
		} else if t != "" {
			byText[t] = k
		}
	}
	byK := map[int]indentPair{}
	for _, p := range pairs {
		byK[p.k] = p
	}
	oldVotes, fileVotes := 0, 0
	for _, l := range newLines {
		k, ok := byText[string(trimSpace(l, trimBoth))]
		p, paired := byK[k]
		if !ok || k < 0 || !paired || bytes.Equal(p.old, p.file) {
			continue
		}
		ind, _ := indentOf(l)
		switch {
		case bytes.Equal(ind, p.old):
			oldVotes++
		case bytes.Equal(ind, p.file):
			fileVotes++
		}
	}
	keep := &indentMap{from: fileStyle, to: fileStyle, keep: true}
	const mixed = "new_string keeps some lines as old_string indents them and others as the file does; indent it as old_string is"
	oi := -1 // the first reading of old_string's indentation that places every line
	for i, mp := range maps {
		if fits(mp) {
			oi = i
			break
		}
	}
	switch {
	case oi < 0 && !fileFits:
		if misfit >= 0 {
			return nil, fmt.Sprintf("line %d of new_string is indented neither as old_string is nor as the file is, so it cannot be placed", misfit+1)
		}
		return nil, inconsistency(pairs, first())
	case oi < 0:
		return keep, ""
	case !fileFits:
		return maps[oi].m, ""
	case oldVotes > fileVotes:
		return maps[oi].m, ""
	case fileVotes > oldVotes:
		return keep, ""
	case oldVotes > 0:
		return nil, mixed
	case oi > 0:
		// old_string's own unit does not place new_string, the file's
		// does: the simpler reading.
		return keep, ""
	}
	om := maps[0].m
	// No line tells: new_string's own style does, when it is the file's
	// and not old_string's.
	nd := detectStyle(newLines)
	if nd.tabLed+nd.spaceLed > 0 && !om.cols {
		ownIs := func(s style) bool {
			if s.tabs {
				return nd.tabLed > 0 && nd.spaceLed == 0
			}
			return nd.tabLed == 0 && nd.unit == s.unit
		}
		if ownIs(fileStyle) && !ownIs(om.from) {
			return keep, ""
		}
	}
	return om, ""
}

// inconsistency explains why no mapping exists, naming two lines that
// contradict each other when it can. first is the file line number of the
// region's first line.
func inconsistency(pairs []indentPair, first int) string {
	width := func(ind []byte) int {
		w := 0
		for _, c := range ind {
			if c == '\t' {
				w += 8 - w%8
			} else {
				w++
			}
		}
		return w
	}
	byOld := map[string]indentPair{}
	byFile := map[string]indentPair{}
	for i, p := range pairs {
		q, seenOld := byOld[string(p.old)]
		r, seenFile := byFile[string(p.file)]
		lines := func(q indentPair) (string, string) {
			return fmt.Sprintf("lines %d and %d of old_string", q.k+1, p.k+1),
				fmt.Sprintf("lines %d and %d of the file", first+q.line, first+p.line)
		}
		switch {
		case seenOld && !bytes.Equal(q.file, p.file):
			ol, fl := lines(q)
			return ol + " are indented alike, but " + fl + " are not"
		case seenFile && !bytes.Equal(r.old, p.old):
			ol, fl := lines(r)
			return ol + " are indented differently, but " + fl + " alike"
		case i > 0:
			q := pairs[i-1]
			if (width(p.old) < width(q.old)) != (width(p.file) < width(q.file)) {
				ol, fl := lines(q)
				return ol + " and " + fl + " are not nested the same way"
			}
		}
		if !seenOld {
			byOld[string(p.old)] = p
		}
		if !seenFile {
			byFile[string(p.file)] = p
		}
	}
	return "its indentation does not map onto the file's by one consistent shift"
}

func okApply(m *indentMap, ind []byte) bool {
	_, ok := m.apply(ind)
	return ok
}

func containsInt(s []int, x int) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}
