package workspace

import (
	"context"
	"os"
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
