package fsroot

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestWalk(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"b.txt", "a/x.go", "a/deep/y.go", "a/deep/deeper/z.go", ".hid/h.txt",
		".git/config", "build/out.bin", ".gitignore", "c/.gitignore", "c/keep.txt", "c/skip.log", ".ws-tmp-123"} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		content := ""
		switch f {
		case ".gitignore":
			content = "build/\n"
		case "c/.gitignore":
			content = "*.log\n"
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("a", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	fsys, top := openRoot(t, root)
	walk := func(opts WalkOptions, skip string) string {
		var got []string
		_, err := fsys.Walk(context.Background(), top.Loc(), "", opts, "top", func(e *WalkEntry) (bool, any) {
			got = append(got, e.Rel())
			if st, err := fsys.Lstat(e.Loc()); err != nil || st.IsDir() != (e.IsDir && !e.IsLink) {
				t.Errorf("%s: Loc does not lead to the entry (%v)", e.Rel(), err)
			}
			return e.Rel() != skip, e.Rel()
		})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(got, " ")
	}
	tests := []struct {
		name string
		opts WalkOptions
		skip string
		want string
	}{
		{"everything", WalkOptions{Hidden: true, Links: true}, "",
			".git .git/config .gitignore .hid .hid/h.txt a a/deep a/deep/deeper a/deep/deeper/z.go a/deep/y.go a/x.go b.txt build build/out.bin c c/.gitignore c/keep.txt c/skip.log link"},
		{"no hidden, no .git, gitignore", WalkOptions{SkipGit: true, Ignore: fsys.IgnoreFor(top)}, "",
			"a a/deep a/deep/deeper a/deep/deeper/z.go a/deep/y.go a/x.go b.txt c c/keep.txt link"},
		{"depth 2", WalkOptions{MaxDepth: 2}, "", "a a/deep a/x.go b.txt build build/out.bin c c/keep.txt c/skip.log link"},
		{"not entered", WalkOptions{}, "a", "a b.txt build build/out.bin c c/keep.txt c/skip.log link"},
	}
	for _, tt := range tests {
		if got := walk(tt.opts, tt.skip); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
	// The data a directory's visit answered reaches its entries.
	_, _ = fsys.Walk(context.Background(), top.Loc(), ".", WalkOptions{}, "top", func(e *WalkEntry) (bool, any) {
		want := "top"
		if i := strings.LastIndexByte(e.Rel(), '/'); i >= 0 {
			want = e.Rel()[:i]
		}
		if e.Parent != want {
			t.Errorf("%s: parent data %v, want %v", e.Rel(), e.Parent, want)
		}
		return true, e.Rel()
	})
	if _, err := fsys.Walk(context.Background(), top.Loc().Child("b.txt"), "", WalkOptions{}, nil, nil); err == nil {
		t.Error("walking a file succeeded")
	}
}

// TestWalkWide: a tree wider than the listings a walk keeps ahead is
// visited in the same order as a small one (depth-first, names in order),
// the directories past maxAhead listed when the walk reaches them, and
// no descriptor is left open; a walk stopped early leaves none either.
func TestWalkWide(t *testing.T) {
	root := t.TempDir()
	var want []string
	for i := range maxAhead + 40 {
		d := fmt.Sprintf("d%03d", i)
		want = append(want, d, d+"/f.txt", d+"/sub", d+"/sub/g.txt")
		if err := os.MkdirAll(filepath.Join(root, d, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"f.txt", "sub/g.txt"} {
			if err := os.WriteFile(filepath.Join(root, d, f), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	fds := func() int {
		des, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd")
		}
		return len(des)
	}
	before := fds()
	fsys, top := openRoot(t, root)
	var got []string
	if _, err := fsys.Walk(context.Background(), top.Loc(), "", WalkOptions{}, nil, func(e *WalkEntry) (bool, any) {
		got = append(got, e.Rel())
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("visited %d entries, want %d; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	fsys.Walk(ctx, top.Loc(), "", WalkOptions{}, nil, func(e *WalkEntry) (bool, any) {
		if n++; n == 10 {
			cancel()
		}
		return true, nil
	})
	if n >= len(want) {
		t.Errorf("a cancelled walk went on to the end")
	}
	fsys.Close() // and with it the root's descriptor
	if after := fds(); after != before {
		t.Errorf("%d descriptors open after the walks, %d before", after, before)
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestWalkWideFewDescriptors: the subdirectories of a directory past the
// listings kept ahead are opened only when the walk reaches them, so a
// directory with more subdirectories than the process may hold open is
// walked whole, none of them reported unreadable.
func TestWalkWideFewDescriptors(t *testing.T) {
	root := t.TempDir()
	const n = maxAhead + 400
	for i := range n {
		if err := os.MkdirAll(filepath.Join(root, fmt.Sprintf("d%03d", i), "e"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fsys, top := openRoot(t, root)
	des, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	var old unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	// Room for what is open now, the root, the listings kept ahead and
	// the workers' own, but not for one descriptor per subdirectory.
	low := old
	low.Cur = uint64(len(des) + maxAhead + 150)
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &low); err != nil {
		t.Skip("cannot lower RLIMIT_NOFILE:", err)
	}
	defer unix.Setrlimit(unix.RLIMIT_NOFILE, &old)
	var bad []string
	got := 0
	unreadable, err := fsys.Walk(context.Background(), top.Loc(), "", WalkOptions{
		Unreadable: func(rel string, err error) { bad = append(bad, rel+": "+err.Error()) },
	}, nil, func(e *WalkEntry) (bool, any) {
		got++
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if unreadable != 0 || got != 2*n {
		t.Fatalf("visited %d entries, want %d; %d unreadable, first %q", got, 2*n, unreadable, bad[:min(len(bad), 3)])
	}
}

// TestWalkGitignoreNotRegular: a .gitignore that is a directory or a FIFO
// adds no rules, and a FIFO does not hold the walk (nor IgnoreFor, below
// it) waiting for a writer.
func TestWalkGitignoreNotRegular(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"dir/.gitignore/x", "dir/a.txt", "fifo/a.txt", "fifo/sub/b.txt"} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("*.txt\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := unix.Mkfifo(filepath.Join(root, "fifo/.gitignore"), 0o644); err != nil {
		t.Fatal(err)
	}
	fsys := New(Options{Base: root, Contained: true})
	defer fsys.Close()
	walk := func(start string) []string {
		t.Helper()
		res := make(chan []string, 1)
		go func() {
			top, err := fsys.Resolve(start)
			if err != nil {
				t.Error(err)
				res <- nil
				return
			}
			var got []string
			if _, err := fsys.Walk(context.Background(), top.Loc(), "", WalkOptions{Hidden: true, Ignore: fsys.IgnoreFor(top)}, nil, func(e *WalkEntry) (bool, any) {
				if !e.IsDir {
					got = append(got, e.Rel())
				}
				return true, nil
			}); err != nil {
				t.Error(err)
			}
			res <- got
		}()
		select {
		case got := <-res:
			return got
		case <-time.After(10 * time.Second):
			t.Fatalf("the walk of %s still waits after 10s", start)
			return nil
		}
	}
	if got, want := strings.Join(walk("."), " "), "dir/.gitignore/x dir/a.txt fifo/.gitignore fifo/a.txt fifo/sub/b.txt"; got != want {
		t.Errorf("met %q\nwant %q", got, want)
	}
	if got, want := strings.Join(walk("fifo/sub"), " "), "b.txt"; got != want {
		t.Errorf("below fifo: met %q, want %q", got, want)
	}
}

// locIn is a test's resolver of paths in fsys: each to its Loc, failing
// the test for one that does not resolve.
func locIn(t *testing.T, fsys *FS) func(p string) Loc {
	return func(p string) Loc {
		t.Helper()
		tg, err := fsys.Resolve(p)
		if err != nil {
			t.Fatal(err)
		}
		return tg.Loc()
	}
}

// openRoot is a contained FS on root, closed when the test ends, and
// root itself resolved.
func openRoot(t *testing.T, root string) (*FS, *Target) {
	t.Helper()
	fsys := New(Options{Base: root, Contained: true})
	t.Cleanup(func() { fsys.Close() })
	top, err := fsys.Resolve(".")
	if err != nil {
		t.Fatal(err)
	}
	return fsys, top
}

// TestWalkGitignoreSymlink: a .gitignore that is a symbolic link adds no
// rules, as git reads it, whether or not the kernel has openat2 (with it,
// a link to a file in the same directory used to be followed), at the
// top of a walk and below it.
func TestWalkGitignoreSymlink(t *testing.T) {
	root := t.TempDir()
	for f, data := range map[string]string{"rules": "*.txt\n", "a.txt": "", "sub/rules": "*.txt\n", "sub/b.txt": ""} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range []string{".gitignore", "sub/.gitignore"} {
		if err := os.Symlink("rules", filepath.Join(root, l)); err != nil {
			t.Fatal(err)
		}
	}
	for _, noOpenat2 := range []bool{false, true} {
		if !noOpenat2 && !HaveOpenat2() {
			continue
		}
		t.Run(fmt.Sprintf("noOpenat2=%v", noOpenat2), func(t *testing.T) {
			defer func(old bool) { ForceNoOpenat2 = old }(ForceNoOpenat2)
			ForceNoOpenat2 = noOpenat2
			for _, start := range []string{".", "sub"} {
				fsys, top := openRoot(t, root)
				if start != "." {
					var err error
					if top, err = fsys.Resolve(start); err != nil {
						t.Fatal(err)
					}
				}
				var got []string
				if _, err := fsys.Walk(context.Background(), top.Loc(), "", WalkOptions{Hidden: true, Ignore: fsys.IgnoreFor(top)}, nil, func(e *WalkEntry) (bool, any) {
					if !e.IsDir && strings.HasSuffix(e.Name, ".txt") {
						got = append(got, e.Rel())
					}
					return true, nil
				}); err != nil {
					t.Fatal(err)
				}
				want := "a.txt sub/b.txt"
				if start == "sub" {
					want = "b.txt"
				}
				if strings.Join(got, " ") != want {
					t.Errorf("walk of %s met %q, want %q: a linked .gitignore was read", start, got, want)
				}
			}
		})
	}
}

// TestWalkGitignoreUnreadable: an ignore file (.gitignore, .ignore) that
// is there but cannot be read is told to Unreadable (as sub/.gitignore),
// so the tools name it as
// skipped: its rules are not applied, and what they leave out was shown
// without a word. Root reads any file, so as root the test runs itself
// again as nobody.
func TestWalkGitignoreUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		asNobody(t, "TestWalkGitignoreUnreadable")
		return
	}
	for _, name := range IgnoreFiles {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			for _, f := range []string{"sub/" + name, "sub/a.log", "sub/b.txt"} {
				p := filepath.Join(root, f)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("*.log\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Chmod(filepath.Join(root, "sub", name), 0); err != nil {
				t.Fatal(err)
			}
			fsys, top := openRoot(t, root)
			var met, unreadable []string
			opts := WalkOptions{Ignore: fsys.IgnoreFor(top), Unreadable: func(rel string, err error) {
				unreadable = append(unreadable, rel+": "+SkipReason(err))
			}}
			if _, err := fsys.Walk(context.Background(), top.Loc(), "", opts, nil, func(e *WalkEntry) (bool, any) {
				met = append(met, e.Rel())
				return true, nil
			}); err != nil {
				t.Fatal(err)
			}
			if got, want := fmt.Sprint(met, unreadable), "[sub sub/a.log sub/b.txt] [sub/"+name+": permission denied]"; got != want {
				t.Errorf("met, unreadable: %s\nwant               %s", got, want)
			}
		})
	}
}

// asNobody runs the test name of this binary again as the user nobody
// (uid and gid 65534), in a directory of its own that nobody may use,
// and fails when that run fails.
func asNobody(t *testing.T, name string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "nobody")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	// The test binary must be readable and its directories searchable.
	bin := filepath.Join(dir, "test.bin")
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^"+name+"$", "-test.v")
	cmd.Dir = dir
	cmd.Env = []string{"TMPDIR=" + dir, "HOME=" + dir, "PATH=" + os.Getenv("PATH")}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+name) {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}
