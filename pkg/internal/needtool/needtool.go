// Package needtool finds the programs a test compares ws with or runs:
// a test skips without one, unless CI asks for it (an environment
// variable set to 1), when it fails instead.
package needtool

import (
	"os"
	"os/exec"
	"testing"
)

// Path is where the program name is. Without it the test is skipped, or,
// when the variable require is "1" (as .ci/run sets it), failed.
func Path(t testing.TB, name, require string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv(require) == "1" {
		t.Fatalf("%s=1 and %s is not installed", require, name)
	}
	t.Skipf("%s is not installed", name)
	return ""
}
