package editmatch

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// bigFile is about 50 MB of indented code-like lines.
var bigFile = sync.OnceValue(func() []byte {
	b := make([]byte, 0, 51<<20)
	for i := 0; len(b) < 50<<20; i++ {
		switch i % 5 {
		case 0:
			b = fmt.Appendf(b, "func handler%d(w http.ResponseWriter, r *http.Request) {\n", i)
		case 1:
			b = fmt.Appendf(b, "\tif err := check(r, %d); err != nil {\n", i)
		case 2:
			b = fmt.Appendf(b, "\t\treturn fmt.Errorf(\"handler %d: %%w\", err)\n", i)
		case 3:
			b = fmt.Appendf(b, "\t}\n")
		default:
			b = fmt.Appendf(b, "}\n")
		}
	}
	return b
})

// nearEnd returns the number of a "return" line near the end of bigFile.
func nearEnd(b []byte) int {
	n := 0
	for i := range b {
		if b[i] == '\n' {
			n++
		}
	}
	n -= 100
	return n - n%5 + 2
}

func benchApply(b *testing.B, old, new string) {
	c := bigFile()
	b.SetBytes(int64(len(c)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, err := Apply(c, old, new, false)
		if err != nil || m.Count != 1 {
			b.Fatalf("%v", err)
		}
	}
}

func BenchmarkApply50MBExact(b *testing.B) {
	i := nearEnd(bigFile())
	benchApply(b, fmt.Sprintf("\t\treturn fmt.Errorf(\"handler %d: %%w\", err)\n", i),
		fmt.Sprintf("\t\treturn fmt.Errorf(\"handler %d failed: %%w\", err)\n", i))
}

// One line, given with spaces where the file has tabs: the indentation
// fallback, re-indenting new_string.
func BenchmarkApply50MBFallbackIndent(b *testing.B) {
	i := nearEnd(bigFile())
	benchApply(b, fmt.Sprintf("        return fmt.Errorf(\"handler %d: %%w\", err)\n", i),
		fmt.Sprintf("        return fmt.Errorf(\"handler %d failed: %%w\", err)\n", i))
}

// Two lines with a curly quote and a trailing space: the unicode fallback.
func BenchmarkApply50MBFallbackUnicode(b *testing.B) {
	i := nearEnd(bigFile())
	benchApply(b, fmt.Sprintf("\tif err := check(r, %d); err != nil { \n\t\treturn fmt.Errorf(\u201chandler %d: %%w\", err)", i-1, i),
		fmt.Sprintf("\tif err := check(r, %d); err != nil {\n\t\treturn nil", i-1))
}

// Not found: the search, the diagnosis and the already-applied check.
func BenchmarkApply50MBNotFound(b *testing.B) {
	c := bigFile()
	i := nearEnd(c)
	old := fmt.Sprintf("\t\treturn fmt.Errorf(\"handler %d: %%v\", err)", i)
	b.SetBytes(int64(len(c)))
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		if _, err := Apply(c, old, "x", false); err == nil {
			b.Fatal("applied")
		}
	}
}

// The baseline: reading and writing the same bytes.
func BenchmarkReadWrite50MB(b *testing.B) {
	c := bigFile()
	p := filepath.Join(b.TempDir(), "big.go")
	if err := os.WriteFile(p, c, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(c)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, d, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}
