package grep

import (
	"fmt"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	es "github.com/dlclark/regexp2/v2/syntax"
)

// TestSuperset pins down what the prefilter of an ECMAScript pattern is:
// the RE2 pattern, and whether it matches exactly where the pattern does.
func TestSuperset(t *testing.T) {
	tests := []struct {
		pattern string
		fold    bool
		want    string // "" for none
		exact   bool
	}{
		{`(?<=func )\w+`, false, `\x{66}\x{75}\x{6e}\x{63}\x{20}(?:[\x{30}-\x{39}\x{41}-\x{5a}\x{5f}\x{61}-\x{7a}])+`, true},
		{`(?<=id=)\d+`, false, `\x{69}\x{64}\x{3d}(?:[\x{30}-\x{39}])+`, true},
		{`x(?=y)`, false, `\x{78}\x{79}`, true},
		{`(?<!\w)ab(?!\w)`, false, `(?:\A|(?-i:[^\x{30}-\x{39}\x{41}-\x{5a}\x{5f}\x{61}-\x{7a}]))\x{61}\x{62}(?:(?-i:[^\x{30}-\x{39}\x{41}-\x{5a}\x{5f}\x{61}-\x{7a}])|\z)`, true},
		{`a(?!b)\b`, false, `\x{61}\b(?:(?-i:[^\x{62}])|\z)`, true}, // the one that takes a character in comes last
		{`(\d)\1`, false, `(?:\x{30}\x{30}|\x{31}\x{31}|\x{32}\x{32}|\x{33}\x{33}|\x{34}\x{34}|\x{35}\x{35}|\x{36}\x{36}|\x{37}\x{37}|\x{38}\x{38}|\x{39}\x{39})`, true},
		{`(\w+) \1`, false, `(?:(?:[\x{30}-\x{39}\x{41}-\x{5a}\x{5f}\x{61}-\x{7a}])+)\x{20}(?:(?:[\x{30}-\x{39}\x{41}-\x{5a}\x{5f}\x{61}-\x{7a}])+)`, false},
		{`(a)?\1`, false, `(?:(?:\x{61}))?(?:\x{61})?`, false},
		{`a(?=b)c`, false, `\x{61}\x{63}`, false}, // a lookahead inside is dropped
		{`(?<=a)`, false, `\x{61}`, true},
		{`^a$`, false, `\A\x{61}\z`, true},
		{`\ba\B`, false, `\b\x{61}\B`, true},
		{`a.b`, false, `\x{61}[\x{0}-\x{9}\x{b}-\x{c}\x{e}-\x{2027}\x{202a}-\x{d7ff}\x{e000}-\x{10ffff}]\x{62}`, true},
		{`[^a]`, true, `(?i)(?-i:[^\x{61}])`, false},
		{`(?<=k)s`, true, `(?i)\x{6b}\x{73}`, false},
		{`\uD83D\uDE00`, false, `[^\x00-\x{10FFFF}][^\x00-\x{10FFFF}]`, true}, // surrogates: no rune of a text
		{`a{2,2000}`, false, `(?:\x{61}){2,}`, false},
		{`(a)(b)\2\1`, false, `(?:\x{61}(?:\x{62})(?:\x{62})\x{61})`, false}, // one group spelt at a time
		{`^(a|aa)+(?!a|cd)`, false, `\A(?:(?:\x{61}(?:|\x{61})))+`, false},   // the timeout tests' runaway: the line goes through
		// a reference tests none of its group's assertions again (fuzz)
		{`(\B)(\w)\1`, false, `(?:\B)(?:[\x{30}-\x{39}\x{41}-\x{5a}\x{5f}\x{61}-\x{7a}])(?:)`, false},
		{`(^a|b)c\1`, false, `(?:(?:\A\x{61}|\x{62}))\x{63}(?:(?:\x{61}|\x{62}))`, false},
		{`(?(1)a|b)`, false, "", false},                // a conditional: no prefilter
		{`(?>a+)a`, false, `(?:\x{61})+\x{61}`, false}, // an atomic group: never matches, the superset does
	}
	for _, tt := range tests {
		tree, err := es.Parse(tt.pattern, es.ParseOptions{RegexOptions: es.ECMAScript})
		if err != nil {
			if tt.want != "" {
				t.Errorf("%s: %v", tt.pattern, err)
			}
			continue
		}
		src, exact, ok := esSuperset(tt.pattern, tree, tt.fold, false)
		if !ok {
			src = ""
		}
		if src != tt.want || exact != tt.exact {
			t.Errorf("superset of %q (fold %v) = %q exact %v, want %q exact %v", tt.pattern, tt.fold, src, exact, tt.want, tt.exact)
		}
	}
}

