package gitignore

import (
	"io/fs"
	"path"
	"strings"
	"sync"
)

// FileName is the name of the per-directory pattern file.
const FileName = ".gitignore"

// Tree answers for arbitrary paths of a file system: it reads the
// .gitignore files of the directories on the way to a path when first
// needed and keeps a Matcher per directory. It is safe for concurrent use.
type Tree struct {
	fsys   fs.FS
	global *Matcher

	mu   sync.RWMutex
	dirs map[string]*Matcher // "" or "a/b" -> rules down to its .gitignore
}

// NewTree returns a Tree for the tree rooted at fsys, whose .gitignore
// files add to global (which may be nil, or New with global rules).
//
// Like git, the Tree skips a .gitignore that is a symbolic link (when fsys
// implements fs.ReadLinkFS, as os.DirFS does), that is not a regular file,
// that cannot be read, or that has MaxFileSize bytes or more.
func NewTree(fsys fs.FS, global *Matcher) *Tree {
	return &Tree{fsys: fsys, global: global, dirs: make(map[string]*Matcher)}
}

// Dir returns the Matcher for the directory dir (slash-separated, "" or
// "." for the root): the rules of the .gitignore files of the root and of
// every directory down to dir included, whether or not one of those
// directories is ignored.
func (t *Tree) Dir(dir string) *Matcher {
	dir = strings.Trim(strings.TrimPrefix(dir, "./"), "/")
	if dir == "." {
		dir = ""
	}
	m := t.dir(t.global, "")
	for i := 0; i < len(dir); i++ {
		if dir[i] == '/' {
			m = t.dir(m, dir[:i])
		}
	}
	if dir != "" {
		m = t.dir(m, dir)
	}
	return m
}

// Match returns the rule that decides whether rel (a slash-separated path
// relative to the root; a directory if isDir or if it ends with a slash) is
// ignored, as Matcher.MatchPath does, or nil when no rule matches. Like
// git, it does not read .gitignore files below an ignored directory.
func (t *Tree) Match(rel string, isDir bool) *Rule {
	rel = strings.TrimPrefix(rel, "./")
	if strings.HasSuffix(rel, "/") {
		rel = strings.TrimRight(rel, "/")
		isDir = true
	}
	m := t.dir(t.global, "")
	for i := 0; i < len(rel); i++ {
		if rel[i] == '/' {
			if r := m.Match(rel[:i], true); r != nil && !r.Negated() {
				return r
			}
			m = t.dir(m, rel[:i])
		}
	}
	return m.Match(rel, isDir)
}

// Ignored reports whether rel is ignored, itself or because one of its
// parent directories is: Match(rel, isDir) is a rule that is not negated.
func (t *Tree) Ignored(rel string, isDir bool) bool {
	r := t.Match(rel, isDir)
	return r != nil && !r.Negated()
}

// dir returns the cached Matcher of dir, building it from parent, the
// Matcher of its parent directory, on first use.
func (t *Tree) dir(parent *Matcher, dir string) *Matcher {
	t.mu.RLock()
	m, ok := t.dirs[dir]
	t.mu.RUnlock()
	if ok {
		return m
	}
	m = parent.Child(dir, t.read(path.Join(dir, FileName)))
	t.mu.Lock()
	if old, ok := t.dirs[dir]; ok {
		m = old
	} else {
		t.dirs[dir] = m
	}
	t.mu.Unlock()
	return m
}

// read returns the content of the pattern file name, or nil when git
// would not read it.
func (t *Tree) read(name string) []byte {
	fi, err := fs.Lstat(t.fsys, name)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() >= MaxFileSize {
		return nil
	}
	data, err := fs.ReadFile(t.fsys, name)
	if err != nil {
		return nil
	}
	return data
}
