package grep

import (
	"fmt"
	"math"
	"strings"
	"unicode"

	es "github.com/dlclark/regexp2/v2/syntax"
)

// The ECMAScript engine backtracks and runs on every line it is given; a
// line it would match is found far faster by RE2's lazy DFA. So a pattern
// only the ECMAScript engine takes gets a prefilter: an RE2 pattern that
// matches wherever it can match, and more (a superset). The DFA finds the
// lines the superset matches, and only those go to the ECMAScript engine.
//
// esSuperset writes that pattern from the ECMAScript parse tree, node by
// node. Each node becomes an RE2 pattern that matches at least the text the
// node can match there:
//
//   - characters, sets, strings, repeats, groups and alternatives as they
//     are (a set that is more than ranges of characters, such as a Unicode
//     category, is any character);
//   - a lookbehind that stands first, `(?<=X)Y`, becomes `XY`, and a
//     lookahead that stands last, `Y(?=X)`, `YX`: the text X looks at is
//     there, next to the match. A negative one of a single character,
//     `(?<!\w)` first or `(?!\w)` last, becomes `(?:\A|\W)` or `(?:\W|\z)`
//     there (-w borders with these). Any
//     other lookaround is dropped: without the test the pattern matches
//     more;
//   - a backreference becomes what its group matches, optional unless
//     the group has surely matched before it (JavaScript's reference to a
//     group that took no part matches the empty string); a group of one
//     character, `(\d)\1`, is spelt out instead, one alternative per
//     character (`0 0|1 1|…` for what lies between), so the two are the same;
//   - `\b`, `\B`, `^` and `$` (of a line, with -U only dropped) as they are;
//   - anything else (a conditional, a balancing group) gives no prefilter.
//
// exact says the superset matches on a line exactly when the pattern does
// (nothing was dropped or widened, no case folding, no atomic group of
// the pattern's own, `(?>…)`, which can refuse text its content matches:
// regexp2 makes groups atomic itself only where that changes nothing, and
// the tree does not tell the two apart), so the DFA's answer
// is the answer and the ECMAScript engine runs only for the columns. With
// fold (-i) the superset is case-insensitive as RE2 folds, which takes in
// every case form regexp2's JavaScript folding takes; negated sets stay
// case-sensitive there (RE2's folded [^a] would leave out the 'A' that
// the ECMAScript engine's [^a] matches). ok is false when the pattern
// holds what the superset cannot be sure of.
func esSuperset(pattern string, tree *es.RegexTree, fold, multi bool) (src string, exact, ok bool) {
	for _, enum := range []bool{true, false} {
		b := &supBuilder{fold: fold, multi: multi, enum: enum, exact: !fold && !strings.Contains(pattern, "(?>"),
			caps: map[int]*es.RegexNode{}, parent: map[*es.RegexNode]*es.RegexNode{}, sub: map[int]rune{}}
		b.index(tree.Root, nil)
		root := tree.Root
		if root.T == es.NtCapture && len(root.Children) == 1 {
			root = root.Children[0] // the whole match, group 0
		}
		src := b.node(root, true, true)
		if b.fail {
			return "", false, false
		}
		if len(src) > maxSupersetLen {
			if enum {
				continue // spelt-out groups made it too big: once more without
			}
			return "", false, false
		}
		if fold {
			src = "(?i)" + src
		}
		return src, b.exact, true
	}
	return "", false, false
}

// maxSupersetLen bounds the superset's source: past it, RE2's program and
// the DFA's states cost more than the prefilter saves.
const maxSupersetLen = 64 << 10

// maxSpelt is the most characters a group of one is spelt out with.
const maxSpelt = 64

type supBuilder struct {
	fold, multi, enum bool
	exact, fail       bool
	caps              map[int]*es.RegexNode // groups by number
	parent            map[*es.RegexNode]*es.RegexNode
	sub               map[int]rune // a spelt-out group's character, by group number
	inRef             map[int]bool // groups being written for a reference to them
	depth             int          // of references written inside references
}

func (b *supBuilder) index(n, parent *es.RegexNode) {
	b.parent[n] = parent
	if n.T == es.NtCapture {
		b.caps[n.M] = n
	}
	for _, c := range n.Children {
		b.index(c, n)
	}
}

// loose marks the superset as wider than the pattern.
func (b *supBuilder) loose() { b.exact = false }

