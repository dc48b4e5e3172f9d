package grep

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// lineByLine is the oracle for Scan: every line of buf matched on its own
// with the pattern's single-line regexp.
func lineByLine(m *Matcher, buf []byte, limit int) []Hit {
	var hits []Hit
	if len(buf) == 0 {
		return nil
	}
	lines := strings.Split(string(buf), "\n")
	if strings.HasSuffix(string(buf), "\n") {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if c, _ := m.FirstInLine([]byte(l)); c >= 0 {
			hits = append(hits, Hit{i, c})
			if limit > 0 && len(hits) == limit {
				break
			}
		}
	}
	return hits
}

func lineNumbers(hits []Hit) []int {
	var n []int
	for _, h := range hits {
		n = append(n, h.Line)
	}
	return n
}

// TestDFAScan checks the lazy DFA's lines against the regexp line by
// line, over random text, for patterns without a literal to prefilter on:
// anchors, word boundaries, empty matches, case folding, Unicode, invalid
// UTF-8, -w, a last line without a newline.
func TestDFAScan(t *testing.T) {
	patterns := []string{
		`\s+$`, `\d{2}-\d`, `^$`, `^`, `$`, `\bfo\b`, `\Bo\B`, `a|b`, `x*`, `^\s*//`, `[A-Z][a-z]+\b`, `f.*\(.*c.*\)`,
		`(a|ab)(c|bcd)(d*)`, `\b`, `\B`, `^a$|^b`, `é+`, `[^a-z]`, `σ`, `.`, `^.$`, `\w+\s\w+`, `a{2,3}b`, `\pL\d`,
		`(?s).b`, `[[:upper:]]`, `k`, `^\w`, `\w$`, `\x{FFFD}`,
	}
	alpha := []string{"a", "b", " ", "c", "d", "f", "o", "é", "\t", "-", "1", "9", "x", "K", "k", "\u212a", "σ", "Σ", "ς",
		"_", "/", ".", "(", ")", "\xff", "\u00a0", "\n", "\n", "\r"}
	rng := rand.New(rand.NewSource(1))
	for _, p := range patterns {
		for _, o := range []CompileOptions{{CaseSensitive: true}, {}, {CaseSensitive: true, Word: true}} {
			m, err := CompileWith(p, o)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if m.prog == nil && !m.exact {
				t.Fatalf("%s %+v: no DFA", p, o)
			}
			for i := 0; i < 300; i++ {
				var sb strings.Builder
				for n := rng.Intn(60); n > 0; n-- {
					sb.WriteString(alpha[rng.Intn(len(alpha))])
				}
				buf := []byte(sb.String())
				limit := rng.Intn(3)
				got, _ := m.Scan(buf, limit)
				want := lineByLine(m, buf, limit)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("Scan(%q, %+v, %q, %d) = %v, want %v", p, o, buf, limit, got, want)
				}
				lines, _ := m.ScanLines(buf, limit)
				if fmt.Sprint(lineNumbers(lines)) != fmt.Sprint(lineNumbers(want)) {
					t.Fatalf("ScanLines(%q, %+v, %q, %d) = %v, want the lines of %v", p, o, buf, limit, lines, want)
				}
			}
		}
	}
}

// TestDFAOverflow: a pattern whose DFA has far more states than the
// cache holds still finds the right lines, and the DFA gives way to the
// regexp once its cache fills up faster than it reads.
func TestDFAOverflow(t *testing.T) {
	m, err := Compile(`(a|b)*a(a|b){13}$`, true)
	if err != nil || m.prog == nil {
		t.Fatal("no DFA", err)
	}
	rng := rand.New(rand.NewSource(2))
	var sb strings.Builder
	for i := 0; i < 4000; i++ {
		for n := rng.Intn(80); n > 0; n-- {
			sb.WriteByte("ab"[rng.Intn(2)])
		}
		sb.WriteByte('\n')
	}
	buf := []byte(sb.String())
	got, _ := m.Scan(buf, 0)
	if want := lineByLine(m, buf, 0); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %d hits, want %d", len(got), len(want))
	}
	d := newLineDFA(m.prog)
	for pos := 0; pos < len(buf) && d.usable(); {
		ls := d.nextLine(buf, pos)
		if ls < 0 {
			break
		}
		pos = ls + bytes.IndexByte(buf[ls:], '\n') + 1
	}
	if d.usable() || d.mem > maxDFAMem {
		t.Errorf("after the scan: usable %v, %d bytes of states", d.usable(), d.mem)
	}
}

// BenchmarkDFA times one pass over the corpus (WS_BENCH_TREE) of patterns
// with no literal to prefilter on, or a short and common one: the lazy
// DFA against RE2 over the whole buffer.
func BenchmarkDFA(b *testing.B) {
	benchAgainstRegexp(b, "dfa", `\s+$`, `\d{4}-\d{2}-\d{2}`, `^\s*//\s*TODO`, `(?i)[a-z]+error\b`, `func.*\(.*ctx.*\)`)
}
