package grep

import (
	"regexp/syntax"
	"unicode"
	"unicode/utf8"

	es "github.com/dlclark/regexp2/v2/syntax"
)

// A lit is a run of characters a match must contain; fold says letters
// match in any case.
type lit struct {
	runes []rune
	fold  bool
}

// maxAlternatives bounds the literals of one alternation a prefilter
// searches for; past it the regexp alone is faster.
const maxAlternatives = 16

// requiredRE2 finds literals such that every match of re contains at
// least one of them, choosing the set that is cheapest to search for; ok
// is false when the pattern has no such set (`\w+`, `a?b?`).
func requiredRE2(re *syntax.Regexp) (alts []lit, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []lit{{re.Rune, re.Flags&syntax.FoldCase != 0}}, true
	case syntax.OpCapture:
		return requiredRE2(re.Sub[0])
	case syntax.OpPlus:
		return requiredRE2(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredRE2(re.Sub[0])
		}
	case syntax.OpConcat:
		var subs [][]lit
		for _, sub := range re.Sub {
			if a, ok := requiredRE2(sub); ok {
				subs = append(subs, a)
			}
		}
		return bestSet(subs)
	case syntax.OpAlternate:
		var all []lit
		for _, sub := range re.Sub {
			a, ok := requiredRE2(sub)
			if !ok || len(all)+len(a) > maxAlternatives {
				return nil, false
			}
			all = append(all, a...)
		}
		return all, true
	}
	return nil, false
}

// requiredES is requiredRE2 for the ECMAScript engine's parse tree.
// Lookaround, backreferences and conditionals require nothing (what they
// look at is not part of the match, or not known before it).
func requiredES(n *es.RegexNode, fold bool) (alts []lit, ok bool) {
	f := fold || n.Options&es.IgnoreCase != 0
	switch n.T {
	case es.NtOne:
		return []lit{{[]rune{n.Ch}, f}}, true
	case es.NtMulti:
		return []lit{{n.Str, f}}, true
	case es.NtOneloop, es.NtOnelazy, es.NtOneloopatomic:
		if n.M >= 1 {
			return []lit{{[]rune{n.Ch}, f}}, true
		}
	case es.NtCapture, es.NtGroup, es.NtAtomic:
		if len(n.Children) == 1 {
			return requiredES(n.Children[0], fold)
		}
	case es.NtLoop, es.NtLazyloop:
		if n.M >= 1 && len(n.Children) == 1 {
			return requiredES(n.Children[0], fold)
		}
	case es.NtConcatenate:
		var subs [][]lit
		for _, c := range n.Children {
			if a, ok := requiredES(c, fold); ok {
				subs = append(subs, a)
			}
		}
		return bestSet(subs)
	case es.NtAlternate:
		var all []lit
		for _, c := range n.Children {
			a, ok := requiredES(c, fold)
			if !ok || len(all)+len(a) > maxAlternatives {
				return nil, false
			}
			all = append(all, a...)
		}
		return all, true
	}
	return nil, false
}

// bestSet picks the set of a concatenation's parts that makes the best
// prefilter.
func bestSet(sets [][]lit) ([]lit, bool) {
	best, bestScore := -1, -1
	for i, s := range sets {
		if sc := setScore(s); sc > bestScore {
			best, bestScore = i, sc
		}
	}
	if best < 0 {
		return nil, false
	}
	return sets[best], true
}

// setScore rates a set of literals as a prefilter: the weakest member's
// needle counts, and every extra member costs one more scan.
func setScore(s []lit) int {
	ns := make([]needle, len(s))
	for i, l := range s {
		ns[i] = needleOf(l)
	}
	return setScoreOf(ns)
}

func setScoreOf(ns []needle) int {
	worst := -1
	for _, n := range ns {
		if sc := needleScore(n); worst < 0 || sc < worst {
			worst = sc
		}
	}
	return worst - 8*(len(ns)-1)
}

// needleScore rates one needle: longer is better, and a rare byte to scan
// for is better than a common one.
func needleScore(n needle) int {
	if len(n.b) == 0 {
		return 0
	}
	return 16*min(len(n.b), 16) + (255-int(n.rank()))/16
}

// needleOf turns a literal into the bytes to search for. A case-folded
// literal keeps only characters whose every case form is ASCII (or that
// have no other form): 'k' is left out because the Kelvin sign K folds to
// it, 's' because of 'ſ', 'é' because 'É' has other bytes. The longest run
// of such characters is the needle. The replacement character is never
// part of one (regexp engines match it on invalid UTF-8 bytes), nor a
// newline (no line holds one).
func needleOf(l lit) needle {
	var best, cur []rune
	for _, r := range l.runes {
		if r == utf8.RuneError || r == '\n' || r > unicode.MaxRune || (r >= 0xD800 && r <= 0xDFFF) || l.fold && !asciiFold(r) {
			cur = nil
			continue
		}
		cur = append(cur, r)
		if len(cur) > len(best) {
			best = append(best[:0:0], cur...)
		}
	}
	n := needle{fold: l.fold, whole: len(best) == len(l.runes)}
	for _, r := range best {
		n.b = utf8.AppendRune(n.b, r)
	}
	if l.fold {
		for i, c := range n.b {
			n.b[i] = lower(c)
		}
	}
	n.pickRare()
	n.pickPair()
	return n
}

// asciiFold reports a character whose case forms are all ASCII, or that
// has none besides itself.
func asciiFold(r rune) bool {
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= utf8.RuneSelf || r >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}
