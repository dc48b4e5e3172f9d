package skills

import "fmt"

// FS is what skills need from a filesystem. Paths are slash-separated and
// spelt as the config and discovery spell them: relative to the workspace
// root, or absolute inside it.
type FS interface {
	// ReadDir lists a directory, sorted by name; a symlink reports its
	// target's type in IsDir.
	ReadDir(path string) ([]Entry, error)
	// ReadFile returns a regular file's bytes; a file too large to take
	// into memory is a *TooLargeError.
	ReadFile(path string) ([]byte, error)
	// Exists reports whether path exists (symlinks followed). The error
	// is set when the path cannot be looked at: one the workspace refuses
	// (outside its roots, or a symlink leading out), or a failing stat.
	// A path that is simply not there is (false, nil).
	Exists(path string) (bool, error)
	// RealPath resolves symlinks; skills found at two paths that resolve
	// to one directory are one skill.
	RealPath(path string) (string, error)
}

// Entry is one directory entry.
type Entry struct {
	Name   string
	IsDir  bool
	IsLink bool
}

// TooLargeError is a skill file larger than what ReadFile takes.
type TooLargeError struct {
	Path  string
	Limit int64 // bytes
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %d MiB, more than a skill file may hold", e.Path, e.Limit>>20)
}
