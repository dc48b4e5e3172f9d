package listing

import (
	"context"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/internal/fsroot"
)

// tree makes the files (a trailing slash: a directory) below a new
// directory and returns the filesystem rooted there.
func tree(t *testing.T, files ...string) *fsroot.FS {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, f)
		if strings.HasSuffix(f, "/") {
			must(t, os.MkdirAll(p, 0o755))
			continue
		}
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte("x\n"), 0o644))
	}
	fsys := fsroot.New(fsroot.Options{Base: dir, Contained: true})
	t.Cleanup(func() { fsys.Close() })
	return fsys
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// list lists path below fsys with o (Name, MaxDepth and Budget filled in
// when unset).
func list(t *testing.T, fsys *fsroot.FS, path string, o Options) *Listing {
	t.Helper()
	dir, err := fsys.Resolve(path)
	must(t, err)
	if o.Name == "" {
		o.Name = path
	}
	if o.MaxDepth == 0 {
		o.MaxDepth = 2
	}
	if o.Budget == 0 {
		o.Budget = 1000
	}
	l, err := List(context.Background(), fsys, dir, o)
	must(t, err)
	return l
}

// TestListText: the text of a listing, filter by filter: directories
// first at each level, then files, in UTF-16 order, indented with tabs,
// with the summary; the depth counted as Mastra counts it.
func TestListText(t *testing.T) {
	fsys := tree(t, "b.txt", "a.go", "Z.md", "src/main.go", "src/util/deep.go", "src/util/more/deeper.go",
		"docs/", ".env", ".hidden/x", "node_modules/pkg/index.js", "app.min.js", ".git/HEAD", ".gitignore")
	must(t, os.WriteFile(filepath.Join(fsys.Base(), ".gitignore"), []byte("*.md\n"), 0o644))
	for _, tc := range []struct {
		name string
		o    Options
		want string
	}{
		{"default", Options{}, ".\ndocs\nnode_modules\n\tpkg\nsrc\n\tutil\n\tmain.go\nZ.md\na.go\napp.min.js\nb.txt\n\n" +
			"5 directories, 5 files (truncated at depth 2)"},
		{"depth 1", Options{MaxDepth: 1}, ".\ndocs\nnode_modules\nsrc\nZ.md\na.go\napp.min.js\nb.txt\n\n" +
			"3 directories, 4 files (truncated at depth 1)"},
		{"a fraction rounds up and is named as given", Options{MaxDepth: 0.5}, ".\ndocs\nnode_modules\nsrc\nZ.md\na.go\napp.min.js\nb.txt\n\n" +
			"3 directories, 4 files (truncated at depth 0.5)"},
		{"deep enough: not truncated", Options{MaxDepth: 4}, ".\ndocs\nnode_modules\n\tpkg\n\t\tindex.js\nsrc\n\tutil\n\t\tmore\n\t\t\tdeeper.go\n\t\tdeep.go\n\tmain.go\nZ.md\na.go\napp.min.js\nb.txt\n\n" +
			"6 directories, 8 files"},
		{"a depth below 1 shows nothing", Options{MaxDepth: -1}, ".\n\n0 directories, 0 files (truncated at depth -1)"},
		{"exclude: a substring of the name and a glob", Options{MaxDepth: 1, Exclude: []string{"node_", "*.min.js"}}, ".\ndocs\nsrc\nZ.md\na.go\nb.txt\n\n" +
			"2 directories, 3 files (truncated at depth 1)"},
		{"exclude without glob characters is not a path", Options{MaxDepth: 2, Exclude: []string{"src/util"}}, ".\ndocs\nnode_modules\n\tpkg\nsrc\n\tutil\n\tmain.go\nZ.md\na.go\napp.min.js\nb.txt\n\n" +
			"5 directories, 5 files (truncated at depth 2)"},
		{"exclude glob against the path below the directory", Options{MaxDepth: 4, Exclude: []string{"src/u*"}}, ".\ndocs\nnode_modules\n\tpkg\n\t\tindex.js\nsrc\n\tmain.go\nZ.md\na.go\napp.min.js\nb.txt\n\n" +
			"4 directories, 6 files"},
		{"directories only", Options{DirsOnly: true}, ".\ndocs\nnode_modules\n\tpkg\nsrc\n\tutil\n\n" +
			"5 directories, 0 files (truncated at depth 2)"},
		{"extension: files only, directories stay", Options{MaxDepth: 1, Extension: ".go"}, ".\ndocs\nnode_modules\nsrc\na.go\n\n" +
			"3 directories, 1 file (truncated at depth 1)"},
		{"pattern against the path below the directory", Options{MaxDepth: 3, Patterns: []string{"src/**/*.go"}}, ".\ndocs\nnode_modules\n\tpkg\nsrc\n\tutil\n\t\tmore\n\t\tdeep.go\n\tmain.go\n\n" +
			"6 directories, 2 files (truncated at depth 3)"},
		{"hidden names, .gitignore rules, .git left out with its hint", Options{MaxDepth: 1, Hidden: true, Gitignore: true},
			".\n.hidden\ndocs\nnode_modules\nsrc\n.env\n.gitignore\na.go\napp.min.js\nb.txt\n\n" +
				"4 directories, 5 files (truncated at depth 1)\n" +
				`hint: .git is not listed; .git directories are listed only when named (set path to ".git")`},
		{"the .git hint names ws ls with flags", Options{MaxDepth: 1, Hidden: true, Gitignore: true, Flags: true},
			".\n.hidden\ndocs\nnode_modules\nsrc\n.env\n.gitignore\na.go\napp.min.js\nb.txt\n\n" +
				"4 directories, 5 files (truncated at depth 1)\n" +
				"hint: .git is not listed; .git directories are listed only when named (ws ls .git)"},
		{"with .gitignore rules", Options{MaxDepth: 1, Gitignore: true}, ".\ndocs\nnode_modules\nsrc\na.go\napp.min.js\nb.txt\n\n" +
			"3 directories, 3 files (truncated at depth 1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := list(t, fsys, ".", tc.o)
			if l.Text != tc.want {
				t.Errorf("text:\n%s\nwant:\n%s", l.Text, tc.want)
			}
			if l.OutputCut {
				t.Error("OutputCut set, want unset")
			}
		})
	}
}

