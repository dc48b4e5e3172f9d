package udiff

import (
	"bytes"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

func TestUnified(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		ctx  int
		want string
	}{
		{"equal", "a\nb\n", "a\nb\n", 3, ""},
		{"both empty", "", "", 3, ""},
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n", 3,
			"--- a\n+++ b\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"context 0", "a\nb\nc\n", "a\nB\nc\n", 0,
			"--- a\n+++ b\n@@ -2 +2 @@\n-b\n+B\n"},
		{"negative context is 0", "a\nb\nc\n", "a\nB\nc\n", -5,
			"--- a\n+++ b\n@@ -2 +2 @@\n-b\n+B\n"},
		{"from empty", "", "x\ny\n", 3,
			"--- a\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n"},
		{"to empty", "x\n", "", 3,
			"--- a\n+++ b\n@@ -1 +0,0 @@\n-x\n"},
		{"insertion only", "a\nc\n", "a\nb\nc\n", 0,
			"--- a\n+++ b\n@@ -1,0 +2 @@\n+b\n"},
		{"deletion only", "a\nb\nc\n", "a\nc\n", 0,
			"--- a\n+++ b\n@@ -2 +1,0 @@\n-b\n"},
		{"final newline added", "a\nb", "a\nb\n", 3,
			"--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
		{"final newline removed", "a\nb\n", "a\nb", 3,
			"--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n"},
		{"no final newline on either side", "a\nb", "A\nb", 3,
			"--- a\n+++ b\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n\\ No newline at end of file\n"},
		{"no newline at all", "x", "y", 3,
			"--- a\n+++ b\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n"},
		{"crlf lines kept as bytes", "one\r\ntwo\r\n", "one\r\n2\r\n", 3,
			"--- a\n+++ b\n@@ -1,2 +1,2 @@\n one\r\n-two\r\n+2\r\n"},
		{"crlf to lf shows as changed", "one\r\n", "one\n", 3,
			"--- a\n+++ b\n@@ -1 +1 @@\n-one\r\n+one\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "1\nX\n3\n4\n5\n6\n7\n8\nY\n10\n", 1,
			"--- a\n+++ b\n@@ -1,3 +1,3 @@\n 1\n-2\n+X\n 3\n@@ -8,3 +8,3 @@\n 8\n-9\n+Y\n 10\n"},
		{"hunks merged within 2*context", "1\n2\n3\n4\n5\n", "X\n2\n3\n4\nY\n", 2,
			"--- a\n+++ b\n@@ -1,5 +1,5 @@\n-1\n+X\n 2\n 3\n 4\n-5\n+Y\n"},
		{"change inside a shared line prefix", "abc\nabd\n", "abc\nabx\n", 3,
			"--- a\n+++ b\n@@ -1,2 +1,2 @@\n abc\n-abd\n+abx\n"},
		{"suffix shared inside a line", "xa\n", "ya\n", 3,
			"--- a\n+++ b\n@@ -1 +1 @@\n-xa\n+ya\n"},
		{"repeated lines", "a\na\na\n", "a\na\n", 3,
			"--- a\n+++ b\n@@ -1,3 +1,2 @@\n a\n a\n-a\n"},
		{"names", "a\n", "b\n", 3,
			"--- x/f.go\n+++ y/f.go\n@@ -1 +1 @@\n-a\n+b\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			an, bn := "a", "b"
			if tt.name == "names" {
				an, bn = "x/f.go", "y/f.go"
			}
			got := Unified(an, bn, []byte(tt.a), []byte(tt.b), tt.ctx)
			if got != tt.want {
				t.Errorf("Unified(%q, %q):\ngot:\n%s\nwant:\n%s", tt.a, tt.b, got, tt.want)
			}
			if got != "" {
				if back, err := applyPatch([]byte(tt.a), got); err != nil || !bytes.Equal(back, []byte(tt.b)) {
					t.Errorf("patch does not apply back: %v %q", err, back)
				}
			}
		})
	}
}

// TestUnifiedRandom checks on random inputs that the diff applies back
// and that the edit script is minimal (Myers' guarantee) on small inputs.
func TestUnifiedRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	gen := func(n int) []byte {
		var sb strings.Builder
		for i := 0; i < n; i++ {
			sb.WriteString(string(rune('a' + rng.Intn(4))))
			if rng.Intn(10) == 0 {
				sb.WriteString("\r")
			}
			if i < n-1 || rng.Intn(2) == 0 {
				sb.WriteString("\n")
			}
		}
		return []byte(sb.String())
	}
	for i := 0; i < 3000; i++ {
		a, b := gen(rng.Intn(12)), gen(rng.Intn(12))
		ctx := rng.Intn(4)
		d := Unified("a", "b", a, b, ctx)
		if bytes.Equal(a, b) != (d == "") {
			t.Fatalf("equal=%v but diff %q", bytes.Equal(a, b), d)
		}
		if d == "" {
			continue
		}
		back, err := applyPatch(a, d)
		if err != nil || !bytes.Equal(back, b) {
			t.Fatalf("a=%q b=%q ctx=%d\n%s\napplied: %q, %v", a, b, ctx, d, back, err)
		}
	}
	// Minimality of the line script against an LCS table.
	for i := 0; i < 2000; i++ {
		a, b := randInts(rng, rng.Intn(30)), randInts(rng, rng.Intn(30))
		ops := diffLines(a, b, 5)
		edits := 0
		ai, bi := 0, 0
		for _, o := range ops {
			switch o.kind {
			case opEqual:
				if o.a != ai || o.b != bi || a[ai] != b[bi] {
					t.Fatalf("bad equal op %+v at %d,%d", o, ai, bi)
				}
				ai, bi = ai+1, bi+1
			case opDelete:
				if o.a != ai {
					t.Fatalf("bad delete %+v", o)
				}
				ai++
				edits++
			case opInsert:
				if o.b != bi {
					t.Fatalf("bad insert %+v", o)
				}
				bi++
				edits++
			}
		}
		if ai != len(a) || bi != len(b) {
			t.Fatalf("script does not cover the inputs")
		}
		if want := len(a) + len(b) - 2*lcs(a, b); edits != want {
			t.Fatalf("%v → %v: %d edits, minimum %d", a, b, edits, want)
		}
	}
}

