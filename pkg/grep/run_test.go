package grep

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/internal/fsroot"
)

// TestSearchKeepsSmallBuffers: files with hits keep their content, but a
// small file read into a worker's big buffer (grown by a large file read
// before it) keeps a copy its size, not the whole buffer; and every file
// keeps content of its own, never a buffer a later read writes over.
func TestSearchKeepsSmallBuffers(t *testing.T) {
	dir := t.TempDir()
	// Large files without a hit first (in walk order), then small ones
	// with hits.
	for i := range 4 {
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("a%d.txt", i)), []byte(strings.Repeat("filler line\n", 100_000)), 0o644))
	}
	for i := range 200 {
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("b%03d.txt", i)), []byte(fmt.Sprintf("needle %d\n", i)), 0o644))
	}
	m, err := Compile("needle", true)
	must(t, err)
	fsys := fsroot.New(fsroot.Options{Base: dir, Contained: true})
	res, err := Search(context.Background(), fsys, ".", Options{Matcher: m})
	must(t, err)
	if len(res.Files) != 200 {
		t.Fatalf("%d files with hits, want 200", len(res.Files))
	}
	for i, f := range res.Files {
		if want := fmt.Sprintf("needle %d\n", i); string(f.Buf) != want {
			t.Fatalf("%s holds %q, want %q", f.Rel, f.Buf, want)
		}
		if cap(f.Buf) > 2*len(f.Buf)+4<<10 {
			t.Fatalf("%s keeps a buffer of %d bytes for %d", f.Rel, cap(f.Buf), len(f.Buf))
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestBoundedKeepsPrintedLines: when a search prints a bounded part of
// each file (the 1000-match cap, a per-file limit), a file with a hit
// keeps the lines it prints, not its content, whether it was read whole
// or in windows; a search that prints every hit (--jsonl) keeps the
// content of the small files it reads whole. Before, each file with a
// hit was held whole until the output: 500 files of 860 KB with one hit
// each took 700 MB.
func TestBoundedKeepsPrintedLines(t *testing.T) {
	dir := t.TempDir()
	filler := strings.Repeat("filler line\n", 40_000)
	must(t, os.WriteFile(filepath.Join(dir, "big.txt"), []byte(filler+"before\nneedle\nafter\n"+filler), 0o644))
	m, err := Compile("needle", true)
	must(t, err)
	fsys := fsroot.New(fsroot.Options{Base: dir, Contained: true})
	setWindow := windows(t)
	for _, tt := range []struct {
		name string
		o    Options
		want string
	}{
		{"capped", Options{MaxMatches: 1000, Before: 1, After: 1}, "before\nneedle\nafter\n"},
		{"per file", Options{MaxCount: 5}, "needle\n"},
		{"every hit", Options{}, filler + "before\nneedle\nafter\n" + filler},
	} {
		for _, win := range []bool{false, true} {
			setWindow(0)
			if win {
				setWindow(64 << 10)
				if tt.o.MaxMatches == 0 && tt.o.MaxCount == 0 {
					continue // searched whole
				}
			}
			tt.o.Matcher = m
			res, err := Search(context.Background(), fsys, "big.txt", tt.o)
			must(t, err)
			if len(res.Files) != 1 {
				t.Fatalf("%s (windows %v): %d files", tt.name, win, len(res.Files))
			}
			if f := res.Files[0]; string(f.Buf) != tt.want || f.Lines.Count() != 80_003 {
				t.Fatalf("%s (windows %v): keeps %d bytes of %d lines, want %d", tt.name, win, len(f.Buf), f.Lines.Count(), len(tt.want))
			}
		}
	}
}
