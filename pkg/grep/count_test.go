package grep

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/internal/fsroot"
)

// TestCountsAsHits searches random trees once for the lines themselves
// and once only counting them (-c), read whole and in small windows, and
// requires each file's count to be the number of lines the first search
// reports, and a count to keep nothing but the number: no places, no
// content. The searches take -v, -i, per-file and global limits, context
// (which a count ignores), the literal, RE2 and ECMAScript engines; the
// trees hold binary files, a name that is not UTF-8, CRLF, empty files
// and files without a final newline.
func TestCountsAsHits(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	words := []string{"alpha", "beta", "needle", "NEEDLE", "x", "", " ", "needle needle", "gamma\r", "ünïcode", "a1c"}
	setWindow := windows(t)
	patterns := []struct {
		src    string
		caseOn bool
	}{{"needle", true}, {"needle", false}, {`e\s+n`, true}, {`^$`, true}, {`needle(?= needle)`, true}, {`(a)\dc`, true}, {`a.c`, true}, {`\w+`, false}}
	for tree := range 6 {
		dir := t.TempDir()
		var names []string
		for i := range 3 + rng.Intn(10) {
			var sb strings.Builder
			n := rng.Intn(300)
			if rng.Intn(3) == 0 {
				n = 3000 + rng.Intn(3000) // over headFirst: searched in windows when they are small
			}
			for range n {
				for range rng.Intn(6) {
					sb.WriteString(words[rng.Intn(len(words))])
					sb.WriteByte(' ')
				}
				sb.WriteByte('\n')
			}
			s := sb.String()
			switch rng.Intn(5) {
			case 0:
				s = strings.TrimSuffix(s, "\n") + " needle at the end"
			case 1:
				s = "needle\x00binary\n" + s
			}
			name := fmt.Sprintf("d%d/f%02d.txt", i%3, i)
			if i == 1 {
				name = "d1/bad\xff.txt"
			}
			must(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755))
			must(t, os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644))
			names = append(names, name)
		}
		fsys := fsroot.New(fsroot.Options{Base: dir, Contained: true})
		for trial := range 40 {
			p := patterns[rng.Intn(len(patterns))]
			m, err := Compile(p.src, p.caseOn)
			must(t, err)
			o := Options{Matcher: m, Invert: rng.Intn(4) == 0, Before: rng.Intn(3), After: rng.Intn(3)}
			if rng.Intn(3) == 0 {
				o.MaxCount = 1 + rng.Intn(20)
			}
			if rng.Intn(4) == 0 {
				o.MaxMatches = 1 + rng.Intn(200)
			}
			root := "."
			if rng.Intn(3) == 0 {
				root = names[rng.Intn(len(names))]
			}
			setWindow(0)
			if trial%2 == 1 {
				setWindow(16 + rng.Intn(2048))
			}
			lines, err := Search(context.Background(), fsys, root, o)
			must(t, err)
			o.Count = true
			counts, err := Search(context.Background(), fsys, root, o)
			must(t, err)
			what := fmt.Sprintf("tree %d %s %q %+v window %d", tree, root, p.src, Options{Invert: o.Invert, MaxCount: o.MaxCount, MaxMatches: o.MaxMatches, Before: o.Before, After: o.After}, windowSize)
			var want, got []string
			for _, f := range lines.Files {
				if f.Count != len(f.Hits) {
					t.Fatalf("%s: %s has %d hits, count %d", what, f.Rel, len(f.Hits), f.Count)
				}
				want = append(want, fmt.Sprintf("%s:%d", f.Rel, len(f.Hits)))
			}
			for _, f := range counts.Files {
				if f.Hits != nil || f.Buf != nil || f.Lines != nil {
					t.Fatalf("%s: the count of %s keeps %d hits, %d bytes", what, f.Rel, len(f.Hits), len(f.Buf))
				}
				got = append(got, fmt.Sprintf("%s:%d", f.Rel, f.Count))
			}
			if a, b := strings.Join(want, " "), strings.Join(got, " "); a != b {
				t.Fatalf("%s:\nlines  %s\ncounts %s", what, a, b)
			}
			if o.MaxMatches == 0 {
				// Each file line by line, as the search must see it.
				ref := map[string]int{}
				for _, name := range names {
					b, err := os.ReadFile(filepath.Join(dir, name))
					must(t, err)
					if (root == "." || root == name) && !strings.Contains(string(b), "\x00") {
						ref[name] = refCount(t, m, b, o)
					}
				}
				for _, f := range counts.Files {
					if ref[f.Rel] != f.Count {
						t.Fatalf("%s: %s counted %d, line by line %d", what, f.Rel, f.Count, ref[f.Rel])
					}
					delete(ref, f.Rel)
				}
				for name, n := range ref {
					if n > 0 {
						t.Fatalf("%s: %s has %d lines line by line, none counted", what, name, n)
					}
				}
			}
			if lines.Truncated != counts.Truncated || lines.BinarySkipped != counts.BinarySkipped {
				t.Fatalf("%s: truncated %v/%v, binary %d/%d", what, lines.Truncated, counts.Truncated, lines.BinarySkipped, counts.BinarySkipped)
			}
		}
	}
}