const (
	anyChar   = `[\x00-\x{10FFFF}]`
	noChar    = `[^\x00-\x{10FFFF}]`
	unbounded = math.MaxInt32
	// maxRepeat is the largest count RE2 takes in {n,m}; a repeat with
	// more becomes an open one ({n,} or {1000,}).
	maxRepeat = 1000
)

func rtl(n *es.RegexNode) bool { return n.Options&es.RightToLeft != 0 }

func caseless(n *es.RegexNode) bool { return n.Options&es.IgnoreCase == 0 }

// node writes n; left and right say that the superset may take in text
// before and after n's match (n stands first, or last, in the match).
func (b *supBuilder) node(n *es.RegexNode, left, right bool) string {
	if b.fail {
		return ""
	}
	switch n.T {
	case es.NtOne:
		return b.char(n.Ch, caseless(n))
	case es.NtNotone:
		return b.notChar(n.Ch, caseless(n))
	case es.NtSet:
		s, _ := b.set(n.Set, caseless(n))
		return s
	case es.NtMulti:
		var sb strings.Builder
		for _, r := range n.Str {
			sb.WriteString(b.char(r, caseless(n)))
		}
		return sb.String()
	case es.NtOneloop, es.NtOnelazy, es.NtOneloopatomic:
		return b.repeat(b.char(n.Ch, caseless(n)), n.M, n.N)
	case es.NtNotoneloop, es.NtNotonelazy, es.NtNotoneloopatomic:
		return b.repeat(b.notChar(n.Ch, caseless(n)), n.M, n.N)
	case es.NtSetloop, es.NtSetlazy, es.NtSetloopatomic:
		s, _ := b.set(n.Set, caseless(n))
		return b.repeat(s, n.M, n.N)
	case es.NtLoop, es.NtLazyloop:
		if len(n.Children) != 1 {
			break
		}
		return b.repeat(b.node(n.Children[0], false, false), n.M, n.N)
	case es.NtCapture:
		if n.N != -1 || len(n.Children) != 1 {
			break // a balancing group
		}
		return "(?:" + b.node(n.Children[0], left, right) + ")"
	case es.NtGroup, es.NtAtomic:
		// An atomic group matches no text its content could not match.
		if len(n.Children) != 1 {
			break
		}
		return "(?:" + b.node(n.Children[0], left, right) + ")"
	case es.NtAlternate:
		alts := make([]string, len(n.Children))
		for i, c := range n.Children {
			alts[i] = b.node(c, left, right)
		}
		return "(?:" + strings.Join(alts, "|") + ")"
	case es.NtConcatenate:
		cs := n.Children
		if rtl(n) {
			// A lookbehind's parts are kept right to left.
			cs = make([]*es.RegexNode, len(n.Children))
			for i, c := range n.Children {
				cs[len(cs)-1-i] = c
			}
		}
		return b.seq(cs, left, right, !rtl(n))
	case es.NtRef:
		return b.ref(n)
	case es.NtNothing:
		return noChar
	default:
		if zeroWidth(n) {
			return b.seq([]*es.RegexNode{n}, left, right, false)
		}
	}
	b.fail = true
	return ""
}

// zeroWidth reports an assertion: a node that matches no text.
func zeroWidth(n *es.RegexNode) bool {
	switch n.T {
	case es.NtPosLook, es.NtNegLook, es.NtBol, es.NtEol, es.NtBoundary, es.NtNonboundary,
		es.NtECMABoundary, es.NtNonECMABoundary, es.NtBeginning, es.NtStart, es.NtEndZ, es.NtEnd,
		es.NtEmpty, es.NtUpdateBumpalong, es.NtResetCapture:
		return true
	}
	return false
}

func lookbehind(n *es.RegexNode) bool { return n.T == es.NtPosLook && rtl(n) }
func lookahead(n *es.RegexNode) bool  { return n.T == es.NtPosLook && !rtl(n) }

