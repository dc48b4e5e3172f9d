// Package testfs makes the files and directories tests work on, failing
// the test on any error: the helpers every package's tests wrote again.
package testfs

import (
	"os"
	"testing"
)

// Write makes the file at path with content (mode 0644), replacing it.
func Write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Mkdir makes each directory with its missing parents (mode 0755).
func Mkdir(t testing.TB, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}
