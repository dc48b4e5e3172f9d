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

// windows lets a test read files in small windows: the function it
// returns makes the searches that follow read every file in windows of n
// bytes, or, for n 0, as ws does (whole up to windowFrom). ws's sizes
// come back when the test ends.
func windows(t *testing.T) (set func(n int)) {
	from, size := windowFrom, windowSize
	t.Cleanup(func() { windowFrom, windowSize = from, size })
	return func(n int) {
		windowFrom, windowSize = from, size
		if n > 0 {
			windowFrom, windowSize = 0, n
		}
	}
}

// TestWindowsSearchAsWhole searches random files read whole and read in
// small windows (as files over windowFrom are), and requires the same
// hits, and the same lines and offsets for every hit and its context:
// what the printers show. The files have long and empty lines, CRLF, no
// final newline, lines longer than a window; the searches take context,
// a per-file limit, -v, the literal, RE2 and ECMAScript engines.
func TestWindowsSearchAsWhole(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	dir := t.TempDir()
	words := []string{"alpha", "beta", "needle", "Needle", "x", "", " ", "needle needle", "gamma\r", "ünïcode"}
	var names []string
	for i := range 12 {
		var sb strings.Builder
		for sb.Len() < 80<<10+rng.Intn(40<<10) {
			n := rng.Intn(8)
			if rng.Intn(200) == 0 {
				n = 400 // a line longer than the smallest windows
			}
			for j := 0; j < n; j++ {
				sb.WriteString(words[rng.Intn(len(words))])
				sb.WriteByte(' ')
			}
			sb.WriteByte('\n')
		}
		s := sb.String()
		if i%3 == 0 {
			s = strings.TrimSuffix(s, "\n") + " needle at the end"
		}
		name := fmt.Sprintf("f%02d.txt", i)
		must(t, os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644))
		names = append(names, name)
	}
	fsys := fsroot.New(fsroot.Options{Base: dir, Contained: true})
	patterns := []struct {
		src    string
		caseOn bool
	}{{"needle", true}, {"needle", false}, {`e\s+n`, true}, {`^$`, true}, {`needle(?= needle)`, true}, {`a.c`, true}}
	search := func(name string, o Options) *File {
		t.Helper()
		res, err := Search(context.Background(), fsys, name, o)
		must(t, err)
		if len(res.Files) == 0 {
			return nil
		}
		return res.Files[0]
	}
	setWindow := windows(t)
	for trial := range 120 {
		p := patterns[trial%len(patterns)]
		m, err := Compile(p.src, p.caseOn)
		must(t, err)
		o := Options{Matcher: m, Before: rng.Intn(4), After: rng.Intn(4), Invert: rng.Intn(5) == 0, NoContent: rng.Intn(6) == 0}
		if rng.Intn(3) == 0 {
			o.MaxCount = 1 + rng.Intn(20)
		}
		name := names[rng.Intn(len(names))]
		setWindow(0)
		whole := search(name, o)
		setWindow(16 + rng.Intn(4096))
		win := search(name, o)
		what := fmt.Sprintf("%s %q %+v window %d", name, p.src, Options{Before: o.Before, After: o.After, Invert: o.Invert, NoContent: o.NoContent, MaxCount: o.MaxCount}, windowSize)
		if (whole == nil) != (win == nil) {
			t.Fatalf("%s: hits whole %v, in windows %v", what, whole != nil, win != nil)
		}
		if whole == nil {
			continue
		}
		if fmt.Sprint(whole.Hits) != fmt.Sprint(win.Hits) {
			t.Fatalf("%s: hits differ:\nwhole   %v\nwindows %v", what, whole.Hits, win.Hits)
		}
		if whole.Size != win.Size {
			t.Fatalf("%s: size %d, in windows %d", what, whole.Size, win.Size)
		}
		if o.NoContent {
			if win.Buf != nil || win.Lines != nil {
				t.Fatalf("%s: content kept without content asked", what)
			}
			continue
		}
		shown := func(f *File) string {
			var sb strings.Builder
			n := f.Lines.Count()
			for _, h := range f.Hits {
				for i := max(0, h.Line-o.Before); i <= min(n-1, h.Line+o.After); i++ {
					s, e := f.Lines.Bounds(f.Buf, i)
					fmt.Fprintf(&sb, "%d@%d:%q", i, f.Lines.Offset(i), f.Buf[s:e])
					if e < len(f.Buf) && f.Buf[e] == '\n' {
						sb.WriteString("\\n")
					}
					sb.WriteByte('\n')
				}
			}
			return sb.String()
		}
		if a, b := shown(whole), shown(win); a != b {
			t.Fatalf("%s: lines shown differ:\nwhole:\n%s\nwindows:\n%s", what, a, b)
		}
		if int64(len(win.Buf)) >= whole.Size && len(whole.Hits) < 50 {
			t.Errorf("%s: windows keep %d bytes, the whole file is %d", what, len(win.Buf), whole.Size)
		}
	}
}

