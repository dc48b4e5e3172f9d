package statefile

import (
	"path/filepath"
	"strings"
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
