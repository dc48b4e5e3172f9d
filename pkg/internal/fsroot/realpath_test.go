package fsroot

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRealPathOfReplacedFile: a file replaced (renamed over) after it was
// opened still names its path, not "… (deleted)": two writers of one path
// must take one lock (found by the fault suite: concurrent editors).
func TestRealPathOfReplacedFile(t *testing.T) {
	dir := RealpathPartial(t.TempDir())
	p := filepath.Join(dir, "f.txt")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(p, []byte("old"), 0o644))
	f, err := os.Open(p)
	must(err)
	defer f.Close()
	must(os.WriteFile(p+".new", []byte("new"), 0o644))
	must(os.Rename(p+".new", p))
	if got := RealPathOf(int(f.Fd()), p); got != p {
		t.Fatalf("RealPathOf a replaced file = %q, want %q", got, p)
	}
}
