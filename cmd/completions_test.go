package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCompletionsCurrent fails when completions/ no longer matches what
// cobra generates from the commands. WS_UPDATE_SCRIPTS=1 rewrites them.
func TestCompletionsCurrent(t *testing.T) {
	scripts, err := Completions()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "completions")
	update := os.Getenv("WS_UPDATE_SCRIPTS") == "1"
	for name, want := range scripts {
		path := filepath.Join(dir, name)
		if update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v (run WS_UPDATE_SCRIPTS=1 go test ./cmd to generate it)", path, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run WS_UPDATE_SCRIPTS=1 go test ./cmd and commit the result", path)
		}
	}
}