// TestLimitStopsTheScan: a file's scan ends once the file has the lines
// the search can report (a per-file limit, the global cap, -v's), so the
// ECMAScript engine never reaches a line further on that it would give up
// on. Before, every line was matched and the cap applied afterwards, so a
// search capped at one match (-q) failed with a timeout on such a line.
func TestLimitStopsTheScan(t *testing.T) {
	dir := t.TempDir()
	runaway := strings.Repeat("a", 4000) + "cd" // ^(a|aa)+(?!a|cd) backtracks for ever on it
	// Over headFirst, so that small windows search it in windows.
	filler := strings.Repeat("aab\n", 20000)
	must(t, os.WriteFile(filepath.Join(dir, "f.txt"), []byte("aab\nc\naab\n"+runaway+"\n"+filler), 0o644))
	// -v: the line that does not match is known before the runaway one,
	// with no match between them.
	must(t, os.WriteFile(filepath.Join(dir, "v.txt"), []byte("aab\nc\n"+runaway+"\n"+filler), 0o644))
	fsys := fsroot.New(fsroot.Options{Base: dir, Contained: true})
	m, err := Compile(`^(a|aa)+(?!a|cd)`, true)
	must(t, err)
	setWindow := windows(t)
	for _, tt := range []struct {
		name string
		file string
		o    Options
		want int
	}{
		{"first match decides", "f.txt", Options{MaxMatches: 1}, 1},
		{"global cap", "f.txt", Options{MaxMatches: 2}, 2},
		{"per file", "f.txt", Options{MaxCount: 2}, 2},
		{"count per file", "f.txt", Options{MaxCount: 2, Count: true}, 2},
		{"-v", "v.txt", Options{Invert: true, MaxCount: 1}, 1},
		{"-v first decides", "v.txt", Options{Invert: true, MaxMatches: 1}, 1},
		{"-v count", "v.txt", Options{Invert: true, MaxCount: 1, Count: true}, 1},
	} {
		for _, win := range []bool{false, true} {
			setWindow(0)
			if win {
				setWindow(4096)
			}
			tt.o.Matcher = m
			res, err := Search(context.Background(), fsys, tt.file, tt.o)
			must(t, err)
			if res.Timeout != nil {
				t.Fatalf("%s (windows %v): timed out on line %d: the scan went past its limit", tt.name, win, res.Timeout.Line)
			}
			if len(res.Files) != 1 || res.Files[0].Count != tt.want {
				t.Fatalf("%s (windows %v): %d files, want one with %d lines", tt.name, win, len(res.Files), tt.want)
			}
		}
	}
}

// refCount is the number of lines of b a search reports, found line by
// line: those with a match (-v: without one), at most MaxCount.
func refCount(t *testing.T, m *Matcher, b []byte, o Options) int {
	t.Helper()
	if len(b) == 0 {
		return 0
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		col, err := m.FirstInLine([]byte(line))
		must(t, err)
		if (col >= 0) != o.Invert {
			n++
			if o.MaxCount > 0 && n == o.MaxCount {
				break
			}
		}
	}
	return n
}
