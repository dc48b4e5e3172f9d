package editmatch

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// reindentCase is a block of code in one file style, an edit of it
// written in another (old_string mis-indented), and the file the edit
// must give: its change in the file's style, every other line as it was.
type reindentCase struct {
	content, old, new, want string
	desc                    string
}

// indentStyles are the ways a text may indent one level.
var indentStyles = []string{"\t", "  ", "    "}

// makeReindentCase builds a case from r: a block of 3 to 8 lines whose
// depths step by at most one, in the file at some base depth and style,
// in old_string at another; one line changed and maybe one inserted after
// it, new_string written in old_string's frame or, when fileFrame, in the
// file's (already right). ok is false when old_string occurs exactly.
func makeReindentCase(r *rand.Rand) (c reindentCase, ok bool) {
	n := 3 + r.IntN(6)
	depths := make([]int, n)
	for i := 1; i < n; i++ {
		depths[i] = max(0, depths[i-1]+r.IntN(3)-1)
	}
	fs, as := r.IntN(3), r.IntN(3)
	fb, ab := r.IntN(3), r.IntN(2)
	if fs == as && fb == ab {
		ab = fb + 1
	}
	// The edit of line changed: 0 changes its text, 1 also inserts a
	// line after it, 2 inserts a line one level deeper after it, 3 wraps
	// it in a new block (it moves one level deeper, its text unchanged).
	changed, op, fileFrame := r.IntN(n), r.IntN(4), r.IntN(2) == 0
	render := func(style string, base int, edited bool) string {
		var sb strings.Builder
		line := func(d int, text string) { sb.WriteString(strings.Repeat(style, base+d) + text + "\n") }
		for i, d := range depths {
			text := fmt.Sprintf("stmt%d(x)", i)
			switch {
			case !edited || i != changed:
				line(d, text)
			case op == 3:
				line(d, "wrap(w):")
				line(d+1, text)
			default:
				line(d, fmt.Sprintf("changed%d(y)", i))
				if op > 0 {
					line(d+op-1, "inserted(z)")
				}
			}
		}
		return sb.String()
	}
	// The line after the header shows the file's unit, which a block
	// that never changes depth could not.
	head, tail := "header():\n"+indentStyles[fs]+"setup()\n", "footer()\n"
	c.content = head + render(indentStyles[fs], fb, false) + tail
	c.want = head + render(indentStyles[fs], fb, true) + tail
	c.old = strings.TrimSuffix(render(indentStyles[as], ab, false), "\n")
	if fileFrame {
		c.new = strings.TrimSuffix(render(indentStyles[fs], fb, true), "\n")
	} else {
		c.new = strings.TrimSuffix(render(indentStyles[as], ab, true), "\n")
	}
	c.desc = fmt.Sprintf("file %q×%d, old %q×%d, depths %v, line %d edited by op %d, new in the file's frame %v",
		indentStyles[fs], fb, indentStyles[as], ab, depths, changed, op, fileFrame)
	return c, !strings.Contains(c.content, c.old)
}

// checkReindent applies c: a refusal is allowed, any other result than
// c.want is a wrong edit.
func checkReindent(t *testing.T, c reindentCase) (applied bool) {
	t.Helper()
	m, err := Apply([]byte(c.content), c.old, c.new, false)
	if err != nil {
		checkErr(t, err)
		return false
	}
	if got := string(m.Content()); got != c.want {
		t.Fatalf("wrong edit (%s, fallback %s):\ncontent %q\nold     %q\nnew     %q\n got    %q\nwant    %q",
			c.desc, m.Fallback, c.content, c.old, c.new, got, c.want)
	}
	return true
}

// TestReindent runs a few thousand generated re-indentations: none may
// come out wrong, and nearly all must apply (a matcher that refused
// everything would pass the first rule).
func TestReindent(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tried, applied := 0, 0
	for tried < 3000 {
		c, ok := makeReindentCase(r)
		if !ok {
			continue
		}
		tried++
		if checkReindent(t, c) {
			applied++
		}
	}
	t.Logf("%d of %d generated re-indentations applied, the rest refused", applied, tried)
	if applied < tried*9/10 {
		t.Errorf("only %d of %d re-indentations applied; want at least 90%%", applied, tried)
	}
}

// FuzzReindent explores the same cases from fuzzed seeds.
func FuzzReindent(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Fuzz(func(t *testing.T, a, b uint64) {
		if c, ok := makeReindentCase(rand.New(rand.NewPCG(a, b))); ok {
			checkReindent(t, c)
		}
	})
}