// seq writes a concatenation, its parts in the order they match text.
// The assertions it starts with all stand where the match starts: with
// left, the first lookbehind among them brings in the text it looks at
// (and the others stay after it, where they stand); so at the end with a
// lookahead and right. ltr says references may be spelt out (the parts
// match left to right).
func (b *supBuilder) seq(cs []*es.RegexNode, left, right, ltr bool) string {
	first := 0
	for first < len(cs) && zeroWidth(cs[first]) {
		first++
	}
	last := len(cs) - 1
	for last >= first && zeroWidth(cs[last]) {
		last--
	}
	var head, tail strings.Builder
	// The leading assertions.
	lead := cs[:first]
	trail := cs[last+1:]
	if first > last { // only assertions: all stand at one place
		trail = nil
	}
	lb, la := -1, -1
	if left {
		for i, c := range lead {
			if lookbehind(c) {
				lb = i
				break
			}
		}
	}
	if right {
		at := lead
		if first <= last {
			at = trail
		}
		for i, c := range at {
			if lookahead(c) {
				la = i
				break
			}
		}
	}
	if lb >= 0 {
		head.WriteString(b.node(lead[lb].Children[0], true, false))
	}
	kept := false // an assertion written stands where the match starts
	for i, c := range lead {
		if i == lb || i == la && first > last {
			continue
		}
		a := b.assert(c, left && !kept && lb < 0)
		kept = kept || a != ""
		head.WriteString(a)
	}
	if first > last {
		if la >= 0 {
			head.WriteString(b.node(lead[la].Children[0], false, true))
		}
		return head.String()
	}
	midLeft := left && lb < 0 && !kept
	// A negative lookahead of one character where the match ends takes
	// in the character after, `(?:[^C]|\z)`, last: the assertions
	// written after it would stand one character on.
	last1, body := -1, ""
	if right && la < 0 {
		for i, c := range trail {
			if c.T == es.NtNegLook && !rtl(c) && len(c.Children) == 1 {
				if body = b.classBody(c.Children[0]); body != "" {
					last1 = i
					break
				}
			}
		}
	}
	kept = false
	for i, c := range trail {
		if i == la || i == last1 {
			continue
		}
		a := b.assert(c, false)
		kept = kept || a != ""
		tail.WriteString(a)
	}
	if last1 >= 0 {
		// Case-sensitive, as a lookbehind's (see assert).
		tail.WriteString(`(?:(?-i:[^` + body + `])|\z)`)
		kept = true
	}
	midRight := right && la < 0 && !kept
	if la >= 0 {
		tail.WriteString(b.node(trail[la].Children[0], false, true))
	}
	return head.String() + b.mid(cs[first:last+1], midLeft, midRight, ltr) + tail.String()
}

// mid writes the parts of a concatenation from its first that matches
// text to its last; a group of one character that a later part refers to
// is spelt out.
func (b *supBuilder) mid(cs []*es.RegexNode, left, right, ltr bool) string {
	var sb strings.Builder
	for i, c := range cs {
		l, r := left && i == 0, right && i == len(cs)-1
		if zeroWidth(c) {
			sb.WriteString(b.assert(c, false))
			continue
		}
		if chars, ok := b.spellable(c, cs[i+1:], ltr); ok {
			g := c.M
			alts := make([]string, len(chars))
			for k, ch := range chars {
				b.sub[g] = ch
				alts[k] = b.char(ch, true) + b.mid(cs[i+1:], false, right, ltr)
			}
			delete(b.sub, g)
			sb.WriteString("(?:" + strings.Join(alts, "|") + ")")
			return sb.String()
		}
		sb.WriteString(b.node(c, l, r))
	}
	return sb.String()
}

// spellable reports a group of one character, case-sensitive, that one of
// the parts after it refers to directly, and the characters it matches.
func (b *supBuilder) spellable(c *es.RegexNode, after []*es.RegexNode, ltr bool) ([]rune, bool) {
	// One group spelt at a time: (\w)(\w)(\w)\3\2\1 would make 63³
	// alternatives.
	if !b.enum || b.fold || !ltr || len(b.sub) > 0 || c.T != es.NtCapture || c.N != -1 || len(c.Children) != 1 {
		return nil, false
	}
	referred := false
	for _, a := range after {
		if a.T == es.NtRef && a.M == c.M && caseless(a) {
			referred = true
		}
	}
	if !referred {
		return nil, false
	}
	one := c.Children[0]
	if !caseless(one) {
		return nil, false
	}
	switch one.T {
	case es.NtOne:
		return []rune{one.Ch}, true
	case es.NtSet:
		if one.Set.IsNegated() || one.Set.HasSubtraction() {
			return nil, false
		}
		rs := setRanges(one.Set)
		if rs == nil {
			return nil, false
		}
		var chars []rune
		for _, r := range rs {
			for ch := r.First; ch <= r.Last; ch++ {
				if len(chars) == maxSpelt {
					return nil, false
				}
				chars = append(chars, ch)
			}
		}
		return chars, len(chars) > 0
	}
	return nil, false
}

