package workspace

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/editmatch"
	"github.com/wstools/ws/pkg/udiff"
	"golang.org/x/sys/unix"
)

// TestSpanDiff checks that the diff made from the lines around a big
// file's edits is the diff of the whole file.
func TestSpanDiff(t *testing.T) {
	var sb strings.Builder
	last := 0
	for ; sb.Len() < mapEdit+1000; last++ {
		fmt.Fprintf(&sb, "line %d of a big file\n", last)
	}
	big := sb.String()
	lastLine := fmt.Sprintf("line %d of a big file\n", last-1)
	tests := []struct {
		name, content, old, new string
		all                     bool
	}{
		{"middle", big, "line 200000 of", "line 200000 (changed) of", false},
		{"first line", big, "line 0 of a big file\n", "", false},
		{"last line", big, lastLine, "the end\n", false},
		{"no final newline", strings.TrimSuffix(big, "\n") + "\ntail", "\ntail", "\nnew tail\nmore", false},
		{"several places", big, "of a big file\nline 30000", "of a big file\nLINE 30000", true},
		{"a fallback", big, "line 123455 of a big file  \nline 123456 of a big file", "line 123456 OF a big file", false},
	}
	for _, tt := range tests {
		m, err := editmatch.Apply([]byte(tt.content), tt.old, tt.new, tt.all)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		got := spanDiff("f", []byte(tt.content), m)
		want := udiff.Unified("a/f", "b/f", []byte(tt.content), m.Content(), 3)
		if got != want || got == "" {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, want)
		}
	}
}

// TestNoFault checks that reading a mapped file someone truncated is an
// error of the call, not a crash.
func TestNoFault(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, bytes.Repeat([]byte("x"), 1<<16), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := unix.Mmap(int(f.Fd()), 0, 1<<16, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(data)
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	var sum int
	err = noFault("f", func() error {
		for _, b := range data[1<<15:] {
			sum += int(b)
		}
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "the file changed while it was being edited") {
		t.Errorf("err = %v, want the file-changed error", err)
	}
	if err := noFault("f", func() error { return nil }); err != nil {
		t.Errorf("a call that does not fault: %v", err)
	}
}

// TestEditTextRanges checks that the first line of an edit's text names at
// most maxRangesShown places and says how many more there are: before, a
// replace_all of a word on 200,000 lines printed every line number, 1.4 MB
// of text for a model to read.
func TestEditTextRanges(t *testing.T) {
	ranges := func(n int) []LineRange {
		out := make([]LineRange, n)
		for i := range out {
			out[i] = LineRange{Start: i + 1, End: i + 1}
		}
		return out
	}
	var nums []string
	for i := 1; i <= 50; i++ {
		nums = append(nums, fmt.Sprint(i))
	}
	first50 := strings.Join(nums, ", ")
	tests := []struct {
		name   string
		ranges []LineRange
		want   string
	}{
		{"few", []LineRange{{1, 1}, {3, 4}}, "Replaced 2 occurrences in f.txt (lines 1, 3-4)"},
		{"exactly the most", ranges(50), "Replaced 50 occurrences in f.txt (lines " + first50 + ")"},
		{"more", ranges(200000), "Replaced 200000 occurrences in f.txt (lines " + first50 + ", and 199950 more)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &EditResult{Path: Bytes("f.txt"), Replacements: len(tt.ranges), Ranges: tt.ranges}
			if got := editText(res, 1, nil); got != tt.want {
				t.Errorf("editText:\n got %.300q\nwant %.300q", got, tt.want)
			}
		})
	}
}
