package gitignore

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
)

func TestParse(t *testing.T) {
	type rule struct {
		text string
		line int
	}
	tests := []struct {
		name    string
		content string
		want    []rule
	}{
		{"empty", "", nil},
		{"comments and blank lines", "# x\n\n#y\n", nil},
		{"escapes", "\\#a\n\\!b\n!c\n", []rule{{`\#a`, 1}, {`\!b`, 2}, {"!c", 3}}},
		{"trailing spaces", "a   \nb\\ \nc\\   \nd \\\ne\\\\ \n", []rule{{"a", 1}, {`b\ `, 2}, {`c\ `, 3}, {`d \`, 4}, {`e\\`, 5}}},
		{"tabs are kept", "a\t\n", []rule{{"a\t", 1}}},
		{"leading spaces", "  #x\n", []rule{{"  #x", 1}}},
		{"CRLF", "a\r\nb\r\n\r\nc", []rule{{"a", 1}, {"b", 2}, {"", 3}, {"c", 4}}},
		{"BOM", "\xef\xbb\xbf#x\ny", []rule{{"y", 2}}},
		{"BOM then pattern", "\xef\xbb\xbfx", []rule{{"x", 1}}},
		{"NUL", "a\x00b\n\x00c\n", []rule{{"a", 1}, {"", 2}}},
		{"only spaces", "   \n", []rule{{"", 1}}},
		{"no final newline", "a\nb", []rule{{"a", 1}, {"b", 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []rule
			for _, r := range Parse([]byte(tt.content), "") {
				got = append(got, rule{r.String(), r.Line()})
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Parse(%q) = %+v, want %+v", tt.content, got, tt.want)
			}
		})
	}
}

func TestParseBase(t *testing.T) {
	for base, want := range map[string]string{
		"": "", ".": "", "./": "", "a": "a/", "a/": "a/", "./a/b": "a/b/", "a/b//": "a/b/",
	} {
		if got := Parse([]byte("x"), base)[0].Base(); got != want {
			t.Errorf("Parse(_, %q): Base() = %q, want %q", base, got, want)
		}
	}
}

func TestParseTooLarge(t *testing.T) {
	big := make([]byte, MaxFileSize)
	copy(big, "*\n")
	if rules := Parse(big, ""); rules != nil {
		t.Errorf("Parse of %d bytes: %d rules", len(big), len(rules))
	}
	// The NUL bytes make a second, empty pattern, as in git.
	if rules := Parse(big[:MaxFileSize-1], ""); len(rules) != 2 {
		t.Errorf("Parse of %d bytes: %d rules", MaxFileSize-1, len(rules))
	}
}

func TestRule(t *testing.T) {
	r := Parse([]byte("\n!build/\n"), "sub")[0]
	if !r.Negated() || !r.DirOnly() || r.Base() != "sub/" || r.Line() != 2 || r.String() != "!build/" {
		t.Errorf("rule %q: negated %v, dir only %v, base %q, line %d", r.String(), r.Negated(), r.DirOnly(), r.Base(), r.Line())
	}
	tests := []struct {
		pattern, base, rel string
		isDir              bool
		want               bool
	}{
		{"build", "", "build", false, true},
		{"build", "", "a/build", false, true},
		{"build/", "", "a/build", false, false},
		{"build/", "", "a/build", true, true},
		{"/build", "", "a/build", true, false},
		{"build", "sub", "build", false, false}, // outside sub
		{"build", "sub", "sub/build", false, true},
		{"build", "sub", "subx/build", false, false},
		{"/build", "sub", "sub/build", false, true},
		{"/build", "sub", "sub/a/build", false, false},
		{"a/b", "sub", "sub/a/b", false, true},
		{"a/b", "sub", "a/b", false, false},
		{"*.c", "", "x/y.c", false, true},
		{"x/*.c", "", "x/y/z.c", false, false},
		{"", "", "x", false, false},
		{"*", "", "", false, false},
	}
	for _, tt := range tests {
		r := compile(tt.pattern, normBase(tt.base), 1)
		if got := r.Match(tt.rel, tt.isDir); got != tt.want {
			t.Errorf("%q in %q: Match(%q, %v) = %v, want %v", tt.pattern, tt.base, tt.rel, tt.isDir, got, tt.want)
		}
	}
}

// treeFS makes a file system with the .gitignore files given by directory.
func treeFS(ignores map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for dir, content := range ignores {
		fsys[path.Join(dir, FileName)] = &fstest.MapFile{Data: []byte(content)}
	}
	return fsys
}

func TestTree(t *testing.T) {
	type check struct {
		rel   string
		isDir bool
		want  bool
	}
	tests := []struct {
		name    string
		ignores map[string]string
		checks  []check
	}{
		{"basename at any depth", map[string]string{"": "*.log\n"}, []check{
			{"a.log", false, true}, {"a/b/c.log", false, true}, {"a.log", true, true}, {"a.logx", false, false},
		}},
		{"negation", map[string]string{"": "*.log\n!keep.log\n"}, []check{
			{"a.log", false, true}, {"keep.log", false, false}, {"x/keep.log", false, false},
		}},
		{"negation before the rule it should override", map[string]string{"": "!keep.log\n*.log\n"}, []check{
			{"keep.log", false, true},
		}},
		{"anchored", map[string]string{"": "/build\n"}, []check{
			{"build", true, true}, {"build/x", false, true}, {"x/build", true, false},
		}},
		{"one level or any depth", map[string]string{"": "doc/*.txt\nsrc/**/*.txt\n"}, []check{
			{"doc/a.txt", false, true}, {"doc/x/a.txt", false, false},
			{"src/a.txt", false, true}, {"src/x/y/a.txt", false, true}, {"x/src/a.txt", false, false},
		}},
		{"directory only", map[string]string{"": "tmp/\n"}, []check{
			{"tmp", true, true}, {"tmp", false, false}, {"tmp/x", false, true}, {"a/tmp/x", false, true}, {"a/tmp", false, false},
		}},
		{"no re-inclusion below an excluded directory", map[string]string{"": "build/\n!build/keep\n"}, []check{
			{"build/keep", false, true}, {"build", true, true},
		}},
		{"re-inclusion below excluded content", map[string]string{"": "out/*\n!out/keep/\n"}, []check{
			{"out", true, false}, {"out/x", false, true}, {"out/keep", true, false}, {"out/keep/x", false, false},
		}},
		{"trailing /** keeps the directory", map[string]string{"": "c/**\n!c/k\n"}, []check{
			{"c", true, false}, {"c/x", false, true}, {"c/k", false, false}, {"c/k", true, false}, {"c/k/x", false, true},
		}},
		{"leading **/", map[string]string{"": "**/logs\n"}, []check{
			{"logs", true, true}, {"a/b/logs", true, true}, {"a/b/logs", false, true}, {"a/logsx", false, false},
		}},
		{"nested file overrides", map[string]string{"": "*.txt\n", "sub": "!*.txt\n"}, []check{
			{"a.txt", false, true}, {"sub/a.txt", false, false}, {"sub/x/a.txt", false, false}, {"subx/a.txt", false, true},
		}},
		{"nested file excludes", map[string]string{"": "!*.txt\n", "sub": "*.txt\n"}, []check{
			{"a.txt", false, false}, {"sub/a.txt", false, true},
		}},
		{"nested anchors", map[string]string{"sub": "/x\na/b\n"}, []check{
			{"sub/x", false, true}, {"sub/y/x", false, false}, {"x", false, false},
			{"sub/a/b", false, true}, {"a/b", false, false}, {"sub/c/a/b", false, false},
		}},
		{"nested file in an excluded directory", map[string]string{"": "v/\n", "v": "!*\n"}, []check{
			{"v/x", false, true}, {"v/y/x", false, true},
		}},
		{"nested file re-includes an excluded directory", map[string]string{"": "**/logs\n", "a": "!/logs\n"}, []check{
			{"logs", true, true}, {"a/logs", true, false}, {"a/logs/x", false, false}, {"a/b/logs", true, true},
		}},
		{"escapes", map[string]string{"": "\\#f\n\\!g\n#h\n"}, []check{
			{"#f", false, true}, {"!g", false, true}, {"g", false, false}, {"#h", false, false},
		}},
		{"trailing spaces", map[string]string{"": "a  \nb\\ \n"}, []check{
			{"a", false, true}, {"a ", false, false}, {"b", false, false}, {"b ", false, true},
		}},
		{"classes", map[string]string{"": "*.py[co]\n[!a]x\nf[a-c]\n"}, []check{
			{"m.pyc", false, true}, {"m.pyo", false, true}, {"m.py", false, false},
			{"bx", false, true}, {"ax", false, false}, {"fb", false, true}, {"fd", false, false},
		}},
		{"question mark", map[string]string{"": "?.c\n"}, []check{
			{"a.c", false, true}, {"ab.c", false, false}, {".c", false, false},
		}},
		{"empty patterns", map[string]string{"": "/\n!\n   \n"}, []check{
			{"a", false, false}, {"a", true, false},
		}},
		{"paths with a trailing slash are directories", map[string]string{"": "d/\n"}, []check{
			{"d/", false, true}, {"x/d/", false, true},
		}},
		{"the ** quirk", map[string]string{"": "foo**/bar\n"}, []check{
			{"foo/bar", false, true}, {"foox/y/bar", false, true}, {"foobar", false, true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := NewTree(treeFS(tt.ignores), nil)
			for _, c := range tt.checks {
				if got := tr.Ignored(c.rel, c.isDir); got != c.want {
					t.Errorf("Ignored(%q, %v) = %v, want %v", c.rel, c.isDir, got, c.want)
				}
				rel := strings.TrimSuffix(c.rel, "/")
				m := tr.Dir(path.Dir(rel))
				if got := m.IgnoredPath(c.rel, c.isDir); got != c.want {
					t.Errorf("Matcher.IgnoredPath(%q, %v) = %v, want %v", c.rel, c.isDir, got, c.want)
				}
			}
		})
	}
}

func TestTreeSkipsUnreadFiles(t *testing.T) {
	fsys := fstest.MapFS{
		".gitignore":       &fstest.MapFile{Data: []byte("a/.gitignore"), Mode: fs.ModeSymlink},
		"a/.gitignore":     &fstest.MapFile{Data: []byte("*\n")},
		"b/.gitignore/x":   &fstest.MapFile{Data: []byte("*\n")},
		"b/.gitignore/y/z": &fstest.MapFile{Data: []byte("*\n")},
	}
	tr := NewTree(fsys, nil)
	if tr.Ignored("x", false) {
		t.Error("a symbolic link .gitignore was read")
	}
	if !tr.Ignored("a/x", false) {
		t.Error("a/.gitignore was not read")
	}
	if tr.Ignored("b/x", false) {
		t.Error("a .gitignore directory was read")
	}
}

func TestMatcher(t *testing.T) {
	var nilm *Matcher
	if nilm.Ignored("a", false) || nilm.IgnoredPath("a/b", false) || nilm.Match("a", true) != nil {
		t.Error("the nil Matcher ignores")
	}
	root := New()
	if root.Child("", nil) != root || root.Child("", []byte("# only a comment\n")) != root {
		t.Error("Child without rules allocated a new Matcher")
	}
	if got := nilm.Child("a", []byte("x")); got == nil || !got.Ignored("a/x", false) {
		t.Error("Child of the nil Matcher")
	}

	m := root.Child("", []byte("*.txt\n"))
	if !m.Ignored("a.txt", false) || m.Ignored("", true) {
		t.Error("root rules")
	}
	sub := m.Child("sub", []byte("!a.txt\n"))
	if sub.Ignored("sub/a.txt", false) || !sub.Ignored("sub/b.txt", false) || !m.Ignored("sub/a.txt", false) {
		t.Error("nested rules")
	}
	// Rules of sub do not apply outside it.
	if !sub.Ignored("a.txt", false) {
		t.Error("sub's rules applied at the root")
	}
	r := sub.Match("sub/a.txt", false)
	if r == nil || r.Base() != "sub/" || !r.Negated() {
		t.Errorf("Match = %v", r)
	}

	// Global rules have the lowest precedence; later ones win.
	g := New(Parse([]byte("*.txt\n!a.txt\n*.o\n"), "")...)
	if g.Ignored("a.txt", false) || !g.Ignored("b.txt", false) {
		t.Error("global rules")
	}
	gm := g.Child("", []byte("a.txt\n!*.o\n"))
	if !gm.Ignored("a.txt", false) || gm.Ignored("x.o", false) || !gm.Ignored("b.txt", false) {
		t.Error(".gitignore over global rules")
	}

	// With keeps each rule below its own directory.
	w := New().With(append(Parse([]byte("x"), ""), Parse([]byte("!x"), "d")...)...)
	if !w.Ignored("x", false) || w.Ignored("d/x", false) || !w.Ignored("e/x", false) {
		t.Error("With")
	}
}

func TestNoAllocs(t *testing.T) {
	m := New().Child("", []byte(benchIgnore)).Child("a", []byte("!*.log\n*.py[co]\n**/x/*.c\n"))
	paths := []string{"a/b.log", "a/c/d.pyc", "a/x/y.c", "a/node_modules", "a/src/main.go"}
	n := testing.AllocsPerRun(100, func() {
		for _, p := range paths {
			m.Ignored(p, false)
			m.IgnoredPath(p, true)
		}
	})
	if n != 0 {
		t.Errorf("%v allocations", n)
	}
}

func TestMatchPath(t *testing.T) {
	m := New().Child("", []byte("build/\n!build/keep\nout/*\n!out/k/\n")).Child("out/k", []byte("!*.o\n"))
	for rel, want := range map[string]string{
		"build/keep":     "build/",
		"build/a/b/keep": "build/",
		"build":          "build/",
		"out/x":          "out/*",
		"out/k":          "!out/k/",
		"out/k/x":        "",
		"out/k/x.o":      "!*.o",
		"src/x":          "",
	} {
		r := m.MatchPath(rel, rel == "build" || rel == "out/k")
		got := ""
		if r != nil {
			got = r.String()
		}
		if got != want {
			t.Errorf("MatchPath(%q) = %q, want %q", rel, got, want)
		}
	}
}

func TestConcurrent(t *testing.T) {
	ignores := map[string]string{"": "*.o\n/build\n", "a": "!x.o\n", "a/b": "*.c\n"}
	tr := NewTree(treeFS(ignores), nil)
	m := New().Child("", []byte(ignores[""])).Child("a", []byte(ignores["a"]))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				rel := fmt.Sprintf("a/b/%d/x%d.c", g, i%7)
				if !tr.Ignored(rel, false) {
					t.Errorf("Tree.Ignored(%q) = false", rel)
				}
				if m.Ignored("a/x.o", false) || !m.Ignored("a/y.o", false) {
					t.Error("Matcher.Ignored")
				}
				tr.Dir(fmt.Sprintf("a/b/%d", i%5))
			}
		})
	}
	wg.Wait()
}
