package skills

import (
	"errors"
	"io/fs"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/search"
)

// mapFS is an in-memory FS: files by path; directories are implied.
type mapFS map[string]string

func (m mapFS) isDir(p string) bool {
	for k := range m {
		if strings.HasPrefix(k, p+"/") || p == "." {
			return true
		}
	}
	return false
}

func (m mapFS) ReadDir(p string) ([]Entry, error) {
	if !m.isDir(p) {
		return nil, fs.ErrNotExist
	}
	seen := map[string]bool{}
	var out []Entry
	prefix := p + "/"
	if p == "." {
		prefix = ""
	}
	for k := range m {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		name, rest, sub := strings.Cut(k[len(prefix):], "/")
		if !seen[name] {
			seen[name] = true
			out = append(out, Entry{Name: name, IsDir: sub && rest != ""})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (m mapFS) ReadFile(p string) ([]byte, error) {
	if c, ok := m[p]; ok {
		return []byte(c), nil
	}
	return nil, fs.ErrNotExist
}

// refused, as a file's content, makes mapFS refuse to look at that path,
// as the workspace refuses one outside its roots.
const refused = "\x00refused"

func (m mapFS) Exists(p string) (bool, error) {
	if m[p] == refused {
		return false, errors.New("Permission denied: access on " + p)
	}
	_, ok := m[p]
	return ok || m.isDir(p), nil
}

func (m mapFS) RealPath(p string) (string, error) { return p, nil }

// fixture is verify-all.mjs's skill, plus a broken one and an external
// skill of the same name.
var fixture = mapFS{
	"skills/pdf-tools/SKILL.md":                "---\nname: pdf-tools\ndescription: Work with PDF files.\n---\n\n# PDF tools\n\nUse pdftotext to extract text.\n",
	"skills/pdf-tools/references/flags.md":     "pdftotext -layout keeps the layout.\nline two\nline three\n",
	"skills/pdf-tools/scripts/run.sh":          "#!/bin/sh\necho run\n",
	"skills/pdf-tools/assets/logo.png":         "\x89PNG\r\n\x1a\n\x00",
	"skills/bad/SKILL.md":                      "---\nname: bad\ndescription: [unclosed\n---\nbody\n",
	"vendor/node_modules/x/pdf-tools/SKILL.md": "---\nname: pdf-tools\ndescription: External.\n---\nExternal layout.\n",
}

func TestMastraExamples(t *testing.T) {
	set := Discover(fixture, []string{"skills"})
	sk, err := set.Get("pdf-tools")
	if err != nil || sk == nil {
		t.Fatalf("Get: %v %v", sk, err)
	}
	if got, want := Activation(sk), "# PDF tools\n\nUse pdftotext to extract text.\n\n## References\n- references/flags.md\n\n## Scripts\n- scripts/run.sh\n\n## Assets\n- assets/logo.png"; got != want {
		t.Errorf("Activation:\n%q\nwant\n%q", got, want)
	}
	if got, want := set.NotFound("nope"), `Skill "nope" not found. Available skills: pdf-tools (skills/pdf-tools)`; got != want {
		t.Errorf("NotFound: %q", got)
	}
	if len(set.Warnings) != 1 || !strings.Contains(set.Warnings[0], "skills/bad/SKILL.md") {
		t.Errorf("warnings: %q", set.Warnings)
	}
	hits, _ := set.Search("layout", nil, 5, nil, nil)
	if got, want := FormatHits(hits), "[pdf-tools] (score: 0.80)\npdftotext -layout keeps the layout.\nline two\nline three\n"; got != want {
		t.Errorf("substring search: %q", got)
	}
	bm25 := search.DefaultParams()
	hits, _ = set.Search("layout pdftotext", nil, 5, &bm25, nil)
	if got, want := FormatHits(hits), "[pdf-tools] (lines 1-1) (score: 1.12)\npdftotext -layout keeps the layout.\nline two\nline three\n\n\n[pdf-tools] (lines 3-3) (score: 0.19)\n# PDF tools\n\nUse pdftotext to extract text."; got != want {
		t.Errorf("bm25 search: %q", got)
	}
	if hits, _ := set.Search("zebra", nil, 5, &bm25, nil); FormatHits(hits) != "No results found." {
		t.Error("no results")
	}
	two, three := 2.0, 3.0
	reads := []struct {
		path       string
		start, end *float64
		want       string
		err        string
	}{
		{"references/flags.md", &two, &three, "references/flags.md (lines 2-3 of 3)\nline two\nline three", ""},
		{"references/flags.md", nil, nil, "pdftotext -layout keeps the layout.\nline two\nline three\n", ""},
		{"assets/logo.png", nil, nil, "Binary file: skills/pdf-tools/assets/logo.png (9 bytes)", ""},
		{"references/flags.md", &three, &two, `File "references/flags.md" has 3 lines (valid range 1-3). Requested range 3-2 is empty because startLine is greater than endLine.`, ""},
		{"references/none.md", nil, nil, "", "File \"references/none.md\" not found in skill \"pdf-tools\".\nAvailable files: references/flags.md, scripts/run.sh, assets/logo.png"},
		{"../x", nil, nil, "", "Invalid asset path: ../x"},
	}
	for _, r := range reads {
		out, err := set.Read(sk, "pdf-tools", r.path, r.start, r.end)
		switch {
		case r.err != "":
			if err == nil || err.Error() != r.err {
				t.Errorf("Read(%s): err %v, want %q", r.path, err, r.err)
			}
		case err != nil:
			t.Errorf("Read(%s): %v", r.path, err)
		case out.Text != r.want:
			t.Errorf("Read(%s) = %q, want %q", r.path, out.Text, r.want)
		}
	}
}

func TestPrecedence(t *testing.T) {
	set := Discover(fixture, []string{"vendor/node_modules/x", "skills"})
	sk, err := set.Get("pdf-tools")
	if err != nil || sk.Path != "skills/pdf-tools" || sk.Source != Local {
		t.Fatalf("local should win: %+v %v", sk, err)
	}
	if sk, _ := set.Get("vendor/node_modules/x/pdf-tools/SKILL.md"); sk == nil || sk.Source != External {
		t.Fatalf("by path: %+v", sk)
	}
	twin := mapFS{
		"a/x/SKILL.md": "---\nname: x\ndescription: d\n---\nA\n",
		"b/x/SKILL.md": "---\nname: x\ndescription: d\n---\nB\n",
	}
	_, err = Discover(twin, []string{"a", "b"}).Get("x")
	var amb *ErrAmbiguous
	if !errors.As(err, &amb) || amb.Error() != `[WorkspaceSkills] Cannot resolve skill "x": multiple local skills found at "a/x", "b/x". Rename one or move it to a different source type.` {
		t.Fatalf("ambiguous: %v", err)
	}
}

// TestUnreachableReported checks that a configured path the workspace
// refuses, and a SKILL.md it cannot reach, are reported as warnings (as
// Mastra logs them), not skipped in silence; and one that does not exist
// too (Mastra skips it without a word).
func TestUnreachableReported(t *testing.T) {
	fsys := mapFS{
		"links/evil/SKILL.md":  refused, // a symlink leading out of the workspace
		"links/ok/SKILL.md":    "---\nname: ok\ndescription: d\n---\nOK\n",
		"links/ok/scripts/out": refused, // a file beyond a symlink that leads out
		"../outside":           refused,
		"/good":                refused,
		"good/g/SKILL.md":      "---\nname: g\ndescription: d\n---\nG\n",
	}
	set := Discover(fsys, []string{"links", "../outside", "/good", "missing"})
	want := []string{
		"skipping skill links/evil/SKILL.md: Permission denied: access on links/evil/SKILL.md",
		`cannot access skills path "../outside": Permission denied: access on ../outside`,
		`cannot access skills path "/good": Permission denied: access on /good (did you mean to use the relative path "good"?)`,
		`skills path "missing" does not exist: no skills are loaded from it`,
	}
	if !reflect.DeepEqual(set.Warnings, want) {
		t.Errorf("warnings:\n%q\nwant\n%q", set.Warnings, want)
	}
	sk, _ := set.Get("ok")
	if sk == nil {
		t.Fatal("the reachable skill beside the refused one was not loaded")
	}
	if _, err := set.Read(sk, "ok", "scripts/out", nil, nil); err == nil || err.Error() != "Permission denied: access on links/ok/scripts/out" {
		t.Errorf("a read the workspace refuses: %v, want its refusal (not \"not found\")", err)
	}
}

// TestSubstringSearchSkipsEmptyReferences checks Mastra's fallback: an
// empty reference file is never a hit, not even for the empty query that
// every text contains; empty instructions still are.
func TestSubstringSearchSkipsEmptyReferences(t *testing.T) {
	fsys := mapFS{
		"s/x/SKILL.md":            "---\nname: x\ndescription: d\n---\n",
		"s/x/references/a.md":     "alpha\n",
		"s/x/references/empty.md": "",
	}
	hits, err := Discover(fsys, []string{"s"}).Search("", nil, 5, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range hits {
		got = append(got, string(h.Source))
	}
	if want := []string{"SKILL.md", "references/a.md"}; !reflect.DeepEqual(got, want) {
		t.Errorf("sources %q, want %q", got, want)
	}
}

func TestFrontMatter(t *testing.T) {
	tests := []struct {
		src, body string
		data      any
		err       bool
	}{
		{"---\nname: x\n---\nbody", "body", map[string]any{"name": "x"}, false},
		{"\uFEFF---\r\nname: x\r\n---\r\n\r\nbody", "\r\nbody", map[string]any{"name": "x"}, false},
		{"no front matter", "no front matter", nil, false},
		{"----\nname: x\n", "----\nname: x\n", nil, false},
		{"---\n# only a comment\n---\nb", "b", map[string]any{}, false},
		{"---json\n{\"name\": \"x\"}\n---\nb", "b", map[string]any{"name": "x"}, false},
		{"---js\n({name: 'x'})\n---\nb", "b", nil, true},
		{"---\nname: [x\n---\nb", "b", nil, true},
		{"---\nname: x\n", "", map[string]any{"name": "x"}, false},
	}
	for _, tt := range tests {
		data, body, err := frontMatter(tt.src)
		if (err != nil) != tt.err || body != tt.body || !tt.err && !reflect.DeepEqual(data, tt.data) {
			t.Errorf("frontMatter(%q) = %#v, %q, %v", tt.src, data, body, err)
		}
	}
}

func TestValidate(t *testing.T) {
	errs, _ := validate(map[string]any{"name": "Bad--x-", "description": "  ", "license": 3, "user-invocable": "yes", "metadata": []any{}}, "dir", "")
	want := []string{
		"name: Skill name must contain only lowercase letters, numbers, and hyphens",
		"name: Skill name must not start or end with a hyphen",
		"name: Skill name must not contain consecutive hyphens",
		"description: Skill description cannot be only whitespace",
		"license: Expected string, received number",
		"user-invocable: Expected boolean, received string",
		"metadata: Expected object, received array",
		`Skill name "Bad--x-" must match directory name "dir"`,
	}
	if !reflect.DeepEqual(errs, want) {
		t.Errorf("validate:\n%q\nwant\n%q", errs, want)
	}
	_, warns := validate(map[string]any{"name": "d", "description": "x"}, "d", strings.Repeat("w\n", 600))
	if len(warns) != 1 || !strings.HasPrefix(warns[0], "Instructions have 601 lines") {
		t.Errorf("warnings: %q", warns)
	}
}

func TestToFixed2(t *testing.T) {
	for in, want := range map[float64]string{1: "1.00", 0.8: "0.80", 0.125: "0.13", 1.1234: "1.12", 0.185: "0.18", 2.675: "2.67", 0: "0.00"} {
		if got := ToFixed2(in); got != want {
			t.Errorf("ToFixed2(%v) = %s, want %s", in, got, want)
		}
	}
}