// assert writes an assertion that stands where it stood. A negative
// lookbehind of one character where the match starts (left) takes in the
// character before: `(?:\A|[^C])`.
func (b *supBuilder) assert(n *es.RegexNode, left bool) string {
	if b.depth > 0 {
		// Written for a backreference, which matches the text its group
		// took wherever the reference stands: the group's assertions held
		// where the group matched, not necessarily here ((\B)(\w)\1).
		b.loose()
		return ""
	}
	switch n.T {
	case es.NtEmpty, es.NtUpdateBumpalong:
		return ""
	case es.NtBeginning:
		if !b.multi {
			return `\A`
		}
	case es.NtEnd, es.NtEndZ:
		// A line holds no newline: the end of the input is the end of
		// the line.
		if !b.multi {
			return `\z`
		}
	case es.NtECMABoundary:
		if b.ecmaWord(n) {
			return `\b`
		}
	case es.NtNonECMABoundary:
		if b.ecmaWord(n) {
			return `\B`
		}
	case es.NtNegLook:
		if left && rtl(n) && len(n.Children) == 1 {
			if body := b.classBody(n.Children[0]); body != "" {
				// Written case-sensitively: under -i the ECMAScript
				// engine's set is more, its complement less.
				return `(?:\A|(?-i:[^` + body + `]))`
			}
		}
	}
	b.loose()
	return ""
}

// ecmaWord reports a \b or \B whose word characters are ASCII's, as
// RE2's are.
func (b *supBuilder) ecmaWord(n *es.RegexNode) bool {
	return n.Options&(es.IgnoreCase|es.Unicode) != es.IgnoreCase|es.Unicode
}

// classBody is what goes between the brackets of an RE2 class of the
// characters a node matches, for a node that matches one character of an
// exactly known set (a character, or a set of ranges); "" for any other.
func (b *supBuilder) classBody(n *es.RegexNode) string {
	if !caseless(n) {
		return ""
	}
	switch n.T {
	case es.NtOne:
		if s := b.char(n.Ch, true); s != noChar {
			return s
		}
	case es.NtSet:
		if n.Set.IsNegated() || n.Set.HasSubtraction() || n.Set.IsEmpty() {
			return ""
		}
		if rs := setRanges(n.Set); rs != nil {
			return rangesBody(rs)
		}
	}
	return ""
}

// ref writes a backreference: the character its spelt-out group stands
// for, or what its group matches.
func (b *supBuilder) ref(n *es.RegexNode) string {
	g := n.M
	if ch, ok := b.sub[g]; ok {
		if caseless(n) {
			return b.char(ch, true)
		}
		b.loose()
		return "(?i:" + b.char(ch, true) + ")"
	}
	b.loose()
	c := b.caps[g]
	if c == nil || b.inRef[g] || b.depth > 4 || len(c.Children) != 1 {
		return `(?s:.*)`
	}
	if b.inRef == nil {
		b.inRef = map[int]bool{}
	}
	b.inRef[g] = true
	b.depth++
	// The references inside the group took their values when the group
	// matched, not those of the characters spelt out since: in
	// (\2)(\w)\2\1 the \2 in group 1 matched empty, whatever group 2 is
	// spelt as when \1 is written.
	sub := b.sub
	b.sub = map[int]rune{}
	s := b.node(c.Children[0], false, false)
	b.sub = sub
	b.depth--
	delete(b.inRef, g)
	if len(s) > maxSupersetLen/8 {
		return `(?s:.*)`
	}
	if !caseless(n) {
		s = "(?i:" + s + ")"
	}
	if b.setBefore(c, n) {
		return "(?:" + s + ")"
	}
	return "(?:" + s + ")?"
}