// The alphabet of the differential test: ASCII letters with a Unicode
// case form (k: the Kelvin sign; s: long s), accented and wide letters,
// an emoji (a surrogate pair in JavaScript), the spaces JavaScript's \s
// takes and RE2's does not, line ends other than \n, invalid UTF-8 (a
// stray byte, a character cut short, an encoded surrogate), NUL.
var diffChars = []string{"a", "b", "A", "B", "k", "K", "\u212a", "s", "S", "\u017f", "é", "É", "日", "😀",
	" ", "\t", "\r", "\u00a0", "\u2028", "\ufeff", "0", "1", "2", "_", "-", "=", ".", "\xff", "\xe6\x97", "\xed\xa0\x80", "\x00"}

var diffAtoms = []string{"a", "b", "A", "k", "s", "é", "日", "😀", " ", "1", "0", "=", `\.`, ".", `\w`, `\W`, `\d`, `\D`,
	`\s`, `\S`, `\b`, `\B`, "^", "$", "[ab]", "[^a]", "[^k]", `[^s\d]`, "[sk]", "[a-z]", `[^\s]`, `[\d_]`, "[]", "[^]", `[\w\-]`, `\u00e9`,
	`\u212a`, `\x41`, `\uD83D\uDE00`, `\uD83D`, `\r`, `\t`, `\u00a0`, `\u2028`, `\0`, `[^\x00-\x7f]`, `\p{L}`}

// genPattern writes a random ECMAScript pattern of about depth levels:
// lookarounds, backreferences (named too), classes, quantifiers (lazy
// ones), alternations, inline flags.
func genPattern(r *rand.Rand, depth int, groups *int) string {
	if depth <= 0 || r.IntN(3) == 0 {
		if *groups > 0 && r.IntN(6) == 0 {
			g := 1 + r.IntN(*groups)
			if g == 1 && r.IntN(3) == 0 {
				return `\k<n>`
			}
			return fmt.Sprintf(`\%d`, g)
		}
		return diffAtoms[r.IntN(len(diffAtoms))]
	}
	sub := func() string { return genPattern(r, depth-1, groups) }
	switch r.IntN(18) {
	case 0, 1, 2, 14, 15, 16, 17:
		return sub() + sub()
	case 3:
		return sub() + sub() + sub()
	case 4:
		return sub() + "|" + sub()
	case 5:
		*groups++
		if *groups == 1 && r.IntN(3) == 0 {
			return "(?<n>" + sub() + ")"
		}
		return "(" + sub() + ")"
	case 6:
		return "(?:" + sub() + ")"
	case 7:
		return []string{"(?=", "(?!", "(?<=", "(?<!"}[r.IntN(4)] + sub() + ")"
	case 8, 9:
		q := []string{"*", "+", "?", "{2}", "{1,3}", "{0,}", "{2,}"}[r.IntN(7)]
		if r.IntN(3) == 0 {
			q += "?"
		}
		return "(?:" + sub() + ")" + q
	case 10:
		return sub() + []string{"*", "+", "?"}[r.IntN(3)]
	case 11:
		return "(?i:" + sub() + ")"
	case 13:
		if r.IntN(4) == 0 {
			return "(?>" + sub() + ")" + sub()
		}
	case 12:
		// A lookbehind where a match starts, to put its text in the superset.
		return "(?<=" + sub() + ")" + sub()
	}
	return sub() + "(?=" + sub() + ")"
}

func genLines(r *rand.Rand) []string {
	lines := make([]string, 1+r.IntN(12))
	for i := range lines {
		var sb strings.Builder
		n := r.IntN(10)
		if r.IntN(8) == 0 {
			n = r.IntN(80) // past regexp2's ASCII fast path (64 bytes)
		}
		for ; n > 0; n-- {
			sb.WriteString(diffChars[r.IntN(len(diffChars))])
		}
		lines[i] = sb.String()
	}
	return lines
}

