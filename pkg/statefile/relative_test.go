package statefile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"testing"
)

func TestRelative(t *testing.T) {
	for _, tc := range []struct {
		dir  string
		err  error
		want string
	}{
		{"/s/st", &fs.PathError{Op: "mkdir", Path: "/s/st/reads", Err: syscall.ENOTDIR}, "mkdir reads: not a directory"},
		{"/s/st/", &fs.PathError{Op: "open", Path: "/s/st/history/entries", Err: syscall.ENOTDIR}, "open history/entries: not a directory"},
		{"/s/st", &fs.PathError{Op: "mkdir", Path: "/s/st", Err: syscall.EACCES}, "mkdir .: permission denied"},
		{"/s/st", &os.LinkError{Op: "rename", Old: "/s/st/a/.tmp-1", New: "/s/st/a/b", Err: syscall.EXDEV}, "rename a/.tmp-1 a/b: invalid cross-device link"},
		{"/s/st", errors.New("failed at /s/st"), "failed at ."},
		// Another directory that merely starts the same is left alone.
		{"/s/st", &fs.PathError{Op: "open", Path: "/s/st2/x", Err: syscall.ENOENT}, "open /s/st2/x: no such file or directory"},
		{"", &fs.PathError{Op: "open", Path: "/s/st/x", Err: syscall.ENOENT}, "open /s/st/x: no such file or directory"},
	} {
		got := Relative(tc.dir, tc.err)
		if got.Error() != tc.want {
			t.Errorf("Relative(%q, %v) = %q, want %q", tc.dir, tc.err, got, tc.want)
		}
		if !errors.Is(got, tc.err) {
			t.Errorf("Relative(%q, %v) does not unwrap to the error", tc.dir, tc.err)
		}
	}
	if Relative("/s", nil) != nil {
		t.Error("Relative of nil is not nil")
	}
}
