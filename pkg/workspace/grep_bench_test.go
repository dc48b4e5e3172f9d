package workspace

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// benchTree opens a workspace over the directory named by the environment
// variable env, or skips the benchmark (which would do what) when it is
// not set.
func benchTree(b *testing.B, env, what string) *Workspace {
	b.Helper()
	root := os.Getenv(env)
	if root == "" {
		b.Skipf("set %s to a directory to %s", env, what)
	}
	w, err := New(Options{Root: root, StateDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { w.Close() })
	return w
}

// BenchmarkGrepTree searches the tree named by WS_BENCH_TREE (e.g. a copy
// of $(go env GOROOT)/src); bench/grep.sh compares whole processes.
func BenchmarkGrepTree(b *testing.B) {
	w := benchTree(b, "WS_BENCH_TREE", "search")
	for _, pattern := range []string{"ErrUnexpectedEOF", `func \w+Context\(`} {
		b.Run(pattern, func(b *testing.B) {
			for b.Loop() {
				if _, err := w.Grep(context.Background(), GrepRequest{Pattern: pattern}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkListTree lists the tree named by WS_BENCH_LS_TREE completely.
func BenchmarkListTree(b *testing.B) {
	w := benchTree(b, "WS_BENCH_LS_TREE", "list")
	depth := 100.0
	for b.Loop() {
		if _, err := w.List(context.Background(), ListRequest{MaxDepth: &depth}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGrepNoMatchGit times a search that finds nothing in a small
// repository whose .git holds 3000 loose objects: the probe for the .git
// hint leaves the object store out (it opened every object before).
func BenchmarkGrepNoMatchGit(b *testing.B) {
	root := b.TempDir()
	for i := range 50 {
		write(b, filepath.Join(root, "src", fmt.Sprintf("f%d.go", i)), "package src\n\nfunc F() {}\n")
	}
	write(b, filepath.Join(root, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n")
	blob := bytes.Repeat([]byte{0x78, 0x01, 0x9c, 0x00}, 64)
	for i := range 3000 {
		write(b, filepath.Join(root, ".git", "objects", fmt.Sprintf("%02x", i%256), fmt.Sprintf("%038x", i)), string(blob))
	}
	w, err := New(Options{Root: root, StateDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	for b.Loop() {
		res, err := w.Grep(context.Background(), GrepRequest{Pattern: "NotAnywhere"})
		if err != nil || len(res.Matches) != 0 {
			b.Fatal(err, res)
		}
	}
}

func write(b *testing.B, name, content string) {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
}
