package engine

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/search"
	"golang.org/x/sys/unix"
)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// testRoot makes a workspace root holding files (each "content of NAME")
// and returns it with its filesystem, contained as by default.
func testRoot(t *testing.T, files ...string) (string, *fsroot.FS) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "root")
	must(t, os.MkdirAll(root, 0o755))
	for _, f := range files {
		p := filepath.Join(root, f)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte("content of "+f+"\n"), 0o644))
	}
	fs := fsroot.New(fsroot.Options{Base: root, Contained: true})
	t.Cleanup(func() { fs.Close() })
	return root, fs
}

// testEngine is an engine over fs with keyword search only, its state in
// a directory of its own.
func testEngine(t *testing.T, fs Files, auto ...string) *Engine {
	return New(Options{Files: fs, StateDir: filepath.Join(t.TempDir(), "state"), Params: search.DefaultParams(), AutoPaths: auto})
}

func ids(t *testing.T, e *Engine, q string) string {
	t.Helper()
	hits, err := e.Search(context.Background(), q, search.ModeBM25, 100, nil)
	must(t, err)
	var out []string
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return fmt.Sprint(out)
}

// TestSearchKeepsIndexCurrent checks that each query sees the files as
// they are: changed files read again, removed ones dropped (SPEC 16b).
func TestSearchKeepsIndexCurrent(t *testing.T) {
	root, fs := testRoot(t, "docs/a.md", "docs/sub/b.md", "other/c.md")
	e := testEngine(t, fs, "docs")
	at := func(p string) string { return filepath.Join(root, p) }
	outside := filepath.Join(t.TempDir(), "secret.md")
	must(t, os.WriteFile(outside, []byte("secret zebras\n"), 0o644))
	steps := []struct {
		name   string
		change func()
		query  string
		want   string
	}{
		{"first search indexes the autoIndexPaths", func() {}, "content", "[docs/a.md docs/sub/b.md]"},
		{"same size, new mtime: read again", func() {
			must(t, os.WriteFile(at("docs/a.md"), []byte("zebras of docs/a\n"), 0o644))
			must(t, os.Chtimes(at("docs/a.md"), time.Unix(2e9, 0), time.Unix(2e9, 0)))
		}, "zebras", "[docs/a.md]"},
		{"a removed file is dropped", func() { must(t, os.Remove(at("docs/sub/b.md"))) }, "content", "[]"},
		{"a new file is not seen before a refresh", func() { must(t, os.WriteFile(at("docs/new.md"), []byte("fresh\n"), 0o644)) }, "fresh", "[]"},
		{"a link out of the workspace is not indexed", func() {
			must(t, os.Symlink(outside, at("docs/leak.md")))
			_, err := e.Refresh(context.Background())
			must(t, err)
		}, "secret", "[]"},
		{"the refresh found the new file", func() {}, "fresh", "[docs/new.md]"},
	}
	for _, s := range steps {
		s.change()
		if got := ids(t, e, s.query); got != s.want {
			t.Fatalf("%s: %q found %s, want %s", s.name, s.query, got, s.want)
		}
	}
}

// TestRefresh checks what each walk of the autoIndexPaths reports.
func TestRefresh(t *testing.T) {
	root, fs := testRoot(t, "a.md", "b.md", "skip/c.md")
	e := testEngine(t, fs, "*.md")
	at := func(p string) string { return filepath.Join(root, p) }
	steps := []struct {
		name   string
		change func()
		want   string // files added changed removed skipped documents
	}{
		{"first walk", func() {}, "2 [a.md b.md] [] [] [] 2"},
		{"nothing changed", func() {}, "2 [] [] [] [] 2"},
		{"a file changed", func() {
			must(t, os.WriteFile(at("b.md"), []byte("longer content now\n"), 0o644))
		}, "2 [] [b.md] [] [] 2"},
		{"a file removed, one added", func() {
			must(t, os.Remove(at("a.md")))
			must(t, os.WriteFile(at("d.md"), []byte("d\n"), 0o644))
		}, "2 [d.md] [] [a.md] [] 2"},
		{"a binary file is left out, and said to be", func() {
			must(t, os.WriteFile(at("e.md"), []byte("\x00\x01\x02"), 0o644))
		}, "2 [] [] [] [{e.md binary}] 2"},
	}
	for _, s := range steps {
		s.change()
		r, err := e.Refresh(context.Background())
		must(t, err)
		if got := fmt.Sprint(r.Files, r.Added, r.Changed, r.Removed, r.Skipped, r.Documents); got != s.want {
			t.Errorf("%s: %s, want %s", s.name, got, s.want)
		}
	}
}

