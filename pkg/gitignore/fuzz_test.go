package gitignore

import (
	"strings"
	"testing"
)

// FuzzParse: any .gitignore content parses without a panic, and matching
// any path against it (in the root and in a subdirectory) neither panics
// nor depends on anything but its input.
func FuzzParse(f *testing.F) {
	f.Add([]byte("*.log\n!keep.log\n/build/\n**/tmp/**\n\\#hash\n  \n"), "a/b.log", false)
	f.Add([]byte("\xef\xbb\xbfdir/\r\n[a-z]*.go\n"), "dir", true)
	f.Add([]byte("a/**/b\n!/a/x/b\n\\ \n***\n[\n\\"), "a/x/b", false)
	f.Add([]byte("foo\\\n*.[!c]\n"), "x.d", false)
	f.Fuzz(func(t *testing.T, content []byte, rel string, isDir bool) {
		m := New(Parse(content, "")...)
		first := m.Ignored(rel, isDir)
		if m.Ignored(rel, isDir) != first {
			t.Fatalf("Ignored(%q) changed between two calls", rel)
		}
		_ = m.IgnoredPath(rel, isDir)
		child := New().Child("sub", content)
		_ = child.IgnoredPath("sub/"+strings.TrimPrefix(rel, "/"), isDir)
	})
}
