// Package gitignore decides which paths .gitignore files exclude, with the
// semantics of git itself (dir.c and wildmatch.c, checked against
// `git check-ignore` by the tests).
//
// # Patterns
//
// Parse compiles the content of one .gitignore file. As in git: blank lines
// and lines starting with '#' are skipped; "\#" and "\!" start a pattern
// with a literal '#' or '!'; trailing spaces are trimmed unless escaped
// with a backslash; a leading '!' negates the pattern; a trailing '/'
// restricts it to directories; a pattern with no other '/' matches the base
// name of a path at any depth below the file's directory, and any other
// pattern is matched against the path relative to that directory (so a
// leading or middle '/' anchors it). '*', '?' and bracket expressions
// ("[a-c]", "[!a]", "[^a]", "[[:digit:]]") never match '/'; "**/" at the
// start, "/**" at the end and "/**/" in the middle match any number of
// directories, and other "**" are like '*'.
//
// One git quirk is kept on purpose: git compares the literal start of an
// anchored pattern on its own before matching the rest, so in "foo**/bar"
// the "**" counts as a leading "**/" and the pattern matches "foox/y/bar".
//
// # Matching
//
// A Matcher holds the rules in effect in one directory: those of the
// .gitignore files of that directory and of every directory above it, the
// deepest and last rule that matches deciding (a negated one re-includes).
// A walker starts from New(), calls Child with each directory's .gitignore
// content when it enters the directory, and Ignored for each entry; it
// must not descend into ignored directories, because git never
// re-includes a path whose parent directory is excluded:
//
//	func walk(m *gitignore.Matcher, dir string) {
//		m = m.Child(dir, readGitignore(dir))
//		for _, e := range entries(dir) {
//			rel := path.Join(dir, e.Name())
//			if m.Ignored(rel, e.IsDir()) {
//				continue
//			}
//			if e.IsDir() {
//				walk(m, rel)
//			}
//		}
//	}
//
// Ignored only looks at the entry's own name. MatchPath and IgnoredPath
// also check every parent directory, and Tree reads the .gitignore files
// of a file system as needed to answer for any path.
//
// Paths are slash-separated and relative to the root of the tree (the
// directory whose .gitignore has Base ""), without "./" or a trailing
// slash. Matching is case sensitive (core.ignoreCase=false). A symbolic
// link is never a directory, even if it points to one: git does not
// follow it.
package gitignore
