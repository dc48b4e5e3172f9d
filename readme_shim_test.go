package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestReadmeShim keeps the README's function-calling shim tested: its
// def ws, up to the blank line after it, must be word for word in the
// shim.py that testdata/script/call_python_shim.txtar runs.
func TestReadmeShim(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	start := strings.Index(string(readme), "def ws(*args, stdin=None):")
	if start < 0 {
		t.Fatal("README.md has no def ws(*args, stdin=None):")
	}
	def, _, _ := strings.Cut(string(readme[start:]), "\n\n")
	ar, err := txtar.ParseFile(filepath.Join("testdata", "script", "call_python_shim.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == "shim.py" {
			if !strings.Contains(string(f.Data), def+"\n") {
				t.Errorf("shim.py does not hold the README's def ws:\n%s", def)
			}
			return
		}
	}
	t.Fatal("call_python_shim.txtar has no shim.py")
}
