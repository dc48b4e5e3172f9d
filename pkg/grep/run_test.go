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