// setBefore reports that group c has surely matched when reference r is
// tried: they stand in one concatenation, matched left to right, c's
// part first, and every node from c up to it must match (no alternation,
// no optional repeat, no lookaround).
func (b *supBuilder) setBefore(c, r *es.RegexNode) bool {
	up := map[*es.RegexNode]*es.RegexNode{} // ancestor of r → its child on r's path
	for n := r; b.parent[n] != nil; n = b.parent[n] {
		up[b.parent[n]] = n
	}
	n := c
	for {
		p := b.parent[n]
		if p == nil {
			return false
		}
		if rchild, ok := up[p]; ok {
			if p.T != es.NtConcatenate || rtl(p) {
				return false
			}
			ci, ri := -1, -1
			for i, ch := range p.Children {
				if ch == n {
					ci = i
				}
				if ch == rchild {
					ri = i
				}
			}
			return ci >= 0 && ri > ci
		}
		switch p.T {
		case es.NtConcatenate, es.NtCapture, es.NtGroup, es.NtAtomic:
		case es.NtLoop, es.NtLazyloop:
			if p.M < 1 {
				return false
			}
		default:
			return false
		}
		if rtl(p) {
			return false
		}
		n = p
	}
}

// repeat writes x repeated min to max times (max unbounded: no limit).
func (b *supBuilder) repeat(x string, min, max int) string {
	if min > maxRepeat {
		min, max = maxRepeat, unbounded
		b.loose()
	}
	if max != unbounded && max > maxRepeat {
		max = unbounded
		b.loose()
	}
	g := "(?:" + x + ")"
	switch {
	case min == 0 && max == unbounded:
		return g + "*"
	case min == 1 && max == unbounded:
		return g + "+"
	case min == 0 && max == 1:
		return g + "?"
	case max == unbounded:
		return fmt.Sprintf("%s{%d,}", g, min)
	case min == max:
		return fmt.Sprintf("%s{%d}", g, min)
	}
	return fmt.Sprintf("%s{%d,%d}", g, min, max)
}

// char writes one character. A surrogate never matches: the ECMAScript
// engine reads runes, and text holds none (an encoded one is invalid
// UTF-8, three U+FFFD). cs is false for a node the ECMAScript engine
// matches ignoring case (an inline (?i)).
func (b *supBuilder) char(r rune, cs bool) string {
	if r < 0 || r > unicode.MaxRune || r >= 0xD800 && r <= 0xDFFF {
		return noChar
	}
	s := fmt.Sprintf(`\x{%x}`, r)
	if !cs {
		b.loose()
		return "(?i:" + s + ")"
	}
	return s
}

func (b *supBuilder) notChar(r rune, cs bool) string {
	if !cs {
		b.loose() // [^a] ignoring case leaves out 'A' too: less than [^a]
	}
	if r < 0 || r > unicode.MaxRune || r >= 0xD800 && r <= 0xDFFF {
		return anyChar
	}
	return fmt.Sprintf(`(?-i:[^\x{%x}])`, r)
}

// set writes a character set; ok says it is exactly the set's (a set
// with a Unicode category or a subtraction becomes any character).
func (b *supBuilder) set(s *es.CharSet, cs bool) (string, bool) {
	if s.HasSubtraction() {
		b.loose()
		return anyChar, false
	}
	var rs []es.SingleRange
	if !s.IsEmpty() {
		if rs = setRanges(s); rs == nil {
			b.loose()
			return anyChar, false
		}
	}
	body := rangesBody(rs)
	neg := s.IsNegated()
	switch {
	case body == "" && neg:
		return anyChar, true
	case body == "":
		return noChar, true
	case neg:
		if !cs {
			b.loose()
		}
		return "(?-i:[^" + body + "])", true
	}
	if !cs {
		b.loose()
		return "(?i:[" + body + "])", true
	}
	return "[" + body + "]", true
}

// rangesBody writes ranges of characters for an RE2 class, leaving the
// surrogates out: they are no rune of any text.
func rangesBody(rs []es.SingleRange) string {
	var sb strings.Builder
	for _, r := range rs {
		lo, hi := max(r.First, 0), min(r.Last, unicode.MaxRune)
		for _, part := range [][2]rune{{lo, min(hi, 0xD7FF)}, {max(lo, 0xE000), hi}} {
			switch {
			case part[0] > part[1]:
			case part[0] == part[1]:
				fmt.Fprintf(&sb, `\x{%x}`, part[0])
			default:
				fmt.Fprintf(&sb, `\x{%x}-\x{%x}`, part[0], part[1])
			}
		}
	}
	return sb.String()
}

// setRanges is the ranges of a set made of ranges alone (no category, no
// subtraction), without its negation; nil for any other.
func setRanges(s *es.CharSet) []es.SingleRange {
	for n := 1; n <= 1024; n++ {
		if rs := s.GetIfNRanges(n); rs != nil {
			return rs
		}
	}
	return nil
}
