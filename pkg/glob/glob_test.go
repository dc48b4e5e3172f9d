package glob

import (
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	// Each case: pattern, path, whether dot names may match, and the answer.
	for _, c := range []string{
		"docs/**/*.md      docs/a.md          nodot  match",
		"docs/**/*.md      docs/x/y/a.md      nodot  match",
		"docs/**/*.md      docs/.hidden/a.md  nodot  no",
		"docs/**/*.md      docs/.a.md         nodot  no",
		"docs/**/*.md      docs/.a.md         dot    match",
		"docs/.*.md        docs/.a.md         nodot  match",
		"./docs/*.md       docs/a.md          nodot  match",
		"*.go              src/a.go           nodot  no",
		"**/SKILL.md       skills/x/SKILL.md  dot    match",
	} {
		f := strings.Fields(c)
		if got := Match(f[0], f[1], f[2] == "dot"); got != (f[3] == "match") {
			t.Errorf("Match(%q, %q, %s) = %v", f[0], f[1], f[2], got)
		}
	}
	if Base("docs/**/*.md") != "docs" || Base("**/*.md") != "." || Base("./docs/*.md") != "./docs" || Base("docs") != "docs" {
		t.Error("Base")
	}
}

func TestEscape(t *testing.T) {
	// Each case: a name, and a path its escaped form must not match.
	for _, c := range []struct{ name, other string }{
		{"app/[slug]", "app/s"},
		{"a*b", "axxb"},
		{"q?.txt", "qa.txt"},
		{"{a,b}.go", "a.go"},
		{`back\slash`, "backslash"},
		{"plain", "plainer"},
	} {
		p := Escape(c.name)
		if !Match(p, c.name, true) {
			t.Errorf("Escape(%q) = %q does not match the name", c.name, p)
		}
		if Match(p, c.other, true) {
			t.Errorf("Escape(%q) = %q matches %q", c.name, p, c.other)
		}
	}
}
