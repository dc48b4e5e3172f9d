package grep

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/internal/fsroot"
)

// forgetTree is a big file of matching lines first in walk order (it is
// read in windows and sent in parts), then many small ones whose every
// line matches: while the big one is scanned, the others are done out of
// turn and wait, whole, to be taken. It also gives the matcher of their
// lines and sets maxHeld to held until the test ends.
func forgetTree(t *testing.T, held int) (*fsroot.FS, *Matcher) {
	t.Helper()
	m, err := Compile("needle", true)
	must(t, err)
	was := maxHeld
	t.Cleanup(func() { maxHeld = was })
	maxHeld = held
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "a-big.log"), []byte(strings.Repeat("needle in the big file\n", 200_000)), 0o644))
	for i := range 120 {
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("b%03d.log", i)), []byte(strings.Repeat(fmt.Sprintf("needle %d\n", i), 3000)), 0o644))
	}
	return fsroot.New(fsroot.Options{Base: dir, Contained: true}), m
}

// sent is what OnFile was given, as a stream prints it.
func sent(f *File) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s continued=%v more=%v count=%d:", f.Rel, f.Continued, f.More, f.Count)
	for _, h := range f.Hits {
		fmt.Fprintf(&sb, " %d:%q", h.Line, f.Lines.Get(f.Buf, h.Line))
	}
	return sb.String()
}

// TestForgetBoundsHeld: a stream that forgets what it sent (Forget) gets
// the same files, parts and lines in the same order as one that keeps
// them, each file then keeps only its name and count, and the files done
// out of turn never hold much more than maxHeld (a worker may pass admit
// with a file each before the others count theirs).
func TestForgetBoundsHeld(t *testing.T) {
	fsys, m := forgetTree(t, 256<<10)
	run := func(forget bool) ([]string, *Result) {
		var got []string
		res, err := Search(context.Background(), fsys, ".", Options{Matcher: m, Parts: true, Forget: forget,
			OnFile: func(f *File) { got = append(got, sent(f)) }})
		must(t, err)
		return got, res
	}
	kept, _ := run(false)
	forgot, res := run(true)
	if len(kept) != len(forgot) {
		t.Fatalf("forgetting, %d calls of OnFile; keeping, %d", len(forgot), len(kept))
	}
	for i := range kept {
		if kept[i] != forgot[i] {
			t.Fatalf("call %d of OnFile differs:\nkeeping:    %.200s\nforgetting: %.200s", i, kept[i], forgot[i])
		}
	}
	if len(res.Files) != 121 {
		t.Fatalf("%d files, want 121", len(res.Files))
	}
	for _, f := range res.Files {
		if f.Hits != nil || f.Buf != nil || f.Lines != nil || f.Count == 0 {
			t.Fatalf("%s keeps %d hits, %d bytes, count %d after it was sent", f.Rel, len(f.Hits), len(f.Buf), f.Count)
		}
	}
	small := 3000 * (len("needle 100\n") + 16 + 8) * 2 // a small file's weight, with room
	if bound := maxHeld + runtime.GOMAXPROCS(0)*small; res.heldPeak > bound {
		t.Fatalf("the files done out of turn held %d bytes at once, more than %d", res.heldPeak, bound)
	}
	if res.heldPeak == 0 {
		t.Fatal("no file was held: the test does not reach admit")
	}
}

// TestForgetCancelWhileWaiting: a search whose workers wait in admit ends
// when its context is cancelled, and a file that becomes the next to
// take while its worker waits is scanned: nothing is left waiting.
func TestForgetCancelWhileWaiting(t *testing.T) {
	fsys, m := forgetTree(t, 1) // every file but the next waits
	for _, cancelAt := range []int{-1, 1, 5, 40} {
		ctx, cancel := context.WithCancel(context.Background())
		calls := 0
		done := make(chan *Result, 1)
		go func() {
			res, _ := Search(ctx, fsys, ".", Options{Matcher: m, Parts: true, Forget: true,
				OnFile: func(f *File) {
					if calls++; calls == cancelAt {
						cancel()
					}
				}})
			done <- res
		}()
		select {
		case res := <-done:
			if cancelAt < 0 && len(res.Files) != 121 {
				t.Fatalf("not cancelled: %d files, want 121", len(res.Files))
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("cancelled at call %d of OnFile: the search did not end", cancelAt)
		}
		cancel()
	}
}
