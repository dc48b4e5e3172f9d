package fsroot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzResolve: whatever path is typed, Resolve of a contained workspace
// either refuses it or gives a place inside an allowed root, with symlinks
// resolved; it never panics. The tree holds links inside, outside and in
// a loop, and an allowed path beside the base.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"a.txt", "./sub/../a.txt", "../outside", "/etc/passwd", "~", "~/x", "in/../../x",
		"out/secret", "loop/x", "sub/inlink", "..foo", "sub//./x", "../allowed/f", "\x00", "a\\b", "/", "sub/"} {
		f.Add(s)
	}
	tmp := f.TempDir()
	base, allowed, outside := filepath.Join(tmp, "base"), filepath.Join(tmp, "allowed"), filepath.Join(tmp, "outside")
	for _, d := range []string{filepath.Join(base, "sub"), allowed, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			f.Fatal(err)
		}
	}
	links := map[string]string{
		filepath.Join(base, "out"):        outside,
		filepath.Join(base, "sub/inlink"): "../a.txt",
		filepath.Join(base, "loop"):       "loop",
		filepath.Join(base, "toallowed"):  allowed,
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			f.Fatal(err)
		}
	}
	fsys := New(Options{Base: base, Home: filepath.Join(tmp, "home"), AllowedPaths: []string{allowed}, Contained: true})
	realRoots := []string{RealpathPartial(base), RealpathPartial(allowed)}
	f.Fuzz(func(t *testing.T, input string) {
		target, err := fsys.Resolve(input)
		if err != nil {
			return
		}
		if strings.IndexByte(input, 0) >= 0 {
			t.Fatalf("%q: a path with NUL was accepted", input)
		}
		real := RealpathPartial(string(target.Abs))
		inside := false
		for _, r := range realRoots {
			if _, ok := Within(r, real); ok {
				inside = true
			}
		}
		if !inside {
			t.Fatalf("%q resolved to %s (real %s), outside the allowed roots", input, target.Abs, real)
		}
		_ = target.Rel()
	})
}
