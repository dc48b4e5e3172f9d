package workspace

import (
	"errors"
	"strings"
	"unicode"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/internal/wording"
	"golang.org/x/sys/unix"
)

// nearestNames bounds the directory nearestPath looks through: a larger
// one is passed over (a suggestion is not worth a long listing).
const nearestNames = 4096

// withNearest adds to a "not found" error of a path the caller typed the
// path that exists nearest to it, when one stands out: "File not found:
// src/utils.ts (did you mean src/util.ts?)". A model that misspelt a name
// then needs no listing to find it.
func (w *Workspace) withNearest(err error) error {
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != errs.ENOENT || e.Path == "" {
		return err
	}
	if name, ok := wording.Unname(e.Path); ok && w.pathExists(name) {
		// Copied from ls, glob or grep, which quote a name with a
		// character that does not print: it is that name.
		e.Message += " (ws shows that name in quotes, for a character in it that does not print; the name itself is " +
			e.Path + " as a JSON string, " + wording.ShellName(name) + " in bash)"
		return err
	}
	if n := w.nearestPath(e.Path); n != "" {
		e.Message += " (did you mean " + wording.ShellName(n) + "?)"
	}
	return err
}

// nearestPath is the path that exists nearest to p, a path that does not:
// each missing name of p replaced in turn by the one of its directory that
// it is most likely a misspelling of (wording.Closest), at most two of
// them. It is "" when no name stands out, when a directory holds more than
// nearestNames entries, or when the path leaves the workspace.
func (w *Workspace) nearestPath(p string) string {
	// An absolute path inside the workspace: its directories above the
	// root are outside, where nothing is looked at.
	if base := strings.TrimSuffix(w.fs.Base(), "/"); base != "" && strings.HasPrefix(p, base+"/") {
		if n := w.nearestPath(strings.TrimPrefix(p[len(base):], "/")); n != "" {
			return base + "/" + n
		}
		return ""
	}
	prefix := "" // the path as typed, up to the name looked at
	if strings.HasPrefix(p, "/") {
		prefix = "/"
	}
	fixed := 0
	for _, name := range strings.Split(p, "/") {
		if name == "" || name == "." {
			continue
		}
		next := joinTyped(prefix, name)
		if w.pathExists(next) {
			prefix = next
			continue
		}
		if name == ".." || fixed == 2 {
			return ""
		}
		names, ok := w.dirNames(prefix)
		if !ok {
			return ""
		}
		best := wording.Closest(name, names)
		if best == "" {
			return ""
		}
		fixed++
		prefix = joinTyped(prefix, best)
	}
	if fixed == 0 {
		return ""
	}
	return prefix
}

// joinTyped is name below dir, a path as typed ("" for the root).
func joinTyped(dir, name string) string {
	switch {
	case dir == "":
		return name
	case strings.HasSuffix(dir, "/"):
		return dir + name
	}
	return dir + "/" + name
}

// pathExists reports whether the workspace has something at p, a link
// included (it is not followed).
func (w *Workspace) pathExists(p string) bool {
	t, err := w.fs.Resolve(p)
	if err != nil {
		return false
	}
	_, err = w.fs.Lstat(t.Loc())
	return err == nil
}

// dirNames lists the directory at dir (as typed; "" is the root), or
// reports false when it cannot be read or holds over nearestNames.
func (w *Workspace) dirNames(dir string) ([]string, bool) {
	if dir == "" {
		dir = "."
	}
	t, err := w.fs.Resolve(dir)
	if err != nil {
		return nil, false
	}
	f, err := w.fs.OpenFile(t.Loc(), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK, 0, dir)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	names, err := f.Readdirnames(nearestNames + 1)
	if err != nil || len(names) > nearestNames {
		return nil, false
	}
	return names, true
}

// nearestTool is the offered tool that name, which no offered tool has,
// most likely means: the same name but for case and separators
// (mastra-workspace-read-file, MastraWorkspaceReadFile), the name behind a
// namespace a shim put before it (functions.mastra_workspace_read_file),
// the tool whose short name (read_file, without Mastra's prefix) or
// subcommand (read) it is, or a misspelling of a name or a short name
// (wording.Closest); "" when none stands out.
func (w *Workspace) nearestTool(name string) string {
	fold := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '_' || r == '-' || r == '.' || r == ' ' {
				return -1
			}
			return unicode.ToLower(r)
		}, s)
	}
	offered := w.Offered()
	var names, shorts []string
	byShort := map[string]string{} // folded
	for _, o := range offered {
		names = append(names, o.Name)
		byShort[fold(o.Spec.Command)] = o.Name
		if short, ok := strings.CutPrefix(o.Spec.ID, "mastra_workspace_"); ok {
			shorts = append(shorts, short)
			byShort[fold(short)] = o.Name
		}
	}
	one := func(match func(o Offered) bool) string {
		found := ""
		for _, o := range offered {
			if match(o) {
				if found != "" {
					return "" // two alike: neither stands out
				}
				found = o.Name
			}
		}
		return found
	}
	if n := one(func(o Offered) bool { return fold(o.Name) == fold(name) }); n != "" {
		return n
	}
	if n := one(func(o Offered) bool {
		rest, ok := strings.CutSuffix(name, o.Name)
		return ok && rest != "" && strings.ContainsAny(rest[len(rest)-1:], ".:/_-")
	}); n != "" {
		return n
	}
	if n, ok := byShort[fold(name)]; ok && fold(name) != "" {
		return n
	}
	if n := wording.Closest(name, names); n != "" {
		return n
	}
	if short := wording.Closest(name, shorts); short != "" {
		return byShort[fold(short)]
	}
	return ""
}