// TestListUTF16Order: names sort as JavaScript sorts them, by UTF-16
// code units, so an astral character comes before U+FF5E.
func TestListUTF16Order(t *testing.T) {
	fsys := tree(t, "\uff5e", "\U0001F600", "B", "a")
	want := ".\nB\na\n\U0001F600\n\uff5e\n\n0 directories, 4 files"
	if got := list(t, fsys, ".", Options{}).Text; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
}

// TestListCap: over the budget, the whole lines that fit are kept and
// the notice says how to narrow the listing, in the dialect asked for,
// naming the biggest top-level directory below the directory as named.
func TestListCap(t *testing.T) {
	files := []string{"small/one.txt"}
	for i := range 300 {
		files = append(files, "top/big dir/file"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+string(rune('a'+i/26))+".txt")
	}
	fsys := tree(t, files...)
	for _, tc := range []struct {
		name, path string
		o          Options
		hint       string
	}{
		{"flags", "top", Options{MaxDepth: 3, Flags: true},
			"narrow it with a path (e.g. ws ls 'top/big dir' --max-depth 3), a lower --max-depth, --pattern, --extension or --exclude"},
		{"parameters", "top", Options{MaxDepth: 3},
			`narrow it with path (e.g. path="top/big dir"), a lower maxDepth, pattern, extension or exclude`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Budget = 100
			l := list(t, fsys, tc.path, tc.o)
			if !l.OutputCut {
				t.Fatalf("not cut:\n%s", l.Text)
			}
			lines := strings.Split(l.Text, "\n")
			notice := lines[len(lines)-3]
			if !strings.HasPrefix(notice, "[output truncated: showing ") || !strings.HasSuffix(notice, " of 301 entries; "+tc.hint+"]") {
				t.Errorf("notice %q, want hint %q", notice, tc.hint)
			}
			if lines[0] != "." || lines[len(lines)-2] != "" || lines[len(lines)-1] != "1 directory, 300 files" {
				t.Errorf("text does not start with . and end with the summary:\n%s", l.Text)
			}
			if l.Files != 300 || l.Directories != 1 {
				t.Errorf("counts %d directories, %d files; want all that was listed, not what was shown", l.Directories, l.Files)
			}
		})
	}
	// With no directory to name, the hint names none.
	fsys = tree(t, "a", "b", "c")
	for _, tc := range []struct {
		flags bool
		want  string
	}{
		{true, ".\na\nb\n[output truncated: showing 2 of 3 entries; narrow it with a path, a lower --max-depth, --pattern, --extension or --exclude]\n\n0 directories, 3 files"},
		{false, ".\na\nb\n[output truncated: showing 2 of 3 entries; narrow it with path, a lower maxDepth, pattern, extension or exclude]\n\n0 directories, 3 files"},
	} {
		if got := list(t, fsys, ".", Options{Budget: 3, Flags: tc.flags}).Text; got != tc.want {
			t.Errorf("flags %v: text\n%s\nwant\n%s", tc.flags, got, tc.want)
		}
	}
	// Only the entries are charged: when they all fit and only the
	// summary goes over, nothing is cut.
	if l := list(t, fsys, ".", Options{Budget: 4}); l.OutputCut || l.Text != ".\na\nb\nc\n\n0 directories, 3 files" {
		t.Errorf("cut %v, text %q; want the whole text", l.OutputCut, l.Text)
	}
}