func randInts(rng *rand.Rand, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = rng.Intn(5)
	}
	return out
}

func lcs(a, b []int) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

// TestUnifiedLarge diffs inputs beyond the patience threshold.
func TestUnifiedLarge(t *testing.T) {
	var a, b bytes.Buffer
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&a, "line %d\n", i)
		switch {
		case i%1000 == 7:
			fmt.Fprintf(&b, "changed %d\n", i)
		case i%1500 == 3:
		default:
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}
	d := Unified("a", "b", a.Bytes(), b.Bytes(), 3)
	back, err := applyPatch(a.Bytes(), d)
	if err != nil || !bytes.Equal(back, b.Bytes()) {
		t.Fatalf("large patch does not apply: %v", err)
	}
	if n := strings.Count(d, "\n-"); n != 20+14 {
		t.Errorf("%d deleted lines, want 34 (a minimal diff)", n)
	}
	// Nothing in common, large: one replaced block, quickly.
	var c, e bytes.Buffer
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&c, "x\n")
		fmt.Fprintf(&e, "y%d\n", i%3)
	}
	d = Unified("a", "b", c.Bytes(), e.Bytes(), 3)
	if back, err := applyPatch(c.Bytes(), d); err != nil || !bytes.Equal(back, e.Bytes()) {
		t.Fatalf("replace patch does not apply: %v", err)
	}
}

// applyPatch applies a unified diff made by Unified to a.
func applyPatch(a []byte, d string) ([]byte, error) {
	lines := splitLines([]byte(d))
	if len(lines) < 2 {
		return nil, fmt.Errorf("no header")
	}
	src := splitLines(a)
	var out []byte
	pos := 0 // next source line
	for i := 2; i < len(lines); {
		h := string(lines[i])
		if !strings.HasPrefix(h, "@@ -") {
			return nil, fmt.Errorf("bad hunk header %q", h)
		}
		f := strings.Fields(h)
		start, count := parseRange(f[1][1:])
		if count > 0 {
			start--
		}
		for pos < start {
			out = append(out, src[pos]...)
			pos++
		}
		i++
		for i < len(lines) && !strings.HasPrefix(string(lines[i]), "@@") {
			l := lines[i]
			body := append([]byte(nil), l[1:]...)
			if i+1 < len(lines) && string(lines[i+1]) == noNewline {
				body = bytes.TrimSuffix(body, []byte("\n"))
				i++
			}
			switch l[0] {
			case ' ':
				if pos >= len(src) || !bytes.Equal(src[pos], body) {
					return nil, fmt.Errorf("context mismatch at %d", pos)
				}
				out = append(out, body...)
				pos++
			case '-':
				if pos >= len(src) || !bytes.Equal(src[pos], body) {
					return nil, fmt.Errorf("delete mismatch at %d: %q", pos, body)
				}
				pos++
			case '+':
				out = append(out, body...)
			default:
				return nil, fmt.Errorf("bad line %q", l)
			}
			i++
		}
	}
	for ; pos < len(src); pos++ {
		out = append(out, src[pos]...)
	}
	return out, nil
}

func parseRange(s string) (start, count int) {
	a, b, ok := strings.Cut(s, ",")
	start, _ = strconv.Atoi(a)
	count = 1
	if ok {
		count, _ = strconv.Atoi(b)
	}
	return start, count
}

func BenchmarkUnifiedOneLineIn50MB(b *testing.B) {
	a := make([]byte, 0, 50<<20)
	for i := 0; len(a) < 50<<20; i++ {
		a = fmt.Appendf(a, "line %d of a large file, with some text to make it longer\n", i)
	}
	c := bytes.Clone(a)
	at := len(c) - 1000
	c[at] = 'X'
	b.SetBytes(int64(len(a)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if Unified("a", "b", a, c, 3) == "" {
			b.Fatal("no diff")
		}
	}
}

func TestUnifiedAt(t *testing.T) {
	var a, b strings.Builder
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&a, "line %d\n", i)
		if i == 50 {
			b.WriteString("changed\n")
		} else {
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}
	whole := Unified("a", "b", []byte(a.String()), []byte(b.String()), 3)
	// The lines 41-60 of each, numbered from line 40.
	window := func(s string) []byte {
		lines := strings.SplitAfter(s, "\n")
		return []byte(strings.Join(lines[40:60], ""))
	}
	if got := UnifiedAt("a", "b", window(a.String()), window(b.String()), 3, 40); got != whole {
		t.Errorf("UnifiedAt:\n%s\nwant\n%s", got, whole)
	}
}
