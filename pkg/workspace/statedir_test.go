package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The default state directory under the shared temporary directory is the
// user's alone: made owner-only, and refused when someone else could have
// made it first (a symlink, another owner, open to others).
func TestCheckDefaultStateDir(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(parent string)
		want    string // "" for no error
	}{
		{"missing: made owner-only", func(string) {}, ""},
		{"own and private", func(p string) { os.Mkdir(p, 0o700) }, ""},
		{"open to others", func(p string) { os.Mkdir(p, 0o700); os.Chmod(p, 0o777) }, "is open to other users (mode 0777)"},
		{"group-writable", func(p string) { os.Mkdir(p, 0o700); os.Chmod(p, 0o770) }, "is open to other users"},
		{"a symlink", func(p string) { os.Symlink(t.TempDir(), p) }, "is not a directory of its own"},
		{"a file", func(p string) { os.WriteFile(p, nil, 0o600) }, "is not a directory of its own"},
	}
	if os.Getuid() == 0 {
		tests = append(tests, struct {
			name    string
			prepare func(parent string)
			want    string
		}{"another user's", func(p string) { os.Mkdir(p, 0o700); os.Chown(p, 65534, 65534) }, "belongs to another user"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			home := t.TempDir()
			dir := DefaultStateDir(home, "", home, tmp) // a root holding the home: under tmp
			parent := tempStateParent(tmp)
			if filepath.Dir(dir) != parent {
				t.Fatalf("DefaultStateDir = %s, want it below %s", dir, parent)
			}
			tt.prepare(parent)
			err := CheckDefaultStateDir(dir, tmp)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("got %v, want an error with %q", err, tt.want)
			case tt.want == "":
				fi, err := os.Lstat(parent)
				if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
					t.Fatalf("parent: %v, %v", fi, err)
				}
			}
		})
	}
	// A state directory elsewhere is not looked at.
	if err := CheckDefaultStateDir("/nonexistent/ws/abc", t.TempDir()); err != nil {
		t.Errorf("elsewhere: %v", err)
	}
}

// A home with no room for state (missing, or not a directory) sends the
// default state under the temporary directory, so reads do not fail on
// recording themselves, and no home is made; a usable one keeps it.
func TestDefaultStateDirUncreatableHome(t *testing.T) {
	tmp, work := t.TempDir(), t.TempDir()
	file := filepath.Join(work, "file")
	os.WriteFile(file, nil, 0o600)
	root := filepath.Join(work, "root")
	os.Mkdir(root, 0o700)
	home := filepath.Join(work, "home")
	tests := []struct {
		home, xdg string
		underTmp  bool
	}{
		{home, "", true},                        // missing: not made, even where it could be
		{work, "", false},                       // there: its .local/state is made
		{filepath.Join(file, "home"), "", true}, // below a file: never creatable
		{home, filepath.Join(file, "state"), true},
		{home, filepath.Join(work, "kept"), false}, // there already: kept, writable or not
	}
	os.MkdirAll(filepath.Join(work, "kept", "ws", "x"), 0o700)
	kept := DefaultStateDir(root, filepath.Join(work, "kept"), home, tmp)
	os.MkdirAll(kept, 0o700)
	for _, d := range []string{kept, filepath.Dir(kept)} {
		os.Chmod(d, 0o500) // as sudo leaves one: not this user's to write
		t.Cleanup(func() { os.Chmod(d, 0o700) })
	}
	for _, tt := range tests {
		dir := DefaultStateDir(root, tt.xdg, tt.home, tmp)
		if got := filepath.Dir(dir) == tempStateParent(tmp); got != tt.underTmp {
			t.Errorf("DefaultStateDir(home %s, xdg %q) = %s; under tmp: %v, want %v", tt.home, tt.xdg, dir, got, tt.underTmp)
		}
	}
}
