// Package testfs makes the files and directories tests work on, failing
// the test on any error: the helpers every package's tests wrote again.
package testfs

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// Write makes the file at path with content (mode 0644), replacing it.
func Write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Mkdir makes each directory with its missing parents (mode 0755).
func Mkdir(t testing.TB, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// SmallFS mounts a tmpfs of size (as mount(8) takes it: "256k") on dir,
// for a test that fills its file system, and unmounts it when the test
// ends. Only root may mount one: elsewhere the test is skipped.
func SmallFS(t testing.TB, dir, size string) {
	t.Helper()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("no tmpfs of %s to fill: %v", size, err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
}
