package fsroot

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/internal/testfs"
	"golang.org/x/sys/unix"
)

// TestWriteInPlaceDiskFull checks that a file rewritten in place on a full
// disk keeps its old content: the room for the new content is taken before
// the file is touched. Before, the file was truncated first and the write
// then failed part way, so the old content was gone and the new one cut.
// It mounts a small tmpfs, so it needs root (CI runs as root).
func TestWriteInPlaceDiskFull(t *testing.T) {
	dir := t.TempDir()
	testfs.SmallFS(t, dir, "512k")
	old := bytes.Repeat([]byte("old content\n"), 10<<10/12) // about 10 KiB
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "f.txt"), old, 0o644))
	// Fill the disk to the last block.
	filler, err := os.Create(filepath.Join(dir, "filler"))
	must(err)
	block := make([]byte, 4096)
	for {
		if _, err := filler.Write(block); err != nil {
			if !errors.Is(err, unix.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	filler.Close()
	pfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	must(err)
	defer unix.Close(pfd)

	bigger := strings.Repeat("new, longer content\n", 100<<10/20) // about 100 KiB: no room
	_, err = writeInPlace(pfd, "f.txt", strings.NewReader(bigger), WriteOptions{})
	if !errors.Is(err, unix.ENOSPC) {
		t.Fatalf("writing more than the disk holds: %v, want ENOSPC", err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "f.txt"))
	must(err)
	if !bytes.Equal(got, old) {
		t.Fatalf("after the failed write the file holds %d bytes (%.20q…), want its old %d bytes", len(got), got, len(old))
	}

	// What fits in the file's own blocks is written, and the file cut to it.
	shorter := "short now\n"
	if _, err := writeInPlace(pfd, "f.txt", strings.NewReader(shorter), WriteOptions{}); err != nil {
		t.Fatalf("a shorter content on a full disk: %v", err)
	}
	got, err = os.ReadFile(filepath.Join(dir, "f.txt"))
	must(err)
	if string(got) != shorter {
		t.Fatalf("file holds %q, want %q", got, shorter)
	}
}
