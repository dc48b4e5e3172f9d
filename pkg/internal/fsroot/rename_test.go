package fsroot

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/wstools/ws/pkg/internal/testfs"
)

// TestRenameNoReplace checks Rename's refusal to replace, with
// RENAME_NOREPLACE and with the fallback of file systems that lack it
// (link(2) for a file, a mkdir(2) claim for a directory): a free name is
// taken, a taken one (a file, an empty or a full directory) is refused
// with EEXIST and left as it was, and the source stays where it was then.
func TestRenameNoReplace(t *testing.T) {
	for _, fallback := range []bool{false, true} {
		name := "renameat2"
		if fallback {
			name = "fallback"
		}
		t.Run(name, func(t *testing.T) {
			if fallback {
				saved := renameNoReplace
				renameNoReplace = func(int, string, int, string) error { return unix.EINVAL }
				t.Cleanup(func() { renameNoReplace = saved })
			}
			for _, tc := range []struct {
				name    string
				srcDir  bool
				dst     string // "" free, "file", "empty" or "full"
				wantErr error
			}{
				{"file to a free name", false, "", nil},
				{"directory to a free name", true, "", nil},
				{"file onto a file", false, "file", unix.EEXIST},
				{"directory onto a file", true, "file", unix.EEXIST},
				{"directory onto an empty directory", true, "empty", unix.EEXIST},
				{"directory onto a full directory", true, "full", unix.EEXIST},
			} {
				t.Run(tc.name, func(t *testing.T) {
					root := t.TempDir()
					src, dst := filepath.Join(root, "src"), filepath.Join(root, "dst")
					if tc.srcDir {
						testfs.Mkdir(t, src)
						testfs.Write(t, filepath.Join(src, "in.txt"), "in")
					} else {
						testfs.Write(t, src, "src")
					}
					switch tc.dst {
					case "file":
						testfs.Write(t, dst, "dst")
					case "empty":
						testfs.Mkdir(t, dst)
					case "full":
						testfs.Mkdir(t, dst)
						testfs.Write(t, filepath.Join(dst, "keep.txt"), "keep")
					}
					fsys := New(Options{Base: root, Contained: true})
					from, err := fsys.Resolve("src")
					if err != nil {
						t.Fatal(err)
					}
					to, err := fsys.Resolve("dst")
					if err != nil {
						t.Fatal(err)
					}
					err = fsys.Rename(from.Loc(), to.Loc(), true)
					if !errors.Is(err, tc.wantErr) && (err != nil || tc.wantErr != nil) {
						t.Fatalf("Rename: %v, want %v", err, tc.wantErr)
					}
					_, srcErr := os.Lstat(src)
					if moved := srcErr != nil; moved != (tc.wantErr == nil) {
						t.Errorf("source moved: %v, want %v", moved, tc.wantErr == nil)
					}
					switch {
					case tc.wantErr == nil && tc.srcDir:
						if b, err := os.ReadFile(filepath.Join(dst, "in.txt")); err != nil || string(b) != "in" {
							t.Errorf("the moved directory does not hold its file: %q, %v", b, err)
						}
					case tc.wantErr == nil:
						if b, err := os.ReadFile(dst); err != nil || string(b) != "src" {
							t.Errorf("the moved file: %q, %v", b, err)
						}
					case tc.dst == "file":
						if b, err := os.ReadFile(dst); err != nil || string(b) != "dst" {
							t.Errorf("the file refused: %q, %v", b, err)
						}
					case tc.dst == "empty":
						if es, err := os.ReadDir(dst); err != nil || len(es) != 0 {
							t.Errorf("the empty directory refused: %v, %v", es, err)
						}
					case tc.dst == "full":
						if es, err := os.ReadDir(dst); err != nil || len(es) != 1 || es[0].Name() != "keep.txt" {
							t.Errorf("the full directory refused: %v, %v", es, err)
						}
					}
				})
			}
		})
	}
}

// TestRenameReplacesOnlyEmptyDirs checks Rename without noReplace for a
// directory: an empty directory at the new name is replaced, a full one
// or a file is refused, as rename(2) has it, and nothing is merged.
func TestRenameReplacesOnlyEmptyDirs(t *testing.T) {
	for _, tc := range []struct {
		dst     string
		wantErr []error
	}{
		{"empty", nil},
		{"full", []error{unix.ENOTEMPTY, unix.EEXIST}},
		{"file", []error{unix.ENOTDIR}},
	} {
		t.Run(tc.dst, func(t *testing.T) {
			root := t.TempDir()
			src, dst := filepath.Join(root, "src"), filepath.Join(root, "dst")
			testfs.Mkdir(t, src)
			testfs.Write(t, filepath.Join(src, "in.txt"), "in")
			switch tc.dst {
			case "empty":
				testfs.Mkdir(t, dst)
			case "full":
				testfs.Mkdir(t, dst)
				testfs.Write(t, filepath.Join(dst, "keep.txt"), "keep")
			case "file":
				testfs.Write(t, dst, "dst")
			}
			fsys := New(Options{Base: root, Contained: true})
			from, _ := fsys.Resolve("src")
			to, _ := fsys.Resolve("dst")
			err := fsys.Rename(from.Loc(), to.Loc(), false)
			ok := err == nil && tc.wantErr == nil
			for _, w := range tc.wantErr {
				ok = ok || errors.Is(err, w)
			}
			if !ok {
				t.Fatalf("Rename: %v, want one of %v", err, tc.wantErr)
			}
			if tc.wantErr != nil {
				if _, err := os.Stat(filepath.Join(src, "in.txt")); err != nil {
					t.Errorf("refused, yet the source moved: %v", err)
				}
			}
		})
	}
}

// TestEmptyDir checks EmptyDir on an empty directory, a full one (a
// hidden name counts) and a symlink to an empty directory (not followed).
func TestEmptyDir(t *testing.T) {
	root := t.TempDir()
	testfs.Mkdir(t, filepath.Join(root, "empty"))
	testfs.Mkdir(t, filepath.Join(root, "full"))
	testfs.Write(t, filepath.Join(root, "full", ".hidden"), "x")
	if err := os.Symlink("empty", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	fsys := New(Options{Base: root, Contained: true})
	for name, want := range map[string]bool{"empty": true, "full": false} {
		tg, _ := fsys.Resolve(name)
		if got, err := fsys.EmptyDir(tg.Loc()); err != nil || got != want {
			t.Errorf("EmptyDir(%s) = %v, %v; want %v", name, got, err, want)
		}
	}
	tg, _ := fsys.Resolve("link")
	if _, err := fsys.EmptyDir(tg.Loc()); err == nil {
		t.Errorf("EmptyDir of a symlink followed it")
	}
}