// TestRefreshSkips checks that a walk of the autoIndexPaths names every
// file and pattern it did not index, and why (before, each was passed
// over without a word).
func TestRefreshSkips(t *testing.T) {
	root, fs := testRoot(t, "docs/a.md")
	at := func(p string) string { return filepath.Join(root, p) }
	outside := filepath.Join(t.TempDir(), "secret.md")
	must(t, os.WriteFile(outside, []byte("secret\n"), 0o644))
	must(t, os.Symlink(outside, at("docs/leak.md")))
	must(t, unix.Mkfifo(at("docs/pipe"), 0o644))
	// A socket is not a regular file either (it was "read error: no such
	// device or address", from its open).
	l, err := net.Listen("unix", at("docs/sock"))
	must(t, err)
	defer l.Close()
	must(t, os.WriteFile(at("docs/big.bin"), []byte("\x00head"), 0o644))
	e := testEngine(t, fs, "docs", "missing", "src/*.go", "../out")
	r, err := e.Refresh(context.Background())
	must(t, err)
	want := "[{missing no such file or directory} {src/*.go matches nothing} " +
		"{../out refused (Permission denied: access on ../out)} " +
		"{docs/big.bin binary} {docs/leak.md symlink outside the workspace} {docs/pipe not a regular file} {docs/sock not a regular file}]"
	if got := fmt.Sprint(r.Skipped); got != want {
		t.Errorf("skipped %s\nwant    %s", got, want)
	}
	if r.Files != 1 {
		t.Errorf("files %d, want 1", r.Files)
	}
}

// TestLongFileCut checks that a file over maxIndexedFile is indexed up to
// there, and that the walk says so.
func TestLongFileCut(t *testing.T) {
	defer func(n int64) { maxIndexedFile = n }(maxIndexedFile)
	maxIndexedFile = 1 << 20
	root, fs := testRoot(t)
	var text []byte
	for i := 0; len(text) < 1100<<10; i++ {
		text = fmt.Appendf(text, "line %d of a long file\n", i)
	}
	text = append(text, "needle past the cut\n"...)
	must(t, os.WriteFile(filepath.Join(root, "long.txt"), text, 0o644))
	e := testEngine(t, fs, "long.txt")
	r, err := e.Refresh(context.Background())
	must(t, err)
	want := "1 [{long.txt larger than 1 MiB: only its first 1 MiB are indexed}]"
	if got := fmt.Sprint(r.Files, r.Skipped); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	// A walk that finds it unchanged says so too.
	r, err = e.Refresh(context.Background())
	must(t, err)
	if got := fmt.Sprint(r.Files, r.Skipped); got != want {
		t.Errorf("walked again: got %s, want %s", got, want)
	}
	if got := ids(t, e, "needle"); got != "[]" {
		t.Errorf("needle past the cut found in %s", got)
	}
	if got := ids(t, e, "line"); got == "[]" {
		t.Errorf("the first part is not indexed")
	}
}

// TestLongFileChunks checks that a long file is indexed as line-based
// chunks that name their source.
func TestLongFileChunks(t *testing.T) {
	root, fs := testRoot(t)
	var text []byte
	for i := range 400 {
		text = fmt.Appendf(text, "line %d of a long file\n", i)
	}
	text = append(text, "needle at the end\n"...)
	must(t, os.WriteFile(filepath.Join(root, "long.txt"), text, 0o644))
	e := testEngine(t, fs, "long.txt")
	hits, err := e.Search(context.Background(), "needle", search.ModeBM25, 5, nil)
	must(t, err)
	// Neighbouring chunks share lines: the best hit is the last chunk.
	if len(hits) == 0 || hits[0].ID != "long.txt#chunk-3" || hits[0].SourceFile != "long.txt" || hits[0].Range == nil {
		t.Fatalf("hits %+v", hits)
	}
}

// TestWithoutState checks that with no state directory each query indexes
// the autoIndexPaths in memory and leaves nothing behind.
func TestWithoutState(t *testing.T) {
	_, fs := testRoot(t, "a.md", "b.md")
	e := New(Options{Files: fs, Params: search.DefaultParams(), AutoPaths: []string{"a.md"}})
	if got := ids(t, e, "content"); got != "[a.md]" {
		t.Fatalf("found %s", got)
	}
	if st := e.Stats(); st != (Stats{}) {
		t.Fatalf("stats %+v", st)
	}
}

// TestAddConcurrent checks that engines changing one index at once (as
// separate processes would) lose none of each other's documents.
func TestAddConcurrent(t *testing.T) {
	_, fs := testRoot(t)
	e0 := testEngine(t, fs)
	t.Run("adds", func(t *testing.T) {
		for i := range 8 {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				e := New(e0.o)
				if _, err := e.Add(context.Background(), search.Doc{ID: fmt.Sprint("d", i), Content: "shared term", Source: -1}); err != nil {
					t.Error(err)
				}
			})
		}
	})
	if got := e0.Stats().Documents; got != 8 {
		t.Fatalf("%d documents after 8 concurrent adds", got)
	}
}

func TestCountFiles(t *testing.T) {
	root, fs := testRoot(t, "a", ".hidden", "d/b", "d/e/c")
	must(t, os.Symlink(filepath.Join(root, "d"), filepath.Join(root, "link")))
	// A symlinked directory is neither counted nor entered.
	if n := CountFiles(context.Background(), fs); n != 4 {
		t.Fatalf("%d files", n)
	}
}