// TestSupersetDifferential: random patterns over random lines, each
// compiled with the prefilter and without: the lines that match, their
// columns, the counts, -v, -w, -i and -U come out the same. And on each
// line where the ECMAScript engine matches, the superset does (on every
// line, when it says it is exact, both or neither).
func TestSupersetDifferential(t *testing.T) {
	n := 1000
	if testing.Short() || raceBuild {
		n = 150 // under -race, 1000 took 97 s
	}
	defer func(d time.Duration) { esTimeout = d }(esTimeout)
	esTimeout = 50 * time.Millisecond // a pattern that backtracks too much is passed over
	// Cases the grammar seldom makes: a negated class under -i takes the
	// Kelvin sign and long s (the ECMAScript engine folds them to no ASCII
	// letter, RE2 folds k and s to them); a reference ignoring case.
	for _, p := range []string{`(?<=)[^k]`, `(?<=)[^s\d]`, `(?<=)\W`, `(?<!k)x`, `(?<![ks])x`, `(k)\1`, `(\w)x\1`, `(?<=[^k])x`} {
		for _, cs := range []bool{true, false} {
			diffOne(t, p, CompileOptions{CaseSensitive: cs}, []string{"\u212a", "\u017f", "\u212ax", "\u017fx", "kK", "sS", "ax", "x", ""})
		}
	}
	// An atomic group of the pattern's own refuses text its content
	// matches: the superset takes it, and is not exact.
	for _, p := range []string{`(?>a+)a`, `(?<=)(?>a|ab)c`, `(?>(\w+))x\1`} {
		diffOne(t, p, CompileOptions{CaseSensitive: true}, []string{"aa", "abc", "ac", "axa", ""})
	}
	r := rand.New(rand.NewPCG(1, 2))
	var ran, exact, multi int
	for i := 0; i < n; i++ {
		groups := 0
		p := genPattern(r, 4, &groups)
		if r.IntN(4) == 0 {
			p = "(?<=)(?:" + p + ")" // the ECMAScript engine, and an exact superset where the rest is
		}
		o := CompileOptions{CaseSensitive: r.IntN(6) > 0, Word: r.IntN(5) == 0, Multiline: r.IntN(5) == 0}
		// (-i is rarer: regexp2 takes ~50 ms to fold a class as wide as \W.)
		lines := genLines(r)
		got, ok := diffOne(t, p, o, lines)
		if ok {
			ran++
			if got.exact {
				exact++
			}
			if o.Multiline {
				multi++
			}
		}
	}
	t.Logf("%d patterns the ECMAScript engine ran with a prefilter, %d of them exact, %d with -U", ran, exact, multi)
	if ran < n/3 || exact < n/12 {
		t.Errorf("too few patterns tested: %d (%d exact)", ran, exact)
	}
}

type diffResult struct{ exact bool }

// diffOne compares one pattern on lines with and without the prefilter;
// ok is false when the pattern is not one with a prefilter.
func diffOne(t testing.TB, p string, o CompileOptions, lines []string) (diffResult, bool) {
	m1, err := compileWith(p, o, true)
	if err != nil || m1.es == nil {
		return diffResult{}, false
	}
	m0, err := compileWith(p, o, false)
	if err != nil {
		t.Fatalf("%q: compiles with the prefilter only: %v", p, err)
	}
	if m1.prog == nil && m1.gate == nil {
		return diffResult{}, false
	}
	buf := []byte(strings.Join(lines, "\n") + "\n")
	name := fmt.Sprintf("%q (case %v, -w %v, -U %v) on %q", p, o.CaseSensitive, o.Word, o.Multiline, buf)
	if o.Multiline {
		var s0, s1 []Span
		e0 := m0.Spans(buf, func(s, e int) bool { s0 = append(s0, Span{s, e}); return true })
		e1 := m1.Spans(buf, func(s, e int) bool { s1 = append(s1, Span{s, e}); return true })
		if e0 == nil && (e1 != nil || !slices.Equal(s0, s1)) {
			t.Fatalf("%s: spans %v (%v), want %v", name, s1, e1, s0)
		}
		h0, e0 := m0.Scan(buf, 0)
		h1, e1 := m1.Scan(buf, 0)
		if e0 == nil && (e1 != nil || !slices.Equal(h0, h1)) {
			t.Fatalf("%s: -U hits %v (%v), want %v", name, h1, e1, h0)
		}
		return diffResult{}, true
	}
	// Line by line: the superset is a superset.
	tree, _ := es.Parse(m1.esSrc, es.ParseOptions{RegexOptions: es.ECMAScript})
	src, exact, _ := esSuperset(m1.esSrc, tree, !o.CaseSensitive, false)
	sup := regexp.MustCompile(src)
	for _, l := range lines {
		mt, err := m0.es.FindStringMatch(l)
		if err != nil {
			return diffResult{}, false // backtracks too much to know
		}
		if es, re := mt != nil, sup.MatchString(l); es && !re || exact && es != re {
			t.Fatalf("%s: line %q: the ECMAScript engine matches %v, the superset %s (exact %v) %v", name, l, es, src, exact, re)
		}
	}
	h0, e0 := m0.Scan(buf, 0)
	h1, e1 := m1.Scan(buf, 0)
	if e0 != nil {
		return diffResult{}, false
	}
	if e1 != nil || !slices.Equal(h0, h1) {
		t.Fatalf("%s (superset %s): hits %v (%v), want %v", name, src, h1, e1, h0)
	}
	l0, _ := m0.ScanLines(buf, 0)
	l1, e1 := m1.ScanLines(buf, 0)
	if e1 != nil || !slices.Equal(hitLines(l0), hitLines(l1)) {
		t.Fatalf("%s (superset %s): lines %v (%v), want %v", name, src, l1, e1, l0)
	}
	v0, v1 := inverted(m0, buf), inverted(m1, buf)
	if !slices.Equal(v0, v1) {
		t.Fatalf("%s (superset %s): -v lines %v, want %v", name, src, v1, v0)
	}
	for _, limit := range []int{1, 2} {
		c1, _ := m1.ScanLines(buf, limit)
		if want := l0[:min(limit, len(l0))]; !slices.Equal(hitLines(c1), hitLines(want)) {
			t.Fatalf("%s: -m %d lines %v, want %v", name, limit, c1, want)
		}
	}
	return diffResult{exact: exact}, true
}

