package statefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
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

func TestDirProblem(t *testing.T) {
	file := filepath.Join(t.TempDir(), "afile")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		dir  string
		err  error
		want string
	}{
		{"the directory cannot be made", "/s/st", &fs.PathError{Op: "mkdir", Path: "/s/st", Err: syscall.EACCES}, "cannot create it: permission denied"},
		{"a trailing slash", "/s/st/", &fs.PathError{Op: "mkdir", Path: "/s/st", Err: syscall.EROFS}, "cannot create it: read-only file system"},
		{"a directory above it cannot be made", "/s/st/ws", &fs.PathError{Op: "mkdir", Path: "/s", Err: syscall.ENOENT}, "cannot create it: /s: no such file or directory"},
		{"a file where it should be", file, &fs.PathError{Op: "open", Path: file + "/search/index.bin", Err: syscall.ENOTDIR}, "not a directory (a file is in its place)"},
		// A file below the directory is Relative's to word.
		{"a file below it", "/s/st", &fs.PathError{Op: "mkdir", Path: "/s/st/reads", Err: syscall.EACCES}, ""},
		{"another directory", "/s/st", &fs.PathError{Op: "mkdir", Path: "/s/st2", Err: syscall.EACCES}, ""},
		{"not a mkdir", "/s/st", &fs.PathError{Op: "open", Path: "/s/st", Err: syscall.EACCES}, ""},
		{"no state directory", "", &fs.PathError{Op: "mkdir", Path: "/s", Err: syscall.EACCES}, ""},
	} {
		if got := DirProblem(tc.dir, tc.err); got != tc.want {
			t.Errorf("%s: DirProblem(%q, %v) = %q, want %q", tc.name, tc.dir, tc.err, got, tc.want)
		}
	}
}
