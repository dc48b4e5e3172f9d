package statefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Relative is err with the state directory dir left out of its message:
// "mkdir reads: not a directory" for a path below it, "." for dir itself,
// not the machine's absolute path (a tool's message reaches the model,
// and the state directory is where ws info says). It still unwraps to err.
func Relative(dir string, err error) error {
	if dir == "" || err == nil {
		return err
	}
	dir = filepath.Clean(dir)
	msg := err.Error()
	out := strings.ReplaceAll(msg, dir+string(filepath.Separator), "")
	for _, end := range []string{":", " ", ")"} {
		out = strings.ReplaceAll(out, dir+end, "."+end)
	}
	if strings.HasSuffix(out, dir) {
		out = strings.TrimSuffix(out, dir) + "."
	}
	if out == msg {
		return err
	}
	return &relError{msg: out, err: err}
}

// relError is an error with a rewritten message.
type relError struct {
	msg string
	err error
}

func (e *relError) Error() string { return e.msg }
func (e *relError) Unwrap() error { return e.err }

// DirProblem says what makes the state directory dir itself unusable when
// err is about that, not about a file below it: it cannot be created (a
// mkdir of dir, or of a directory above it, failed), or something other
// than a directory stands where it should be. It is "" otherwise. Relative
// would turn such an error into "mkdir .: …", which names nothing.
func DirProblem(dir string, err error) string {
	if dir == "" || err == nil {
		return ""
	}
	dir = filepath.Clean(dir)
	if fi, serr := os.Stat(dir); serr == nil && !fi.IsDir() {
		return "not a directory (a file is in its place)"
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Op != "mkdir" {
		return ""
	}
	p := filepath.Clean(pe.Path)
	if p != dir && !strings.HasPrefix(dir, strings.TrimSuffix(p, string(filepath.Separator))+string(filepath.Separator)) {
		return ""
	}
	why := pe.Err.Error()
	var errno syscall.Errno
	if errors.As(pe.Err, &errno) {
		why = errno.Error()
	}
	if p != dir {
		return "cannot create it: " + p + ": " + why
	}
	return "cannot create it: " + why
}
