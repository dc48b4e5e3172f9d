package glob

import "testing"

// FuzzMatch: any pattern against any path, with or without dot, answers
// without a panic, and the same way twice; Base never panics either.
func FuzzMatch(f *testing.F) {
	f.Add("**/*.go", "a/b/c.go", false)
	f.Add("{a,b}/[x-z]?.txt", "./b/y1.txt", true)
	f.Add("[", "[", false)
	f.Add("a/**/", "a/.hidden/x", false)
	f.Add("\\*{", "*{", true)
	f.Add("{{{{{{a}}}}}}", "a", false)
	f.Fuzz(func(t *testing.T, pattern, path string, dot bool) {
		got := Match(pattern, path, dot)
		if Match(pattern, path, dot) != got {
			t.Fatalf("Match(%q, %q) changed between two calls", pattern, path)
		}
		_ = Base(pattern)
		_ = Has(pattern)
	})
}
