package grep

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dlclark/regexp2/v2"
)

// TestNeedles checks which literals the prefilter looks for: none when a
// pattern has no required literal, folded ones only where every case form
// of a character is ASCII, alternatives for alternations, and the same for
// patterns only the ECMAScript engine takes.
func TestNeedles(t *testing.T) {
	tests := []struct {
		pattern string
		fold    bool
		want    string // needles joined by |, "" for none; * marks an exact needle
	}{
		{"ErrUnexpectedEOF", false, "ErrUnexpectedEOF*"},
		{`func \w+Context\(`, false, "Context("},
		{`func \w+Handler`, false, "Handler"},
		{`\w+`, false, ""},
		{`a?b?c?`, false, ""},
		{`[A-Z]{3}`, false, ""},
		{`x`, false, "x*"},
		{`x|y`, false, ""},                                          // one-byte alternatives: the regexp alone is faster
		{`ErrUnexpectedEOF|ErrShortWrite|ErrClosedPipe`, false, ""}, // RE2 looks for the prefix Err itself
		{`UnexpectedEOF|ShortWrite|ClosedPipe`, false, "UnexpectedEOF|ShortWrite|ClosedPipe"},
		{`(?i)UnexpectedEOF|ShortWrite`, false, "unexpectedeof|hortwrite"},
		{`(foo|bar)+baz`, false, "baz"},
		{`(foobar|quux)+z`, false, "foobar|quux"},
		{`foo|\w+`, false, ""},
		{`(?:abc){2,}`, false, "abc"},
		{`(?:abc)*x`, false, "x"},
		{`a\nb`, false, ""},
		{`caf\x{FFFD}bar`, false, "caf"},
		{"deadline", true, "deadline*"},
		{"deadline exceeded", true, "deadline exceeded*"},
		{"DeadLine", true, "deadline*"},
		{`func \w+context\(`, true, "context("},
		{"kubernetes", true, "ubernete"}, // k: the Kelvin sign; s: long s
		{"ask", true, ""},                // "a" alone is too short to scan for
		{"mask", true, "ma"},
		{"café au lait", true, " au lait"}, // é: É has other bytes
		{"→ arrow", true, "→ arrow*"},      // no case forms: exact bytes
		{"(?i)delay", false, "delay*"},     // inline flag
		{"[Dd]eadline", false, "eadline"},
		{`(?<=a)needle`, false, "aneedle"},              // ECMAScript engine: the lookbehind's text is there
		{`(?<=func )\w+`, false, "func "},               // as is a lookbehind's only literal
		{`(\w+)\s+\1`, false, ""},                       // backreference: nothing required
		{`(?<=id=)\d+|(?<=key=)\w+`, false, "id=|key="}, // each alternative's
		{`(?<!x)Timeout`, true, "timeout"},
		{`(?=abc)abcdef`, false, "abcdef"},
		{`(foo)\1bar`, false, "foofoobar"}, // the group has matched: the reference is its text
		{`(foo)?\1bar`, false, "bar"},      // it may not have: the reference may be empty
	}
	for _, tt := range tests {
		m, err := Compile(tt.pattern, !tt.fold)
		if err != nil {
			t.Fatalf("%s: %v", tt.pattern, err)
		}
		var got []string
		for _, n := range m.needles {
			got = append(got, string(n.b))
		}
		s := strings.Join(got, "|")
		if m.exact {
			s += "*"
		}
		if s != tt.want {
			t.Errorf("needles of %q (fold %v) = %q, want %q", tt.pattern, tt.fold, s, tt.want)
		}
	}
}

