package workspace

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestGlobDepth: a pattern without ** is matched without walking deeper
// than it can match. '*.txt' walked the whole tree, and named each
// unreadable directory in it as skipped, though nothing in one could have
// matched.
func TestGlobDepth(t *testing.T) {
	for _, tc := range []struct {
		pattern  string
		anchored bool
		top      string
		want     int
	}{
		{"*.txt", false, ".", 1},
		{"src/*.go", false, ".", 2},
		{"{a,b/c}/*.md", false, ".", 3}, // a slash in braces counts: deeper is safe
		{"**/*.go", false, ".", 0},
		{"src/**", false, "src", 0},
		{"net/http/*.go", true, ".", 3},
		{"net/http/*.go", true, "net", 0}, // matched against workspace paths below PATH
	} {
		if got := globDepth(tc.pattern, tc.anchored, tc.top); got != tc.want {
			t.Errorf("globDepth(%q, %v, %q) = %d, want %d", tc.pattern, tc.anchored, tc.top, got, tc.want)
		}
	}

	w, root := newTestWorkspace(t, nil, "a.txt", "sub/b.txt", "sub/deeper/c.txt")
	res, err := w.Glob(context.Background(), GlobRequest{Pattern: "*.txt"})
	must(t, err)
	if got := res.Text(); got != "a.txt" {
		t.Errorf("glob *.txt: %q, want a.txt", got)
	}
	res, err = w.Glob(context.Background(), GlobRequest{Pattern: "sub/*/*.txt"})
	must(t, err)
	if got := res.Text(); got != "sub/deeper/c.txt" {
		t.Errorf("glob sub/*/*.txt: %q, want sub/deeper/c.txt", got)
	}
	if os.Geteuid() != 0 { // root reads any directory
		must(t, os.Chmod(filepath.Join(root, "sub"), 0))
		defer os.Chmod(filepath.Join(root, "sub"), 0o755)
		res, err = w.Glob(context.Background(), GlobRequest{Pattern: "*.txt"})
		must(t, err)
		if len(res.Skipped) != 0 {
			t.Errorf("glob *.txt skipped %+v below the level it matches", res.Skipped)
		}
	}
}
