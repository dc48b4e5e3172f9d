package workspace

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/internal/wording"
)

func TestClipDiff(t *testing.T) {
	long := func(c string, n int) string { return strings.Repeat(c, n) }
	xs, ys := long("x", 1000), long("y", 1000)
	tests := []struct {
		name, diff, want string
		cut              bool
	}{
		{"short lines stay", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n", false},
		{"bug: a changed long line shows where it changed",
			"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-" + xs + " target here " + ys + "\n+" + xs + " T " + ys + "\n",
			"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-…" + long("x", 79) + " target here " + long("y", 79) + "…\n+…" + long("x", 79) + " T " + long("y", 79) + "…\n", true},
		{"a long context line shows its start",
			"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n " + xs + "\n-a\n+b\n",
			"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n " + long("x", 400) + "…\n-a\n+b\n", true},
		{"a long added line without a counterpart shows its start",
			"--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n a\n+" + xs + "\n",
			"--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n a\n+" + long("x", 400) + "…\n", true},
		{"cuts fall between characters", "@@ -1 +1 @@\n-" + long("é", 500) + "a\n+" + long("é", 500) + "b\n",
			"@@ -1 +1 @@\n-…" + long("é", 40) + "a\n+…" + long("é", 40) + "b\n", true},
		{"no newline at the end of a cut line", "@@ -1 +1 @@\n-" + xs + "a\n\\ No newline at end of file\n+" + xs + "b\n\\ No newline at end of file\n",
			"@@ -1 +1 @@\n-…" + long("x", 80) + "a\n\\ No newline at end of file\n+…" + long("x", 80) + "b\n\\ No newline at end of file\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := clipDiff(tt.diff)
			if got != tt.want || cut != tt.cut {
				t.Errorf("clipDiff:\n got %q (%v)\nwant %q (%v)", got, cut, tt.want, tt.cut)
			}
		})
	}
}

func TestDiffTextLines(t *testing.T) {
	var long strings.Builder
	long.WriteString("--- a/f\n+++ b/f\n@@ -1,1000 +1,1000 @@\n")
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&long, "-old %d\n", i)
	}
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&long, "+new %d\n", i)
	}
	tests := []struct{ name, diff, want string }{
		{"none", "", ""},
		{"short", "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n", "\n\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b"},
		{"bug: a diff of 2,003 lines showed them all", long.String(), "\n\n" + strings.Join(strings.Split(long.String(), "\n")[:maxDiffLines], "\n") +
			"\n(1603 more lines of the diff not shown; read the file to see the result)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := diffText(tt.diff); got != tt.want {
				t.Errorf("diffText:\n got %q\nwant %q", wording.Excerpt(got, 300), wording.Excerpt(tt.want, 300))
			}
		})
	}
}
