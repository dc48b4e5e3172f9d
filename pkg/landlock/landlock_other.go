//go:build !linux

package landlock

// ABI reports that Landlock is Linux's only.
func ABI() (int, error) { return 0, ErrUnavailable }

// Restrict is not possible without Landlock.
func Restrict(Policy) error { return ErrUnavailable }

// Exec is not possible without Landlock.
func Exec(args, env []string) error { return ErrUnavailable }
