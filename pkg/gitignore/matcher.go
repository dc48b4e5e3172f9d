package gitignore

import (
	"slices"
	"strings"
)

// Matcher holds the rules in effect in one directory of a tree: those of
// the .gitignore files of that directory and of the directories above it,
// plus any global rules given to New. Deeper files take precedence over
// shallower ones and later lines over earlier ones, as in git.
//
// A Matcher is immutable and safe for concurrent use; Child and With
// return a new Matcher that shares its parent. The nil *Matcher is a valid
// Matcher without rules.
type Matcher struct {
	parent *Matcher
	base   string // directory of the rules: "" or "dir/"
	rules  []Rule
	last   []byte // rules[i].last, scanned before the rules themselves
}

// New returns a Matcher with global rules, which have lower precedence
// than every .gitignore file, like git's core.excludesFile and
// .git/info/exclude (later rules win: pass excludesFile rules first). With
// no rules it returns an empty Matcher, the one to start a walk with.
func New(rules ...Rule) *Matcher {
	if len(rules) == 0 {
		return &Matcher{}
	}
	return (*Matcher)(nil).With(rules...)
}

// Child returns the Matcher for the directory dir (slash-separated,
// relative to the root of the walk, "" for the root itself): m, which must
// be the Matcher of the parent directory (or New() for the root), plus the
// rules of content, the .gitignore file of dir. When content has no rules
// (a missing file is nil content) Child returns m itself.
//
// The caller reads the file; like git it should skip a .gitignore that is
// a symbolic link or not a regular file, and not descend into directories
// that are ignored (a .gitignore in them has no effect).
func (m *Matcher) Child(dir string, content []byte) *Matcher {
	return m.with(Parse(content, dir))
}

// With returns a Matcher with rules added, taking precedence over the
// rules of m (later rules win), or m itself when there are none. Each rule
// applies below its own Base; for the semantics of git, the rules of a
// directory must be added after those of all its ancestors.
func (m *Matcher) With(rules ...Rule) *Matcher {
	return m.with(slices.Clone(rules))
}

// with is With without the copy, for rules the Matcher may keep.
func (m *Matcher) with(rules []Rule) *Matcher {
	for len(rules) > 0 {
		n := 1
		for n < len(rules) && rules[n].base == rules[0].base {
			n++
		}
		if m != nil && m.parent == nil && len(m.rules) == 0 {
			m = nil // drop the empty root level of New()
		}
		last := make([]byte, n)
		for i := range last {
			last[i] = rules[i].last
		}
		m = &Matcher{parent: m, base: rules[0].base, rules: rules[:n:n], last: last}
		rules = rules[n:]
	}
	return m
}

// Match returns the last rule matching the entry rel (a slash-separated
// path relative to the root, without a leading "./" or trailing slash; a
// directory if isDir), or nil when no rule matches. The entry is ignored
// when the result is not nil and not Negated. Only the entry's own name is
// considered, not its parent directories: this is the check of a walker
// that does not descend into ignored directories (see MatchPath).
//
// Only rules of m whose Base is a prefix of rel take part. A symbolic link
// is not a directory, whatever it points to (git does not follow it).
func (m *Matcher) Match(rel string, isDir bool) *Rule {
	if rel == "" {
		return nil
	}
	return m.match(rel, rel[strings.LastIndexByte(rel, '/')+1:], isDir)
}

// match is git's last_matching_pattern_from_lists over the levels of m.
// rel must not be empty.
func (m *Matcher) match(rel, basename string, isDir bool) *Rule {
	lb := rel[len(rel)-1]
	for l := m; l != nil; l = l.parent {
		if len(rel) < len(l.base) || rel[:len(l.base)] != l.base {
			continue
		}
		name := rel[len(l.base):]
		last := l.last[:len(l.rules)]
		for i := len(last) - 1; i >= 0; i-- {
			if c := last[i]; c != 0 && c != lb {
				continue // cannot match: rel does not end with c
			}
			if r := &l.rules[i]; r.match(name, basename, isDir) {
				return r
			}
		}
	}
	return nil
}

// Ignored reports whether the entry rel is excluded by its own name, given
// that its parent directories are not: Match(rel, isDir) is a rule that is
// not negated. It does not allocate.
func (m *Matcher) Ignored(rel string, isDir bool) bool {
	r := m.Match(rel, isDir)
	return r != nil && r.flags&flagNegated == 0
}

// MatchPath is Match for an arbitrary path: when a parent directory of rel
// is ignored it returns the rule excluding the topmost such directory (git
// cannot re-include a file whose parent directory is excluded), else
// Match(rel, isDir). A trailing slash on rel makes it a directory.
//
// m must hold the rules of the .gitignore files of every directory from
// the root down to the parent of rel (as a Matcher built with Child for
// each of them, or Tree.Dir); use Tree for paths without such a Matcher.
func (m *Matcher) MatchPath(rel string, isDir bool) *Rule {
	if strings.HasSuffix(rel, "/") {
		rel = strings.TrimRight(rel, "/")
		isDir = true
	}
	for i := 0; i < len(rel); i++ {
		if rel[i] == '/' {
			// Levels for rel[:i] and deeper have a Base that is not a
			// prefix of rel[:i]: each directory is judged by the rules
			// above it, as git does.
			if r := m.Match(rel[:i], true); r != nil && !r.Negated() {
				return r
			}
		}
	}
	return m.Match(rel, isDir)
}

// IgnoredPath reports whether rel is ignored, itself or because a parent
// directory is: MatchPath(rel, isDir) is a rule that is not negated.
func (m *Matcher) IgnoredPath(rel string, isDir bool) bool {
	r := m.MatchPath(rel, isDir)
	return r != nil && !r.Negated()
}
