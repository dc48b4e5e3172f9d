package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"golang.org/x/sys/unix"
)

// bothModes runs f with openat2 and with the realpath-check fallback.
func bothModes(t *testing.T, f func(t *testing.T)) {
	t.Run("openat2", func(t *testing.T) {
		if !fsroot.HaveOpenat2() {
			t.Skip("kernel without openat2")
		}
		f(t)
	})
	t.Run("fallback", func(t *testing.T) {
		fsroot.ForceNoOpenat2 = true
		defer func() { fsroot.ForceNoOpenat2 = false }()
		f(t)
	})
}

func TestResolve(t *testing.T) {
	bothModes(t, func(t *testing.T) {
		w, root := newTestWorkspace(t, nil, "a.txt", "src/app.ts", "..foo/x")
		outside := filepath.Join(filepath.Dir(root), "outside")
		must(t, os.MkdirAll(outside, 0o755))
		must(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644))
		must(t, os.Symlink(outside, filepath.Join(root, "outlink")))
		must(t, os.Symlink("src", filepath.Join(root, "srclink")))
		must(t, os.Symlink(filepath.Join(root, "a.txt"), filepath.Join(root, "abslink")))
		must(t, os.Symlink(filepath.Join(outside, "nowhere"), filepath.Join(root, "dangling-out")))

		tests := []struct {
			in      string
			wantRel string // "" = refused
			wantMsg string
		}{
			{"a.txt", "a.txt", ""},
			{"./a.txt", "a.txt", ""},
			{"src/../a.txt", "a.txt", ""},
			{root + "/a.txt", "a.txt", ""},
			{".", ".", ""},
			{"new/file.txt", "new/file.txt", ""},
			{"..foo/x", "..foo/x", ""},
			{"srclink/app.ts", "srclink/app.ts", ""},
			{"abslink", "abslink", ""},
			{"../x", "", "Permission denied: access on ../x"},
			{"src/../../x", "", "Permission denied: access on src/../../x"},
			{"/etc/passwd", "", `Permission denied: access (path is outside the workspace; use a path relative to the workspace root, without a leading "/") on /etc/passwd`},
			{"/src/app.ts", "", `Permission denied: access (path is outside the workspace; use a relative path like "src/app.ts") on /src/app.ts`},
			{"outlink/secret", "", "Permission denied: access on outlink/secret"},
			{"outlink", "", "Permission denied: access on outlink"},
			{"outlink/new.txt", "", "Permission denied: access on outlink/new.txt"},
			{"dangling-out", "", "Permission denied: access on dangling-out"},
			{"~/x", "", ""},
		}
		for _, tt := range tests {
			got, err := w.fs.Resolve(tt.in)
			if tt.wantRel == "" {
				if err == nil {
					t.Errorf("Resolve(%q) = %q, want refusal", tt.in, got.Rel())
					continue
				}
				if errs.CodeOf(err) != errs.OutsideWorkspace {
					t.Errorf("Resolve(%q) code %s, want OUTSIDE_WORKSPACE", tt.in, errs.CodeOf(err))
				}
				if tt.wantMsg != "" && err.Error() != tt.wantMsg {
					t.Errorf("Resolve(%q) error\n  %s\nwant\n  %s", tt.in, err, tt.wantMsg)
				}
				continue
			}
			if err != nil {
				t.Errorf("Resolve(%q): %v", tt.in, err)
				continue
			}
			if string(got.Rel()) != tt.wantRel {
				t.Errorf("Resolve(%q).Rel() = %q, want %q", tt.in, got.Rel(), tt.wantRel)
			}
			if st, err := w.fs.Stat(got.Loc()); err == nil && !st.IsDir() {
				if _, err := w.Read(context.Background(), ReadRequest{Path: tt.in}); err != nil {
					t.Errorf("Read(%q) of an accepted path: %v", tt.in, err)
				}
			}
		}
	})
}

func TestResolveAllowedPathsAndUncontained(t *testing.T) {
	tmp := t.TempDir()
	root, extra := filepath.Join(tmp, "root"), filepath.Join(tmp, "extra")
	must(t, os.MkdirAll(root, 0o755))
	must(t, os.MkdirAll(extra, 0o755))
	must(t, os.WriteFile(filepath.Join(extra, "e.txt"), []byte("e\n"), 0o644))
	must(t, os.Symlink(filepath.Join(extra, "e.txt"), filepath.Join(root, "tolink")))

	cfg := config.Default()
	cfg.Filesystem.AllowedPaths = []string{"../extra"}
	w, err := New(Options{Root: root, Config: cfg, StateDir: filepath.Join(tmp, "state")})
	must(t, err)
	defer w.Close()
	for _, p := range []string{extra + "/e.txt", "../extra/e.txt", "tolink"} {
		res, err := w.Read(context.Background(), ReadRequest{Path: p})
		if err != nil {
			t.Errorf("read %s in an allowed path: %v", p, err)
			continue
		}
		if !strings.HasSuffix(res.Text(), "1→e") {
			t.Errorf("read %s: %q", p, res.Text())
		}
	}
	if _, err := w.fs.Resolve(filepath.Join(tmp, "other")); err == nil {
		t.Error("a path beside the allowed ones was accepted")
	}

	cfg = config.Default()
	cfg.Filesystem.Contained = false
	w2, err := New(Options{Root: root, Config: cfg, StateDir: filepath.Join(tmp, "state")})
	must(t, err)
	defer w2.Close()
	if _, err := w2.Read(context.Background(), ReadRequest{Path: "../extra/e.txt"}); err != nil {
		t.Errorf("uncontained read outside the root: %v", err)
	}
}

