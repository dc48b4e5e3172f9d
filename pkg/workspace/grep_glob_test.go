package workspace

import (
	"context"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/internal/needtool"
)

// TestGrepGlobsAsRipgrep holds the files ws grep -l takes with -g globs
// (and -t) to the ones rg -l takes, on a small tree with a .gitignore,
// dot names and nested directories: the fixed cases the QA pass found
// (-g '!node_modules' leaves the directory out; the last glob that
// matches wins; a whitelist glob stands over .gitignore and dot names),
// then random lists of globs. It needs rg; WS_REQUIRE_RG=1 fails rather
// than skips without it.
func TestGrepGlobsAsRipgrep(t *testing.T) {
	rg := needtool.Path(t, "rg", "WS_REQUIRE_RG")
	files := []string{"node_modules/p/i.js", "node_modules/p/deep/m.go", "src/a.js", "src/b.go", "src/node_modules/x.js",
		"src/lib/c.md", "main.go", "x.go", ".env", ".hid/h.go", "src/app.log", "logs/l.txt", "r.md", "docs/src/d.txt"}
	w, root := newTestWorkspace(t, nil)
	for _, f := range files {
		must(t, os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755))
		must(t, os.WriteFile(filepath.Join(root, f), []byte("KEY\n"), 0o644))
	}
	must(t, os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.log\nlogs/\n"), 0o644))
	must(t, os.Mkdir(filepath.Join(root, ".git"), 0o755)) // rg reads .gitignore inside a repository only
	check := func(globs, types []string) {
		t.Helper()
		res, err := w.Grep(context.Background(), GrepRequest{Pattern: "KEY", FilesOnly: true, Globs: globs, Types: types})
		must(t, err)
		var got []string
		for _, m := range res.Matches {
			got = append(got, string(m.Path))
		}
		args := []string{"--no-config", "-l"}
		for _, g := range globs {
			args = append(args, "-g", g)
		}
		for _, ty := range types {
			args = append(args, "-t", ty)
		}
		cmd := exec.Command(rg, append(args, "KEY")...)
		cmd.Dir = root
		out, err := cmd.Output()
		// rg exits 1 when nothing matched, 2 (saying so) when the globs
		// left no file to search.
		if ee, ok := err.(*exec.ExitError); err != nil && !(ok && (ee.ExitCode() == 1 || strings.Contains(string(ee.Stderr), "No files were searched"))) {
			t.Fatalf("rg %q: %v: %s", args, err, ee.Stderr)
		}
		want := strings.Fields(string(out))
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("-g %q -t %q:\nws: %q\nrg: %q", globs, types, got, want)
		}
	}
	for _, globs := range [][]string{
		{"!node_modules"}, {"!node_modules/"}, {"!*.go", "main.go"}, {"main.go", "!*.go"}, {"*.log"}, {".env"},
		{"!src"}, {"src/*.js"}, {"/src/*.js"}, {"**/p/*"}, {"!node_modules", "**/i.js"}, {"node_modules/**"},
		{"!node_modules/**"}, {".*"}, {"src/"}, {"!src/", "src/b.go"}, {"logs/*"}, {"*.md", "!lib"},
	} {
		check(globs, nil)
	}
	check([]string{"*.md"}, []string{"go"})
	check([]string{"!x.go"}, []string{"go"})
	pool := []string{"*.go", "!*.go", "*.js", "!*.js", "!node_modules", "node_modules", "!src/", "src/**", "!**/p/*",
		"*.md", "!docs", "docs/**", ".*", "!.*", "*.log", "!src/*.js", "src/*", "l*", "!*.txt", "m*"}
	rng := rand.New(rand.NewSource(7))
	for range 150 {
		var globs []string
		for range 1 + rng.Intn(3) {
			globs = append(globs, pool[rng.Intn(len(pool))])
		}
		check(globs, nil)
	}
}
