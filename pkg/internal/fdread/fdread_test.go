package fdread

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadFile reads files of sizes around the first buffer's, a file
// whose size fstat does not give (as in /proc), and the errors of one that
// is not there and of a directory.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 511, 512, 513, 100_000} {
		p := filepath.Join(dir, fmt.Sprint("f", n))
		want := bytes.Repeat([]byte("0123456789abcdef"), n/16+1)[:n]
		if err := os.WriteFile(p, want, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(p)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("ReadFile(%d bytes) = %d bytes, %v", n, len(got), err)
		}
	}
	// A file whose size stat does not give (as in /proc) is read to its end.
	want, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	got, err := ReadFile("/proc/self/status")
	if err != nil || len(got) < len(want)/2 || !bytes.HasPrefix(got, []byte("Name:")) {
		t.Errorf("ReadFile(/proc/self/status) = %q, %v", got, err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(missing) error %v, want fs.ErrNotExist", err)
	}
	if _, err := ReadFile(dir); err == nil || !strings.Contains(err.Error(), "read "+dir) {
		t.Errorf("ReadFile(a directory) error %v, want a read error that names it", err)
	}
}

// TestReadAll: a file read to the size fstat gave takes one read when the
// buffer has room; one that grew since is read to its end; a buffer too
// small grows.
func TestReadAll(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		size   int64
		bufCap int
	}{{10, 64}, {10, 10}, {4, 64}, {-1, 1}, {0, 3}} {
		fd, err := syscall.Open(p, syscall.O_RDONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadAll(fd, tt.size, make([]byte, min(5, tt.bufCap), tt.bufCap))
		syscall.Close(fd)
		if err != nil || string(got) != "0123456789" {
			t.Errorf("ReadAll(size %d, cap %d) = %q, %v", tt.size, tt.bufCap, got, err)
		}
	}
}
