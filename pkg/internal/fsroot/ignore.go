package fsroot

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/wstools/ws/pkg/gitignore"
	"golang.org/x/sys/unix"
)

// Ignore is what .gitignore files say for one directory of a walk:
// the rules of the walk root and of every directory down to this one.
// A nil state ignores nothing.
type Ignore struct {
	m   *gitignore.Matcher
	dir string // this directory, relative to the workspace root ("" = root)
}

// IgnoreFor prepares the rules that apply above a walk's start directory:
// the repository's own excludes (.git/info/exclude, when the root of the
// allowed path that holds it is a git work tree), then the .gitignore files
// from that root down to the start directory's parent. The start directory's own file is read by child when the
// walk lists it. When the start directory is itself ignored, filtering is
// off for the call (listing or searching an ignored directory on purpose
// shows its content), as in Mastra.
func (fsys *FS) IgnoreFor(t *Target) *Ignore {
	if t.root == nil {
		return nil
	}
	rootFD, err := fsys.rootFD(t.root)
	if err != nil {
		return nil
	}
	st := &Ignore{m: gitignore.New(repoExcludes(rootFD)...)}
	sub := t.sub
	if sub == "." {
		return st
	}
	parts := strings.Split(sub, "/")
	dir := ""
	for i, part := range parts {
		st = st.childAt(rootFD, dir)
		rel := JoinRel(dir, part)
		isLast := i == len(parts)-1
		if st.m.Ignored(rel, true) {
			return nil
		}
		if !isLast {
			dir = rel
		}
	}
	st.dir = dir
	return st.withDir(sub)
}

// ExcludeFile is where a git repository keeps the patterns it ignores
// without a .gitignore, relative to the work tree's root.
const ExcludeFile = ".git/info/exclude"

// repoExcludes are the rules of the root's .git/info/exclude, which git
// applies below every .gitignore: what `git status` hides is hidden here
// too. A root whose .git is a file (a linked worktree, a submodule) keeps
// that file elsewhere, outside the tree, and has none; so has one whose
// .git or info is a link that leads out of it (where the kernel has
// openat2, as readSmallFileAt resolves the path beneath the root).
func repoExcludes(rootFD int) []gitignore.Rule {
	content, _ := readSmallFileAt(rootFD, ExcludeFile)
	return gitignore.Parse(content, "")
}

// withDir moves the state to dir without reading anything.
func (s *Ignore) withDir(dir string) *Ignore {
	if dir == "." {
		dir = ""
	}
	return &Ignore{m: s.m, dir: dir}
}

// childAt adds the ignore files of dir (relative to the root open at
// rootFD).
func (s *Ignore) childAt(rootFD int, dir string) *Ignore {
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	content, _, _ := readIgnoreFiles(rootFD, prefix)
	return &Ignore{m: s.m.Child(dir, content), dir: dir}
}

// IgnoreFiles are the names of the files whose patterns a walk applies to
// their directory and below: git's .gitignore, and .ignore, which ripgrep,
// fd and ag read for what only searches should pass over. A directory's
// .ignore comes after its .gitignore, so its patterns win where they
// disagree, as they do in ripgrep.
var IgnoreFiles = []string{gitignore.FileName, ".ignore"}

// readIgnoreFiles is the patterns of the ignore files prefix names below
// dirfd ("" for dirfd's own, "sub/" for sub's), in IgnoreFiles' order.
// err is why the one named bad, there, could not be read.
func readIgnoreFiles(dirfd int, prefix string) (content []byte, bad string, err error) {
	for _, name := range IgnoreFiles {
		data, rerr := readSmallFileAt(dirfd, prefix+name)
		if rerr != nil && err == nil {
			bad, err = name, rerr
		}
		if len(data) > 0 {
			if len(content) > 0 {
				content = append(content, '\n')
			}
			content = append(content, data...)
		}
	}
	return content, bad, err
}

// Child is the state for the subdirectory name of this one ("" for this
// directory itself), open at fd: its own ignore files are added. listed
// says whether the directory's listing holds one of IgnoreFiles; when it
// does not, there is nothing to read. err is why one that is there could
// not be read (no permission, an I/O error): its rules are not applied,
// and the walk says so, naming it bad.
func (s *Ignore) Child(name string, fd int, listed bool) (_ *Ignore, bad string, err error) {
	if s == nil {
		return nil, "", nil
	}
	dir := s.dir
	if name != "" {
		dir = JoinRel(s.dir, name)
	}
	var content []byte
	if listed {
		content, bad, err = readIgnoreFiles(fd, "")
	}
	return &Ignore{m: s.m.Child(dir, content), dir: dir}, bad, err
}

// Ignored reports whether the entry name of this directory is excluded.
func (s *Ignore) Ignored(name string, isDir bool) bool {
	if s == nil {
		return false
	}
	return s.m.Ignored(JoinRel(s.dir, name), isDir)
}

// readSmallFileAt reads an ignore file below dirfd. A missing or unreadable
// file is empty, and so is one that is not a regular file: a symbolic
// link is not followed (git reads no linked .gitignore either, and the
// walk's rules cannot come from a file elsewhere), and a FIFO, opened
// without blocking, cannot hold the walk waiting for a writer. The error
// is why a file that is there could not be read (not a missing one, a
// link or another file type, which are passed over by design).
func readSmallFileAt(dirfd int, name string) ([]byte, error) {
	const flags = unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC | unix.O_NOFOLLOW
	var fd int
	var err error
	if HaveOpenat2() {
		fd, err = unix.Openat2(dirfd, name, &unix.OpenHow{Flags: flags, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS})
	} else {
		fd, err = unix.Openat(dirfd, name, flags, 0)
	}
	switch err {
	case nil:
	case unix.ENOENT, unix.ENOTDIR, unix.ELOOP, unix.ENXIO, unix.EXDEV:
		return nil, nil // not there, a symlink, a socket
	default:
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, nil
	}
	data, err := io.ReadAll(io.LimitReader(f, gitignore.MaxFileSize))
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return data, err
	}
	return data, nil
}