// TestListEntries: the entries in display order with their depth, type,
// link text and, with Long, size and time; and a stop ends the walk.
func TestListEntries(t *testing.T) {
	fsys := tree(t, "d/f.txt", "z.txt")
	base := fsys.Base()
	must(t, os.Symlink("z.txt", filepath.Join(base, "link")))
	must(t, os.Symlink("gone", filepath.Join(base, "broken")))
	must(t, os.Symlink("d", filepath.Join(base, "dl")))
	l := list(t, fsys, ".", Options{Long: true, MaxDepth: 1})
	type row struct {
		path   string
		dir    bool
		depth  int
		target string
		size   int64
	}
	var got []row
	for e := range l.Entries() {
		if !e.Stat || e.Modified == "" || !strings.HasSuffix(e.Modified, "Z") {
			t.Errorf("%s: stat %v, modified %q; want a time in UTC", e.Path, e.Stat, e.Modified)
		}
		size := e.Size
		if e.Dir {
			size = 0
		}
		got = append(got, row{e.Path, e.Dir, e.Depth, e.Target, size})
	}
	want := []row{{"d", true, 0, "", 0}, {"dl", true, 0, "d", 0}, {"broken", false, 0, "gone", int64(len("gone"))},
		{"link", false, 0, "z.txt", 2}, {"z.txt", false, 0, "", 2}}
	if len(got) != len(want) {
		t.Fatalf("entries %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	l = list(t, fsys, ".", Options{})
	var paths []string
	for e := range l.Entries() {
		if e.Stat {
			t.Errorf("%s has a stat without Long", e.Path)
		}
		paths = append(paths, e.Path+"@"+strconv.Itoa(e.Depth))
		if len(paths) == 2 {
			break
		}
	}
	if strings.Join(paths, " ") != "d@0 d/f.txt@1" {
		t.Errorf("first two entries %q, want the nested path below its directory, one level down", paths)
	}
}

// TestListIntoGit: a path into .git is listed (it was named), and the
// hint about a .git left out gives the path below the workspace root.
func TestListIntoGit(t *testing.T) {
	fsys := tree(t, ".git/HEAD", ".git/refs/heads/main", "sub/.git/HEAD", "sub/a")
	if got, want := list(t, fsys, ".git", Options{}).Text, ".\nrefs\n\theads\nHEAD\n\n2 directories, 1 file (truncated at depth 2)"; got != want {
		t.Errorf(".git: text %q, want %q", got, want)
	}
	got := list(t, fsys, "sub", Options{Hidden: true, Flags: true}).Text
	if want := ".\na\n\n0 directories, 1 file\nhint: sub/.git is not listed; .git directories are listed only when named (ws ls sub/.git)"; got != want {
		t.Errorf("sub: text %q, want %q", got, want)
	}
}

// TestListMissing: a directory that is not there fails with the walk's
// error, for the caller to give its code.
func TestListMissing(t *testing.T) {
	fsys := tree(t, "f")
	for _, p := range []string{"gone", "f"} {
		dir, err := fsys.Resolve(p)
		must(t, err)
		_, err = List(context.Background(), fsys, dir, Options{MaxDepth: 2, Budget: 1000})
		if err == nil {
			t.Errorf("%s: no error", p)
		}
		if p == "gone" && !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v, want not exist", p, err)
		}
	}
}

func TestDepthOf(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want int
	}{{2, 2}, {2.5, 3}, {0.1, 1}, {0, 0}, {-3, 0}, {math.NaN(), 0}, {math.Inf(1), 1 << 20}, {1e9, 1 << 20}} {
		if got := depthOf(tc.in); got != tc.want {
			t.Errorf("depthOf(%v) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestMatchExclude(t *testing.T) {
	for _, tc := range []struct {
		x, name, rel string
		want         bool
	}{
		{"node_modules", "node_modules", "node_modules", true},
		{"mod", "node_modules", "a/node_modules", true}, // a substring of the name
		{"a/node", "node_modules", "a/node_modules", false},
		{"*.min.js", "app.min.js", "src/app.min.js", true}, // a glob against the name
		{"src/*.js", "app.js", "src/app.js", true},         // and against the path
		{"src/*.js", "app.js", "lib/app.js", false},
		{"**/test", "test", "a/b/test", true},
		{"[", "[", "[", false}, // a broken glob matches nothing
	} {
		if got := matchExclude(tc.x, tc.name, tc.rel); got != tc.want {
			t.Errorf("matchExclude(%q, %q, %q) = %v, want %v", tc.x, tc.name, tc.rel, got, tc.want)
		}
	}
}