func hitLines(hs []Hit) []int {
	var ls []int
	for _, h := range hs {
		ls = append(ls, h.Line)
	}
	return ls
}

// inverted is the lines -v prints: those each says hold no match.
func inverted(m *Matcher, buf []byte) []int {
	var out []int
	last := -1
	_ = m.each(buf, false, true, func(line, col int) bool {
		if col < 0 {
			for l := last + 1; l <= line; l++ {
				out = append(out, l)
			}
		}
		last = line
		return true
	})
	for l := last + 1; l < countLines(buf); l++ {
		out = append(out, l)
	}
	return out
}

// FuzzSuperset: any pattern the ECMAScript engine runs finds the same
// lines with its prefilter as without, as TestSupersetDifferential checks
// for patterns of its grammar. flags: bit 0 -i, bit 1 -w, bit 2 -U.
func FuzzSuperset(f *testing.F) {
	for _, s := range []string{`(?<=func )\w+`, `(\w+) \1`, `(?<=id=)\d+`, `(\d)\1`, `(?<!\w)a(?!\w)`,
		`(?<=(?<=a)b)c`, `(a)?\1`, `^(?<=)x$`, `(?<=a(b)c\d)x`, `(\w)(\w)\2\1`, `(?=a)(a+)+$`, `(?>a+)a`} {
		f.Add(s, "func main() {\nid=12 a a\nabc1x\n\r\u00a0é\n", uint8(0))
		f.Add(s, "FUNC Main\nID=1\n00 11\nſ K", uint8(1))
	}
	defer func(d time.Duration) { esTimeout = d }(esTimeout)
	esTimeout = 20 * time.Millisecond
	f.Fuzz(func(t *testing.T, p, text string, flags uint8) {
		if len(p) > 64 || len(text) > 256 {
			return
		}
		o := CompileOptions{CaseSensitive: flags&1 == 0, Word: flags&2 != 0, Multiline: flags&4 != 0}
		diffOne(t, p, o, strings.Split(text, "\n"))
	})
}

// BenchmarkSuperset times a -c scan by the ECMAScript engine of the QA
// report's patterns, with the prefilter and without: over Go source (the
// tree WS_BENCH_TREE names, else a generated one) and over a log.
func BenchmarkSuperset(b *testing.B) {
	var src []byte
	if os.Getenv("WS_BENCH_TREE") != "" {
		src = benchCorpus(b)
	} else {
		gen := []string{"func (s *Server) Serve(l net.Listener) error {", "\tif err != nil {", "\t\treturn nil, err",
			"\t}", "// Serve accepts incoming connections on the Listener l.", "\tdefer l.Close()", "}", "",
			"\tfor i := 0; i < n; i++ {", "\t\tb = append(b, x[i])", "func TestServe(t *testing.T) {"}
		for i := 0; len(src) < 8<<20; i++ {
			src = append(src, gen[(i*7)%len(gen)]...)
			src = append(src, '\n')
		}
	}
	var log []byte
	for i := 0; len(log) < 8<<20; i++ {
		log = fmt.Appendf(log, "2024-01-01 INFO request handled path=/api/v1/items id=%d status=200\n", i)
	}
	for _, c := range []struct {
		name, pattern string
		buf           []byte
	}{{"lookbehind/go", `(?<=func )\w+`, src}, {"backref/go", `(\w+) \1`, src},
		{"lookbehind/log", `(?<=id=)\d+`, log}, {"backref/log", `(\d)\1`, log}} {
		for _, pre := range []bool{true, false} {
			name := c.name + "/prefilter"
			if !pre {
				name = c.name + "/regexp2"
			}
			b.Run(name, func(b *testing.B) {
				m, err := compileWith(c.pattern, CompileOptions{CaseSensitive: true}, pre)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(c.buf)))
				for b.Loop() {
					if _, err := m.ScanLines(c.buf, 0); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
