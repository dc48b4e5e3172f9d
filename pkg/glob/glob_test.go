package glob

import "testing"

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, path string
		dot, want     bool
	}{
		{"docs/**/*.md", "docs/a.md", false, true},
		{"docs/**/*.md", "docs/x/y/a.md", false, true},
		{"docs/**/*.md", "docs/.hidden/a.md", false, false},
		{"docs/**/*.md", "docs/.a.md", false, false},
		{"docs/**/*.md", "docs/.a.md", true, true},
		{"docs/.*.md", "docs/.a.md", false, true},
		{"./docs/*.md", "docs/a.md", false, true},
		{"*.go", "src/a.go", false, false},
		{"**/SKILL.md", "skills/x/SKILL.md", true, true},
	}
	for _, tt := range tests {
		if got := Match(tt.pattern, tt.path, tt.dot); got != tt.want {
			t.Errorf("Match(%q, %q, dot=%v) = %v", tt.pattern, tt.path, tt.dot, got)
		}
	}
	if Base("docs/**/*.md") != "docs" || Base("**/*.md") != "." || Base("./docs/*.md") != "./docs" || Base("docs") != "docs" {
		t.Error("Base")
	}
}
