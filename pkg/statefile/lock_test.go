package statefile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.lock")
	l, err := Acquire(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := Acquire(path, 30*time.Millisecond); !errors.Is(err, ErrLockTimeout) {
		t.Fatalf("second Acquire: %v, want ErrLockTimeout", err)
	}
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Errorf("gave up after %v, before the timeout", d)
	}
	if _, ok := TryAcquire(path); ok {
		t.Error("TryAcquire took a held lock")
	}
	done := make(chan error)
	go func() {
		l2, err := Acquire(path, 5*time.Second)
		l2.Release()
		done <- err
	}()
	time.Sleep(10 * time.Millisecond)
	l.Release()
	l.Release() // twice is harmless
	if err := <-done; err != nil {
		t.Fatalf("waiting Acquire: %v", err)
	}
	s1, err := AcquireSharedWait(context.Background(), path, 0)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := AcquireSharedWait(context.Background(), path, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := TryAcquire(path); ok {
		t.Error("TryAcquire took a lock held shared")
	}
	s1.Release()
	s2.Release()
	l3, ok := TryAcquire(path)
	if !ok {
		t.Fatal("TryAcquire of a free lock failed")
	}
	l3.Release()
	if _, ok := TryAcquire(filepath.Join(t.TempDir(), "missing")); ok {
		t.Error("TryAcquire created a lock file")
	}
}

// Is tells a lock on the file at its path from one on a file that was
// removed, or replaced by another, after it was opened.
func TestLockIs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	l, err := Acquire(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if !l.Is(path) {
		t.Error("Is is false for the file just locked")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if l.Is(path) {
		t.Error("Is is true for a removed file")
	}
	l2, err := Acquire(path, 0) // a new file: not held by l
	if err != nil {
		t.Fatalf("the new file is held: %v", err)
	}
	defer l2.Release()
	if l.Is(path) || !l2.Is(path) {
		t.Errorf("after the file was made again: old lock %v, new lock %v; want false, true", l.Is(path), l2.Is(path))
	}
	l.Release()
	if l.Is(path) {
		t.Error("Is is true for a released lock")
	}
}