// TestScanOracle compares Scan with a plain line-by-line match by the
// engine itself, over lines built to tempt every prefilter into a wrong
// answer: case variants, the Kelvin sign and the long s, non-ASCII
// letters, invalid UTF-8, needles split by newlines, matches at line ends.
func TestScanOracle(t *testing.T) {
	lines := []string{
		"ErrUnexpectedEOF", "errunexpectedeof", "x ERRUNEXPECTEDEOF y", "ErrUnexpected\nEOF",
		"func fooContext(ctx)", "func Context(", "FUNC BARCONTEXT(", "func x() Context(",
		"deadline exceeded", "DEADLINE EXCEEDED", "Deadline  exceeded", "deadline\texceeded",
		"kubernetes", "\u212aubernetes", "kuberne\u017fes", "KUBERNETES", "ubernete",
		"café au lait", "CAFÉ AU LAIT", "cafÉ au lait", "caf\xff au lait", "caf\xef\xbf\xbdbar", "caf\xffbar",
		"→ arrow", "→ ARROW", "mask", "MA\u017fK", "a", "", "needle", "aneedle", "xTimeout", "yTIMEOUT",
		"abcdef", "foofoobar", "foobar", "abcabc", "quuxz", "foobarz", "ErrShortWrite", "errclosedpipe",
	}
	buf := strings.Join(lines, "\n") + "\n"
	patterns := []string{
		"ErrUnexpectedEOF", `func \w+Context\(`, `\w+`, `a?b?c?`, `x`, `ErrUnexpectedEOF|ErrShortWrite|ErrClosedPipe`,
		`(foobar|quux)+z`, `(?:abc){2,}`, `caf\x{FFFD}bar`, `caf.bar`, "deadline exceeded", "deadline", "kubernetes",
		"ask", "mask", "café au lait", "→ arrow", "[Dd]eadline", `(?<=a)needle`, `(\w+)\s+\1`, `(?<!x)Timeout`,
		`(?=abc)abcdef`, `(foo)\1bar`, `^$`, `EOF$`, `^a`, `deadline\s+exceeded`, `ubernete`,
	}
	for _, p := range patterns {
		for _, fold := range []bool{false, true} {
			m, err := Compile(p, !fold)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			got, err := m.Scan([]byte(buf), 0)
			if err != nil {
				t.Fatal(err)
			}
			want := oracle(t, p, fold, lines)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("Scan(%q, fold %v) = %v, want %v", p, fold, got, want)
			}
		}
	}
}

// oracle matches each line on its own with the engine Compile picks.
func oracle(t *testing.T, p string, fold bool, lines []string) []Hit {
	var hits []Hit
	var all []string
	for _, l := range lines {
		all = append(all, strings.Split(l, "\n")...)
	}
	flags := ""
	if fold {
		flags = "(?i)"
	}
	re, err := regexp.Compile(flags + p)
	var es *regexp2.Regexp
	if err != nil {
		o := regexp2.ECMAScript
		if fold {
			o |= regexp2.IgnoreCase
		}
		es = regexp2.MustCompile(p, o)
	}
	for i, l := range all {
		col := -1
		if re != nil {
			if loc := re.FindStringIndex(l); loc != nil {
				col = loc[0]
			}
		} else if mt, _ := es.FindStringMatch(l); mt != nil {
			col, _ = mt.ByteRange()
		}
		if col >= 0 {
			hits = append(hits, Hit{i, col})
		}
	}
	return hits
}

// TestTimeout: a pattern that backtracks for ever on a line fails the scan
// with the line, instead of hanging or matching nothing.
func TestTimeout(t *testing.T) {
	defer func(d time.Duration) { esTimeout = d }(esTimeout)
	esTimeout = 50 * time.Millisecond
	m, err := Compile(`^(a|aa)+(?!a|cd)`, true)
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Scan([]byte("ok\n"+strings.Repeat("a", 5000)+"cd\n"), 0)
	if te, ok := err.(*TimeoutError); !ok || te.Line != 1 {
		t.Fatalf("Scan = %v, want a timeout on line 1", err)
	}
}

// TestTimeoutLongLine: a line over esBytesPerSecond gets a longer match
// timeout (a pattern that is merely slow on a long generated line is not
// one that runs away), up to esMaxTimeout, and a timeout names the limit
// its line had.
func TestTimeoutLongLine(t *testing.T) {
	defer func(d time.Duration) { esTimeout = d }(esTimeout)
	esTimeout = 20 * time.Millisecond
	for n, want := range map[int]time.Duration{0: 20 * time.Millisecond, esBytesPerSecond - 1: 20 * time.Millisecond,
		3*esBytesPerSecond + 1: 80 * time.Millisecond, 1 << 40: esMaxTimeout} {
		if got := esLimit(n); got != want {
			t.Errorf("esLimit(%d) = %v, want %v", n, got, want)
		}
	}
	m, err := Compile(`^(a|aa)+(?!a|cd)`, true)
	if err != nil {
		t.Fatal(err)
	}
	if re := m.esFor(10); re != m.es {
		t.Errorf("a short line: another engine (timeout %v)", re.MatchTimeout)
	}
	long := m.esFor(3*esBytesPerSecond + 1)
	if long.MatchTimeout != 80*time.Millisecond || m.esFor(3*esBytesPerSecond+100) != long {
		t.Errorf("a long line: timeout %v, made again %v", long.MatchTimeout, m.esFor(3*esBytesPerSecond+100) != long)
	}
	line := strings.Repeat("a", esBytesPerSecond+10) + "cd"
	_, err = m.Scan([]byte("ok\n"+line+"\n"), 0)
	if te, ok := err.(*TimeoutError); !ok || te.Line != 1 || te.Limit != 40*time.Millisecond {
		t.Fatalf("Scan = %v, want a timeout of 40ms on line 1", err)
	}
}
