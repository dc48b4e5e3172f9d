package fsroot

import (
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOpenat2Detected guards against silently running on the fallback where
// the kernel has openat2 (Linux 5.6 and later).
func TestOpenat2Detected(t *testing.T) {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		t.Skip(err)
	}
	rel := unix.ByteSliceToString(u.Release[:])
	parts := strings.SplitN(rel, ".", 3)
	if len(parts) < 2 {
		t.Skipf("unparsable kernel release %q", rel)
	}
	major, _ := strconv.Atoi(parts[0])
	minor, _ := strconv.Atoi(parts[1])
	if major > 5 || major == 5 && minor >= 6 {
		if !HaveOpenat2() {
			t.Skipf("kernel %s should offer openat2, but it is refused here (seccomp?)", rel)
		}
		return
	}
	t.Skipf("kernel %s predates openat2", rel)
}
