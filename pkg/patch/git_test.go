package patch

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// TestGitDiffs applies the output of a real git (testdata/git/*, made by
// testdata/git/gen.sh) to the files it was made from, and checks that the
// result is the files git diffed against.
func TestGitDiffs(t *testing.T) {
	for _, c := range gitCases(t) {
		t.Run(filepath.Base(c.dir), func(t *testing.T) {
			before, after := readTree(t, filepath.Join(c.dir, "before")), readTree(t, filepath.Join(c.dir, "after"))
			p := mustParse(t, c.diff)
			if p.Format != FormatUnified {
				t.Errorf("Format = %q", p.Format)
			}
			changes, err := p.Plan(mapReader(before))
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			got := applyChanges(before, changes)
			if !equalTrees(got, after) {
				t.Errorf("result:\n%s\nwant:\n%s", dumpTree(got), dumpTree(after))
			}
		})
	}
}

// gitCase is one case of testdata/git: git's patch.diff, and the
// directory that holds it with before/ and after/.
type gitCase struct {
	dir, diff string
}

// gitCases reads the cases of testdata/git.
func gitCases(tb testing.TB) []gitCase {
	tb.Helper()
	diffs, err := filepath.Glob(filepath.Join("testdata", "git", "*", "patch.diff"))
	if err != nil || len(diffs) == 0 {
		tb.Fatalf("no cases: %v", err)
	}
	cases := make([]gitCase, len(diffs))
	for i, d := range diffs {
		b, err := os.ReadFile(d)
		if err != nil {
			tb.Fatal(err)
		}
		cases[i] = gitCase{dir: filepath.Dir(d), diff: string(b)}
	}
	return cases
}

func readTree(t *testing.T, root string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return files
}

// mapReader is a read function for Plan over an in-memory tree.
func mapReader(files map[string][]byte) func(string) ([]byte, bool, error) {
	return func(p string) ([]byte, bool, error) {
		b, ok := files[p]
		return b, ok, nil
	}
}

// applyChanges does to a copy of files what a caller of Plan would do.
func applyChanges(files map[string][]byte, changes []Change) map[string][]byte {
	out := map[string][]byte{}
	for k, v := range files {
		out[k] = v
	}
	for _, c := range changes {
		switch {
		case c.Op == Delete:
			delete(out, c.Path)
		case c.MoveTo != "":
			delete(out, c.Path)
			out[c.MoveTo] = c.New
		default:
			out[c.Path] = c.New
		}
	}
	return out
}

func equalTrees(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}

func dumpTree(files map[string][]byte) string {
	var names []string
	for k := range files {
		names = append(names, k)
	}
	sort.Strings(names)
	var b bytes.Buffer
	for _, n := range names {
		b.WriteString("== " + n + "\n")
		b.WriteString(quoteLines(files[n]))
	}
	return b.String()
}

func quoteLines(b []byte) string {
	var out bytes.Buffer
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if len(l) > 0 {
			out.WriteString("  " + strconvQuote(l) + "\n")
		}
	}
	return out.String()
}
