package history

import (
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkCommitFull records into a store at its entry cap, so that each
// commit also drops the oldest change and collects its blob.
func BenchmarkCommitFull(b *testing.B) {
	s := Open(filepath.Join(b.TempDir(), "history"), Options{})
	prev := AbsentState()
	record := func(i int) {
		data := []byte(fmt.Sprintf("version %d", i))
		p, err := s.Begin(OpWrite, Change{Key: "/ws/a", Path: "a", Before: prev})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Commit(FileFingerprint(data, 1)); err != nil {
			b.Fatal(err)
		}
		prev = FileState(data, 0o644, 1)
	}
	for i := range DefaultMaxEntries {
		record(i)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		record(DefaultMaxEntries + i)
	}
}

// BenchmarkLastFull reads the newest entry of a file in a full store.
func BenchmarkLastFull(b *testing.B) {
	s := Open(filepath.Join(b.TempDir(), "history"), Options{})
	for i := range DefaultMaxEntries {
		p, err := s.Begin(OpWrite, Change{Key: fmt.Sprintf("/ws/f%d", i), Path: "f", Before: AbsentState()})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := p.Commit(AbsentFingerprint()); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if e, err := s.Last("/ws/f0"); err != nil || e == nil {
			b.Fatal(e, err)
		}
	}
}
