package runner

import (
	"errors"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/wstools/ws/pkg/errs"
)

// StartError says in plain words why the program prog could not be
// started, when err (from Run) is that ("fork/exec ./policy.sh: no such
// file or directory" is Go's), and for a relative program where it was
// looked for: dir names the directory the command runs in ("the workspace
// root"), not the one of the config that names it. Any other err is
// returned as it is.
func StartError(prog, dir string, err error) error {
	var pe *fs.PathError
	var ee *exec.Error
	switch {
	case errors.As(err, &pe):
		msg := "cannot start " + prog + ": " + errs.Errno(pe.Err)
		if !filepath.IsAbs(prog) && strings.ContainsRune(prog, '/') {
			msg += " (a relative program is found from " + dir + ", where the command runs; give an absolute path)"
		}
		return &startError{msg, err}
	case errors.As(err, &ee):
		if errors.Is(ee.Err, exec.ErrNotFound) {
			return &startError{"cannot start " + prog + ": no such program in PATH", err}
		}
		return &startError{"cannot start " + prog + ": " + errs.Errno(ee.Err), err}
	}
	return err
}

// startError is a program that could not be started, in plain words.
type startError struct {
	msg string
	err error
}

func (e *startError) Error() string { return e.msg }
func (e *startError) Unwrap() error { return e.err }