// TestPartsAsWhole: a search whose files go to OnFile in parts
// (Options.Parts, as --jsonl asks) passes, over all the parts of a file,
// the same hits and the same lines, each once and in order, as the file
// passed whole; begin and end are marked (Continued, More); files keep
// walk order. The files are searched in small windows, so the big ones
// come in many parts.
func TestPartsAsWhole(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	dir := t.TempDir()
	words := []string{"alpha", "needle", "x", "", "needle needle", "gamma\r"}
	for i := range 8 {
		var sb strings.Builder
		for sb.Len() < 70<<10+rng.Intn(60<<10) {
			for range rng.Intn(6) {
				sb.WriteString(words[rng.Intn(len(words))] + " ")
			}
			sb.WriteByte('\n')
		}
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), []byte(sb.String()), 0o644))
	}
	fsys := fsroot.New(fsroot.Options{Base: dir, Contained: true})
	windows(t)(4096)
	m, err := Compile("needle", true)
	must(t, err)
	// shown is what a file's part holds: its hits and its lines.
	shown := func(f *File) string {
		var sb strings.Builder
		for _, h := range f.Hits {
			fmt.Fprintf(&sb, "hit %d:%d\n", h.Line, h.Col)
		}
		for _, i := range f.Lines.Held() {
			s, e := f.Lines.Bounds(f.Buf, i)
			fmt.Fprintf(&sb, "%d@%d:%q\n", i, f.Lines.Offset(i), f.Buf[s:e])
		}
		return sb.String()
	}
	for trial := range 8 {
		o := Options{Matcher: m, Before: rng.Intn(3), After: rng.Intn(3)}
		var whole []string
		o.OnFile = func(f *File) { whole = append(whole, f.Rel+"\n"+shown(f)) }
		_, err := Search(context.Background(), fsys, ".", o)
		must(t, err)
		var got []string
		parts, open := 0, false
		o.Parts = true
		o.OnFile = func(f *File) {
			parts++
			if f.Continued != open {
				t.Fatalf("trial %d: %s continued %v, a part open %v", trial, f.Rel, f.Continued, open)
			}
			if !f.Continued {
				got = append(got, f.Rel+"\n")
			}
			got[len(got)-1] += shown(f)
			open = f.More
		}
		_, err = Search(context.Background(), fsys, ".", o)
		must(t, err)
		if open {
			t.Fatalf("trial %d: the last file was never ended", trial)
		}
		// Hits come before the lines in each part: compare the hits and
		// the lines of each file, whatever the parts.
		norm := func(files []string) string {
			var sb strings.Builder
			for _, f := range files {
				var hits, lines []string
				for _, l := range strings.Split(f, "\n") {
					if strings.HasPrefix(l, "hit ") {
						hits = append(hits, l)
					} else {
						lines = append(lines, l)
					}
				}
				sb.WriteString(strings.Join(lines, "\n") + strings.Join(hits, "\n") + "\n")
			}
			return sb.String()
		}
		if a, b := norm(whole), norm(got); a != b {
			t.Fatalf("trial %d (context %d/%d): in parts\n%s\nwhole\n%s", trial, o.Before, o.After, b, a)
		}
		if parts <= len(whole) {
			t.Fatalf("trial %d: %d parts for %d files: no file came in parts", trial, parts, len(whole))
		}
	}
}
