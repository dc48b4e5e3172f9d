package workspace

import (
	"context"
	"os"
	"testing"
)

// BenchmarkGrepTree searches the tree named by WS_BENCH_TREE (e.g. a copy
// of $(go env GOROOT)/src); bench/grep.sh compares whole processes.
func BenchmarkGrepTree(b *testing.B) {
	root := os.Getenv("WS_BENCH_TREE")
	if root == "" {
		b.Skip("set WS_BENCH_TREE to a directory to search")
	}
	w, err := New(Options{Root: root, StateDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
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
	root := os.Getenv("WS_BENCH_LS_TREE")
	if root == "" {
		b.Skip("set WS_BENCH_LS_TREE to a directory to list")
	}
	w, err := New(Options{Root: root, StateDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	depth := 100.0
	for b.Loop() {
		if _, err := w.List(context.Background(), ListRequest{MaxDepth: &depth}); err != nil {
			b.Fatal(err)
		}
	}
}
