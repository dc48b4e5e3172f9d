package fsroot

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/wstools/ws/pkg/errs"
)

// AbsPath is an absolute, cleaned host path. Only Resolve and the workspace's
// own bookkeeping make them, so a raw user string never reaches an os call.
type AbsPath string

// RelPath is a slash-separated path relative to the workspace base path.
type RelPath string

// allowedRoot is one directory the workspace may touch: the base path or one
// of the configured allowedPaths.
type allowedRoot struct {
	path string // absolute, cleaned, as configured
	real string // symlinks resolved (of its nearest existing ancestor)
}

// Target is a user-supplied path after Resolve: where it points, which
// allowed root holds it, and how the user spelt it (for messages).
type Target struct {
	Input string  // the path as typed, echoed in messages
	Abs   AbsPath // lexical absolute form (symlinks not resolved)
	root  *allowedRoot
	sub   string // slash path below root.path; "." is the root itself
	base  string // the workspace base path
}

// Rel is the target's path relative to the workspace base path,
// slash-separated; a target in another allowed root (or anywhere, when the
// workspace is not contained) starts with "../", as Mastra's
// relative(basePath, path) does.
func (t *Target) Rel() RelPath {
	rel, err := filepath.Rel(t.base, string(t.Abs))
	if err != nil {
		return RelPath(filepath.ToSlash(string(t.Abs)))
	}
	return RelPath(filepath.ToSlash(rel))
}

// IsRoot reports whether the target is an allowed root itself.
func (t *Target) IsRoot() bool { return t.root != nil && t.sub == "." }

// Resolve is the single chokepoint for user-supplied paths. It expands `~`,
// makes the path absolute against the base path, and, when the workspace is
// contained, checks that it lies inside the base path or an allowed path:
// first lexically, then with symlinks resolved. Every file operation goes
// through the returned Target, which opens files beneath the root so that a
// symlink swapped after this check still cannot lead outside.
func (fsys *FS) Resolve(input string) (*Target, error) {
	if input == "" {
		return nil, errs.EmptyPath()
	}
	if strings.IndexByte(input, 0) >= 0 {
		return nil, errs.NULInPath(input)
	}
	abs := fsys.Absolute(input)
	t := &Target{Input: input, Abs: AbsPath(abs), base: fsys.base}
	if !fsys.contained {
		return t, nil
	}
	// Check 1: lexical containment, repeated on real paths if it fails.
	for _, r := range fsys.roots {
		if sub, ok := Within(r.path, abs); ok {
			t.root, t.sub = r, sub
			break
		}
	}
	if t.root == nil {
		real := RealpathPartial(abs)
		for _, r := range fsys.roots {
			if sub, ok := Within(r.real, real); ok {
				t.root, t.sub = r, sub
				t.Abs = AbsPath(filepath.Join(r.path, filepath.FromSlash(sub)))
				break
			}
		}
	}
	if t.root == nil {
		return nil, fsys.outsideError(input)
	}
	// Check 2: with symlinks resolved, the target (or, for a path that does
	// not exist yet, its nearest existing ancestor) must stay inside a root.
	if !fsys.InsideAnyRoot(RealpathPartial(abs)) {
		return nil, errs.Escape("access", input, nil)
	}
	return t, nil
}

func (fsys *FS) Absolute(input string) string {
	p := input
	switch {
	case p == "~":
		p = fsys.home
	case strings.HasPrefix(p, "~/") || strings.HasPrefix(p, `~\`):
		p = filepath.Join(fsys.home, p[2:])
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(fsys.base, p)
}

func (fsys *FS) InsideAnyRoot(real string) bool {
	for _, r := range fsys.roots {
		if _, ok := Within(r.real, real); ok {
			return true
		}
	}
	return false
}

// outsideError builds Mastra's containment message, with its hint for
// absolute paths that were probably meant to be workspace-relative. As
// Mastra's rule has it: "/" alone gets no hint; the concrete suggestion only
// when the first segment (split at a slash or a backslash; never "." or "..") names
// something that resolves under the base (a dangling link does not).
func (fsys *FS) outsideError(input string) error {
	hint := ""
	if filepath.IsAbs(input) {
		trimmed := strings.TrimLeft(input, `/\`)
		if trimmed != "" {
			hint = `path is outside the workspace; use a path relative to the workspace root, without a leading "/"`
			first, _, _ := strings.Cut(strings.ReplaceAll(trimmed, `\`, "/"), "/")
			if first != "" && first != "." && first != ".." {
				if _, err := os.Stat(filepath.Join(fsys.base, first)); err == nil {
					hint = `path is outside the workspace; use a relative path like "` + trimmed + `"`
				}
			}
		}
	}
	return errs.OutsideRoot(input, hint)
}

// Within reports whether p equals root or lies below it, and returns p's
// slash-separated path relative to root.
func Within(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// RealpathPartial resolves symlinks in p as far as p exists, follows a
// dangling final symlink lexically, and appends the part that does not exist.
// It never fails: on a symlink loop it returns what it has.
func RealpathPartial(p string) string {
	p = filepath.Clean(p)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	// Walk components, resolving links by hand.
	out := string(filepath.Separator)
	rest := strings.Split(strings.TrimPrefix(p, string(filepath.Separator)), string(filepath.Separator))
	hops := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		if c == "" || c == "." {
			continue
		}
		if c == ".." {
			out = filepath.Dir(out)
			continue
		}
		next := filepath.Join(out, c)
		fi, err := os.Lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
				return filepath.Join(append([]string{next}, rest...)...)
			}
			return filepath.Join(append([]string{next}, rest...)...)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			out = next
			continue
		}
		hops++
		if hops > 40 {
			return filepath.Join(append([]string{next}, rest...)...)
		}
		link, err := os.Readlink(next)
		if err != nil {
			return filepath.Join(append([]string{next}, rest...)...)
		}
		if filepath.IsAbs(link) {
			out = string(filepath.Separator)
		}
		rest = append(strings.Split(link, string(filepath.Separator)), rest...)
	}
	return out
}
