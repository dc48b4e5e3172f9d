package gitignore

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/internal/testfs"
)

// The differential tests compare this package with `git check-ignore`.

// fixtureIgnores are the .gitignore files of the fixture tree, one line a
// string (so that trailing spaces stay visible).
var fixtureIgnores = map[string][]string{
	"": {
		"# a comment, then a blank line",
		"",
		`\#file`,               // literal '#'
		`\!important`,          // literal '!'
		" #lead",               // not a comment: the line starts with a space
		"*.log",                // basename at any depth...
		"!keep.log",            // ...re-included
		"/build",               // anchored: only the root's build
		"doc/*.txt",            // one level below doc only
		"doc/**/*.md",          // any depth below doc
		"doc2/**/*.txt",        // any depth below doc2, doc2/x.txt too
		"**/logs",              // files and directories named logs anywhere
		"cache/**",             // everything inside cache, not cache itself
		"!cache/keep",          // re-includes the directory, not its content
		"a/**/b",               // a/b, a/x/b, a/x/y/b
		"tmp/",                 // directories named tmp only
		"*.py[co]",             // class
		"file[a-c].dat",        // range
		"[!a]x.bin",            // negated class
		"[^b]y.bin",            // negated class, other spelling
		"?.one",                // '?' is one character
		"trail1   ",            // trailing spaces trimmed
		`trail2\ `,             // escaped trailing space kept
		`trail3\   `,           // one escaped space kept, the rest trimmed
		"name with spaces.txt", // inner spaces
		"spa ce/",              // directory with a space
		"onlydir/",             // trailing slash: files named onlydir stay
		"negdir/",              // a directory pattern...
		"!negdir/",             // ...negated again
		"vendor/",              // excluded directory...
		"!vendor/keep.go",      // ...whose files cannot be re-included
		"reinc/",
		"!reinc/inner.txt",
		"out/*",      // content of out...
		"!out/keep/", // ...but a directory in it is re-included
		"foo**/bar",  // git quirk: the "**" acts as a leading "**/"
		"**/deep/**/x.txt",
		"*.[oa]",
		"[[:digit:]]*.num",
		"unclosed[",  // malformed class: never matches
		`endslash\`,  // trailing backslash: never matches
		"crlf.txt\r", // CRLF line ending
		"/sub/local-root",
		"*.d/",
		"!keep.d/",
		`\[lit\].txt`,
		`back\\slash`,
		"z/**/", // every directory below z, not z's files
		"gen/**",
		"!gen/**/",
		"!gen/**/*.keep",
		"   ",           // only spaces: an empty pattern
		"!",             // an empty negated pattern
		"/",             // an empty directory pattern
		"*.tmp\x00junk", // git stops at a NUL byte
	},
	"sub": {
		"!*.log", // overrides the root's *.log below sub
		"/local", // anchored to sub
		"*.txt",
		"!keep.txt",
		"tmp", // files named tmp too, below sub
		"!build",
		"deeper/*.md",
		"dump/**",        // the content of sub/dump, at any depth...
		"!dump/keep.txt", // ...but this file
	},
	"sub/deeper": {
		"!*.txt", // re-includes what sub excluded
		"important.txt",
		"!/logs", // re-includes a directory the root excluded with **/logs
		"!/tmp/",
	},
	"doc": {
		"!keep.txt", // the root's doc/*.txt excluded it
		"sub/x.txt",
	},
	"vendor": {
		"!*", // in an excluded directory: no effect
	},
	"out/keep": {
		"*.log",
		"!a.log",
	},
	"gen/a": {
		"!x.txt",
	},
	"q": {
		"\xef\xbb\xbf# a BOM, then a comment",
		"*.one\r",
		"!1.one\r",
		"deep/\r",
	},
}

var fixtureDirs = []string{
	"a", "a/b", "a/x", "a/x/b", "a/x/y", "a/x/y/b", "x/a", "x/a/b",
	"doc", "doc/sub", "doc/sub/deep",
	"sub", "sub/deeper", "sub/deeper/logs", "sub/deeper/tmp", "sub/local",
	"sub/tmp", "sub/build", "sub/logs", "sub/logs/in", "sub/dump", "sub/dump/in",
	"doc2", "doc2/a", "doc2/a/b",
	"build", "x", "x/build", "x/tmp", "x/logs", "logs", "logs/inner",
	"cache", "cache/keep", "cache/other",
	"tmp", "negdir", "x/negdir", "vendor", "vendor/sub", "reinc",
	"out", "out/keep", "out/other",
	"foox", "foox/y", "foo", "foobar",
	"deep", "deep/m", "deep/m/n", "q", "q/deep", "q/deep/r",
	"a.d", "keep.d", "x/a.d",
	"onlydir", "x/onlydir", "spa ce", "dir with space", "dir with space/spa ce",
	"z", "z/y", "z/y/w",
	"gen", "gen/a", "gen/a/b",
}

var fixtureFiles = []string{
	"a.log", "keep.log", "x.txt", "keep.txt", "readme.md",
	"m.pyc", "m.pyo", "m.py",
	"filea.dat", "filec.dat", "filed.dat",
	"ax.bin", "bx.bin", "ay.bin", "by.bin",
	"1.one", "12.one",
	"trail1", "trail1 ", "trail2", "trail2 ", "trail3", "trail3 ",
	"#file", "!important", "important", "important.txt", " #lead",
	"name with spaces.txt", "name with spaces", "spa ce",
	"onlydir", "negdir", "tmp", "build", "logs", "local", "local-root",
	"b", "bar", "lib.o", "lib.a", "lib.c", "9x.num", "x9.num",
	"unclosed[", "unclosed", `endslash\`, "endslash",
	"crlf.txt", "[lit].txt", "l.txt", `back\slash`, "backslash",
	"keep.go", "inner.txt", "f.d", "x.keep", "y.tmp",
	".gitignore-not", ".hidden",
}

// gitEnv is the environment for git in the tests: no user or system
// configuration and no global excludes file.
func gitEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+home, "XDG_CONFIG_HOME="+home, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+os.DevNull, "LC_ALL=C")
}

// gitRepo makes an empty repository in a temporary directory, or skips the
// test when git is missing.
func gitRepo(t *testing.T) (dir string, env []string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	dir = t.TempDir()
	env = gitEnv(t.TempDir())
	cmd := exec.Command("git", "init", "-q", dir)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	cmd = exec.Command("git", "config", "--bool", "core.ignorecase")
	cmd.Dir, cmd.Env = dir, env
	if out, _ := cmd.Output(); strings.TrimSpace(string(out)) == "true" {
		t.Skip("case-insensitive file system")
	}
	return dir, env
}

// gitVerdict is what check-ignore -v says about one path.
type gitVerdict struct {
	source  string // "" when no pattern matches
	line    int
	pattern string
}

func (v gitVerdict) ignored() bool {
	return v.source != "" && !strings.HasPrefix(v.pattern, "!")
}

func (v gitVerdict) String() string {
	if v.source == "" {
		return "no match"
	}
	return fmt.Sprintf("%s:%d:%q", v.source, v.line, v.pattern)
}

// verdictOf turns a rule into the form of gitVerdict.
func verdictOf(r *Rule) gitVerdict {
	if r == nil {
		return gitVerdict{}
	}
	return gitVerdict{source: r.Base() + FileName, line: r.Line(), pattern: r.String()}
}

// checkIgnore runs `git check-ignore --no-index -v -n -z --stdin` in dir on
// paths and returns its verdicts, in order.
func checkIgnore(t *testing.T, dir string, env []string, paths []string) []gitVerdict {
	t.Helper()
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(p)
		in.WriteByte(0)
	}
	cmd := exec.Command("git", "check-ignore", "--no-index", "-v", "-n", "-z", "--stdin")
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		// Exit status 1 only means that nothing is ignored.
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("git check-ignore: %v\n%s", err, stderr.Bytes())
		}
	}
	fields := strings.Split(string(out), "\x00")
	if len(fields) != 4*len(paths)+1 {
		t.Fatalf("git check-ignore: %d fields for %d paths", len(fields)-1, len(paths))
	}
	verdicts := make([]gitVerdict, len(paths))
	for i := range paths {
		f := fields[4*i : 4*i+4]
		if f[3] != paths[i] {
			t.Fatalf("git check-ignore answered for %q, asked %q", f[3], paths[i])
		}
		if f[0] != "" {
			n, err := strconv.Atoi(f[1])
			if err != nil {
				t.Fatalf("git check-ignore: line %q", f[1])
			}
			verdicts[i] = gitVerdict{source: f[0], line: n, pattern: f[2]}
		}
	}
	return verdicts
}

// buildFixture creates the fixture tree in root and returns the number of
// rules of its .gitignore files.
func buildFixture(t *testing.T, root string) int {
	t.Helper()
	for _, d := range fixtureDirs {
		if err := os.MkdirAll(filepath.Join(root, filepath.FromSlash(d)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dirs := append([]string{""}, fixtureDirs...)
	for _, d := range dirs {
		for _, f := range fixtureFiles {
			name := filepath.Join(root, filepath.FromSlash(d), f)
			if _, err := os.Lstat(name); err == nil {
				continue // a directory of that name
			}
			testfs.Write(t, name, "x\n")
		}
	}
	rules := 0
	for d, lines := range fixtureIgnores {
		content := strings.Join(lines, "\n") + "\n"
		testfs.Write(t, filepath.Join(root, filepath.FromSlash(d), FileName), content)
		rules += len(Parse([]byte(content), d))
	}
	return rules
}

// entry is one path of a tree.
type entry struct {
	rel   string
	isDir bool
}

// listTree returns every path below root but .git, sorted.
func listTree(t *testing.T, root string) []entry {
	t.Helper()
	var entries []entry
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".":
			return nil
		case rel == ".git":
			return filepath.SkipDir
		}
		entries = append(entries, entry{rel, d.IsDir()})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// gitTrailingSlash is what check-ignore says for "dir/": git checks dir as
// a parent directory, then matches the path "dir/" itself, whose base name
// is empty, with dir's own .gitignore loaded too. Only a pattern that
// matches an empty name ("*", "**", an empty line...) matches there.
func gitTrailingSlash(tr *Tree, dir string) *Rule {
	if r := tr.Match(dir, true); r != nil && !r.Negated() {
		return r
	}
	return tr.Dir(dir).match(dir+"/", "", true)
}

func TestGitFixture(t *testing.T) {
	root, env := gitRepo(t)
	nrules := buildFixture(t, root)
	entries := listTree(t, root)

	var paths []string
	for _, e := range entries {
		paths = append(paths, e.rel)
	}
	var dirs []string
	for _, e := range entries {
		if e.isDir {
			dirs = append(dirs, e.rel+"/")
		}
	}
	verdicts := checkIgnore(t, root, env, append(paths, dirs...))
	slashVerdicts := verdicts[len(paths):]
	verdicts = verdicts[:len(paths)]
	t.Logf("%d rules in %d .gitignore files; %d paths (%d directories, also checked with a trailing slash)",
		nrules, len(fixtureIgnores), len(paths), len(dirs))

	tr := NewTree(os.DirFS(root), nil)
	ignoredCount := 0
	want := make(map[string]gitVerdict, len(paths))
	for i, e := range entries {
		v := verdicts[i]
		want[e.rel] = v
		if v.ignored() {
			ignoredCount++
		}
		if got := verdictOf(tr.Match(e.rel, e.isDir)); got != v {
			t.Errorf("Tree.Match(%q, %v) = %v, git: %v", e.rel, e.isDir, got, v)
		}
		if got := tr.Ignored(e.rel, e.isDir); got != v.ignored() {
			t.Errorf("Tree.Ignored(%q, %v) = %v, git: %v", e.rel, e.isDir, got, v)
		}
		m := tr.Dir(path.Dir(e.rel))
		if got := verdictOf(m.MatchPath(e.rel, e.isDir)); got != v {
			t.Errorf("Matcher.MatchPath(%q, %v) = %v, git: %v", e.rel, e.isDir, got, v)
		}
		if got := m.IgnoredPath(e.rel, e.isDir); got != v.ignored() {
			t.Errorf("Matcher.IgnoredPath(%q, %v) = %v, git: %v", e.rel, e.isDir, got, v)
		}
	}
	for i, d := range dirs {
		if got := verdictOf(gitTrailingSlash(tr, strings.TrimSuffix(d, "/"))); got != slashVerdicts[i] {
			t.Errorf("check-ignore %q: model %v, git: %v", d, got, slashVerdicts[i])
		}
		// The trailing slash only says "directory" to MatchPath.
		if got, w := verdictOf(tr.Dir(path.Dir(d[:len(d)-1])).MatchPath(d, false)), want[d[:len(d)-1]]; got != w {
			t.Errorf("Matcher.MatchPath(%q) = %v, git for the directory: %v", d, got, w)
		}
	}
	t.Logf("git ignores %d of the %d paths", ignoredCount, len(paths))
	if ignoredCount == 0 || ignoredCount == len(paths) {
		t.Fatal("degenerate fixture")
	}

	// A walker that does not enter ignored directories, with Child and
	// Ignored only, sees exactly the paths git does not ignore.
	seen := make(map[string]bool)
	var walk func(m *Matcher, dir string)
	walk = func(m *Matcher, dir string) {
		content, _ := os.ReadFile(filepath.Join(root, filepath.FromSlash(dir), FileName))
		m = m.Child(dir, content)
		des, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
		if err != nil {
			t.Fatal(err)
		}
		for _, de := range des {
			rel := path.Join(dir, de.Name())
			if rel == ".git" || m.Ignored(rel, de.IsDir()) {
				continue
			}
			seen[rel] = true
			if de.IsDir() {
				walk(m, rel)
			}
		}
	}
	walk(New(), "")
	for _, e := range entries {
		if seen[e.rel] == want[e.rel].ignored() {
			t.Errorf("walker: %q seen=%v, git: %v", e.rel, seen[e.rel], want[e.rel])
		}
	}
}

// TestGitRandom matches random patterns against random paths, one pattern
// per directory, and compares with git.
func TestGitRandom(t *testing.T) {
	root, env := gitRepo(t)
	rng := rand.New(rand.NewPCG(1, 2))
	npatterns, npaths := 300, 200
	if testing.Short() {
		npatterns, npaths = 50, 50
	}
	tokens := []string{
		"a", "b", "c", "ab", "a", "b", "a", "b", "*", "*", "**", "***", "?", "?", "/", "/", "/", "/",
		"[ab]", "[!a]", "[^b]", "[a-c]", "[]a]", "[!]]", "[a-]", "[-b]", `[\]]`,
		`\*`, `\?`, `\[`, `\a`, "[", "]", "-", `\`, " ", "!", "#",
		"[[:alpha:]]", "[[:digit:]]", "[[:punct:]]", "[[:space:]]", "[[:foo:]]",
		"[[:alpha:]", "[[:alpha]", "[[]", "[[:]", "**/", "/**", "/**/",
	}
	// Two thirds of the patterns use a few tokens only, so that they match
	// the letter-only paths often.
	simple := []string{"a", "b", "a", "b", "*", "**", "?", "/", "/", "[ab]", "[!a]", "**/", "/**", "/**/"}
	patterns := make([]string, npatterns)
	for i := range patterns {
		set := tokens
		if i%3 != 0 {
			set = simple
		}
		var sb strings.Builder
		for n := 1 + rng.IntN(6); n > 0; n-- {
			sb.WriteString(set[rng.IntN(len(set))])
		}
		patterns[i] = sb.String()
	}
	// Half the paths use letters only, so that patterns often match.
	alphabets := []string{"ab", "aabbc*?[]!-\\ #"}
	seen := make(map[string]bool)
	var paths []string
	for len(paths) < npaths {
		alphabet := alphabets[len(paths)%2]
		var segs []string
		for n := 1 + rng.IntN(4); n > 0; n-- {
			seg := make([]byte, 1+rng.IntN(2+len(alphabet)/8))
			for i := range seg {
				seg[i] = alphabet[rng.IntN(len(alphabet))]
			}
			segs = append(segs, string(seg))
		}
		if p := strings.Join(segs, "/"); !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}

	var all []string
	for i, pat := range patterns {
		d := fmt.Sprintf("r%03d", i)
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
		testfs.Write(t, filepath.Join(root, d, FileName), pat+"\n")
		for _, p := range paths {
			all = append(all, d+"/"+p)
		}
	}
	verdicts := checkIgnore(t, root, env, all)
	tr := NewTree(os.DirFS(root), nil)
	matched, bad := 0, 0
	for i, p := range all {
		// The paths do not exist: git takes them for files, and their
		// parents for directories.
		got := verdictOf(tr.Match(p, false))
		if got != verdicts[i] {
			if bad++; bad <= 50 {
				t.Errorf("pattern %q, path %q: %v, git: %v", patterns[i/len(paths)], p[5:], got, verdicts[i])
			}
		}
		if verdicts[i].source != "" {
			matched++
		}
	}
	t.Logf("%d patterns x %d paths: git matched %d of %d", npatterns, npaths, matched, len(all))
	if bad > 0 {
		t.Errorf("%d disagreements", bad)
	}
	if matched == 0 {
		t.Fatal("no path matched")
	}
}

// TestGitFixtureRulesCount keeps the fixture as rich as promised.
func TestGitFixtureRulesCount(t *testing.T) {
	n := 0
	for d, lines := range fixtureIgnores {
		n += len(Parse([]byte(strings.Join(lines, "\n")), d))
	}
	if n < 30 {
		t.Errorf("fixture has %d rules", n)
	}
	if !slices.Contains(fixtureIgnores[""], "/build") {
		t.Error("fixture lost /build")
	}
}
