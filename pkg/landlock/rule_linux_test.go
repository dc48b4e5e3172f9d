package landlock

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestAddRuleFollowsNoSymlink: a rule is set on the real path ws checked;
// a symlink found on its way at launch was made since (by a confined
// command, to be granted what it points to) and is refused, not followed.
// A missing path is still skipped.
func TestAddRuleFollowsNoSymlink(t *testing.T) {
	if _, err := ABI(); err != nil {
		t.Skip(err)
	}
	d := t.TempDir()
	outside := filepath.Join(d, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(d, "link")); err != nil {
		t.Fatal(err)
	}
	attr := unix.LandlockRulesetAttr{Handled_access_fs: fsABI1}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		t.Skip(errno)
	}
	defer unix.Close(int(fd))
	for _, tc := range []struct {
		path    string
		wantErr string
	}{
		{path: outside},
		{path: filepath.Join(d, "missing")},
		{path: filepath.Join(d, "link"), wantErr: "a symlink was made on its way"},
		{path: filepath.Join(d, "link", "sub"), wantErr: "a symlink was made on its way"},
	} {
		err := addRule(int(fd), tc.path, fsABI1)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("addRule(%s): %v", tc.path, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("addRule(%s) = %v, want an error saying %q", tc.path, err, tc.wantErr)
		}
	}
}
