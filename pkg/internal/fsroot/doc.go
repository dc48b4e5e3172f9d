// Package fsroot is the workspace's one path chokepoint and its filesystem
// primitives. Resolve turns a user-supplied path into a Target: cleaned,
// made absolute against the base path, and checked to lie inside an allowed
// root (lexically, then with symlinks resolved). A Target's Loc is then
// opened beneath its root with openat2(RESOLVE_BENEATH) (or Go's os.Root
// where openat2 is missing), so a symlink swapped after the check still
// cannot lead outside.
//
// On top of that it has what the tools share: stat, atomic writes that keep
// a file's mode and owner, mkdir and remove relative to open directories,
// directory listing straight from getdents, .gitignore state for walks, and
// Walk, the one tree walker of grep, ls, the search index and skills.
package fsroot