// TestSymlinkSwappedAfterCheck swaps a checked symlink to point outside
// between Resolve and the open: the open beneath the root must refuse it.
func TestSymlinkSwappedAfterCheck(t *testing.T) {
	bothModes(t, func(t *testing.T) {
		w, root := newTestWorkspace(t, nil, "inside.txt")
		outside := filepath.Join(filepath.Dir(root), "outside")
		must(t, os.MkdirAll(outside, 0o755))
		must(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("secret\n"), 0o644))
		link := filepath.Join(root, "link")
		must(t, os.Symlink("inside.txt", link))

		tgt, err := w.fs.Resolve("link")
		must(t, err)
		must(t, os.Remove(link))
		must(t, os.Symlink(filepath.Join(outside, "secret"), link))

		f, err := w.fs.OpenFile(tgt.Loc(), unix.O_RDONLY, 0, "link")
		if err == nil {
			f.Close()
			t.Fatal("opened a symlink swapped to point outside the workspace")
		}
		if !errors.Is(err, unix.EXDEV) {
			t.Fatalf("open error %v, want EXDEV", err)
		}
		if got := errs.FromOS("read", "link", err, false); errs.CodeOf(got) != errs.OutsideWorkspace || got.Error() != "Permission denied: access on link" {
			t.Fatalf("mapped error %v (%s)", got, errs.CodeOf(got))
		}

		// A directory component swapped the same way.
		must(t, os.MkdirAll(filepath.Join(root, "d"), 0o755))
		must(t, os.WriteFile(filepath.Join(root, "d", "secret"), []byte("in\n"), 0o644))
		must(t, os.Symlink("d", filepath.Join(root, "dl")))
		tgt, err = w.fs.Resolve("dl/secret")
		must(t, err)
		must(t, os.Remove(filepath.Join(root, "dl")))
		must(t, os.Symlink(outside, filepath.Join(root, "dl")))
		if _, err := w.fs.WriteAtomic(tgt.Loc(), strings.NewReader("x"), fsroot.WriteOptions{}); err == nil {
			t.Fatal("wrote through a directory symlink swapped to point outside")
		}
		if data, _ := os.ReadFile(filepath.Join(outside, "secret")); string(data) != "secret\n" {
			t.Fatalf("the file outside changed: %q", data)
		}
	})
}

// TestReadRaceWithSwappedDirectory keeps swapping a directory for a
// symlink that leads out while reading through it: in both modes (openat2,
// and Go's os.Root where openat2 is missing) no read may see the outside.
func TestReadRaceWithSwappedDirectory(t *testing.T) {
	bothModes(t, func(t *testing.T) {
		base := t.TempDir()
		root, out := filepath.Join(base, "ws"), filepath.Join(base, "out")
		must(t, os.MkdirAll(filepath.Join(root, "d"), 0o755))
		must(t, os.MkdirAll(out, 0o755))
		must(t, os.WriteFile(filepath.Join(root, "d", "s.txt"), []byte("INSIDE\n"), 0o644))
		must(t, os.WriteFile(filepath.Join(out, "s.txt"), []byte("OUTSIDE_SECRET\n"), 0o644))
		w, err := New(Options{Root: root, StateDir: filepath.Join(base, "st")})
		must(t, err)
		defer w.Close()
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				select {
				case <-stop:
					return
				default:
				}
				os.Rename(filepath.Join(root, "d"), filepath.Join(root, "dtmp"))
				os.Symlink("../out", filepath.Join(root, "d"))
				os.Remove(filepath.Join(root, "d"))
				os.Rename(filepath.Join(root, "dtmp"), filepath.Join(root, "d"))
			}
		}()
		leaks := 0
		for range 3000 {
			if r, err := w.Read(context.Background(), ReadRequest{Path: "d/s.txt"}); err == nil && strings.Contains(r.Text(), "OUTSIDE_SECRET") {
				leaks++
			}
		}
		close(stop)
		<-done
		if leaks > 0 {
			t.Errorf("%d reads returned a file outside the workspace", leaks)
		}
	})
}

func TestSkillsThroughTheChokepoint(t *testing.T) {
	cfg := config.Default()
	cfg.Skills = []string{"skills"}
	w, root := newTestWorkspace(t, cfg, "skills/x/references/")
	must(t, os.WriteFile(filepath.Join(root, "skills/x/SKILL.md"), []byte("---\nname: x\ndescription: d\n---\nX body\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "skills/x/references/r.md"), []byte("ref\n"), 0o644))
	outside := filepath.Join(t.TempDir(), "out.md")
	must(t, os.WriteFile(outside, []byte("outside\n"), 0o644))
	must(t, os.Symlink(outside, filepath.Join(root, "skills/x/references/leak.md")))
	ctx := context.Background()
	res, err := w.Skill(ctx, SkillRequest{Name: "x"})
	must(t, err)
	if !strings.HasPrefix(res.Text(), "X body\n\n## References\n- references/leak.md\n- references/r.md") {
		t.Fatalf("skill: %q", res.Text())
	}
	if _, err := w.SkillRead(ctx, SkillReadRequest{SkillName: "x", Path: "references/leak.md"}); errs.CodeOf(err) != errs.OutsideWorkspace {
		t.Fatalf("a link out of the workspace was read, or not refused as such: %v", err)
	}
	if _, err := w.SkillRead(ctx, SkillReadRequest{SkillName: "x", Path: "../../etc/passwd"}); errs.CodeOf(err) != errs.OutsideWorkspace {
		t.Fatalf("traversal: %v", err)
	}
	if _, err := w.Skill(ctx, SkillRequest{Name: "y"}); errs.CodeOf(err) != errs.ENOENT {
		t.Fatalf("missing skill: %v", err)
	}
}
