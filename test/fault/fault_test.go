//go:build fault

package fault

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/workspace"
)

// wsBin is the ws binary built for the suite.
var wsBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ws-fault-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	wsBin = filepath.Join(dir, "ws")
	build := exec.Command("go", "build", "-o", wsBin, "github.com/wstools/ws")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building ws:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// iterations is a count from the environment (WS_FAULT_ITERATIONS scales
// every loop of the suite), def when unset.
func iterations(t *testing.T, def int) int {
	if s := os.Getenv("WS_FAULT_ITERATIONS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("WS_FAULT_ITERATIONS=%q: want a positive count", s)
		}
		return n * def / 50
	}
	return def
}

// ws runs the ws binary in root with its own state directory.
func ws(root string, args ...string) *exec.Cmd {
	c := exec.Command(wsBin, args...)
	c.Dir = root
	c.Env = append(os.Environ(), "WS_STATE_DIR="+filepath.Join(filepath.Dir(root), "state"), "WS_ROOT="+root)
	return c
}

// killAtRandom starts c and kills it with SIGKILL at a random moment
// (drawn from rng) within window of its start, then waits for it.
func killAtRandom(t *testing.T, c *exec.Cmd, rng *rand.Rand, window time.Duration) {
	t.Helper()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Duration(rng.Int63n(int64(window))))
	c.Process.Signal(syscall.SIGKILL)
	c.Wait()
}

func newRoot(t *testing.T) string {
	root := filepath.Join(t.TempDir(), "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// temps lists the temporary files of ws in dir.
func temps(t *testing.T, dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".ws-tmp-") {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestKillDuringWrite kills `ws write` with SIGKILL at a random moment of
// writing 1–4 MiB (from a file on stdin, and through a pipe): the file must
// then hold its old bytes or the new ones, never a mix or a truncation, and
// the next write must leave no temporary file behind. The kill comes at a
// random point of the time a whole 4 MiB write takes on this machine, and
// the test fails when no kill caught a write in progress (its temporary
// file present), since it would then have tested nothing.
func TestKillDuringWrite(t *testing.T) {
	n := iterations(t, 50)
	root := newRoot(t)
	target := filepath.Join(root, "f.bin")
	rng := rand.New(rand.NewSource(1))
	window := writeTime(t, root, 4<<20)
	old := []byte("initial\n")
	if err := os.WriteFile(target, old, 0o644); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(filepath.Dir(root), "src.bin")
	var partial, sawOld, sawNew, leftovers int
	for i := 0; i < n; i++ {
		next := make([]byte, 1<<20+rng.Intn(3<<20))
		rng.Read(next)
		c := ws(root, "write", "f.bin")
		var feed *os.File
		if i%2 == 0 {
			if err := os.WriteFile(src, next, 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(src)
			if err != nil {
				t.Fatal(err)
			}
			c.Stdin = f
		} else {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			c.Stdin, feed = r, w
		}
		if feed != nil {
			// The pipe holds what the child has not read yet: the writer
			// blocks until it reads, or gets EPIPE once it is killed.
			go func(w *os.File, data []byte) { w.Write(data); w.Close() }(feed, next)
		}
		killAtRandom(t, c, rng, window)
		if f, ok := c.Stdin.(*os.File); ok {
			f.Close()
		}
		got, err := os.ReadFile(target)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case bytes.Equal(got, next):
			sawNew++
			old = next
		case bytes.Equal(got, old):
			sawOld++
		default:
			partial++
			t.Errorf("iteration %d: the file holds %d bytes, neither the old %d nor the new %d", i, len(got), len(old), len(next))
			old = got
		}
		leftovers += len(temps(t, root))
	}
	if out, err := ws(root, "write", "f.bin", "--content", "done").CombinedOutput(); err != nil {
		t.Fatalf("the write after the kills failed: %v: %s", err, out)
	}
	left := temps(t, root)
	counts := fmt.Sprintf("%d kills within %v of the start of a write: %d partial files, old content %d times, new %d times; %d temporary files seen after kills, %d left after the next write",
		n, window.Round(time.Millisecond), partial, sawOld, sawNew, leftovers, len(left))
	t.Log(counts)
	if len(left) > 0 {
		t.Errorf("temporary files left after the next write: %v", left)
	}
	if leftovers == 0 {
		if n < 10 {
			t.Skipf("no kill landed in the middle of a write (%d iterations are too few to be sure): %s", n, counts)
		}
		t.Errorf("no kill landed in the middle of a write (no temporary file was ever seen), so nothing was tested: %s", counts)
	}
}

// writeTime is how long an uninterrupted `ws write` of size bytes from a
// file takes here, process start included: the longest of three runs.
func writeTime(t *testing.T, root string, size int) time.Duration {
	src := filepath.Join(filepath.Dir(root), "probe.bin")
	if err := os.WriteFile(src, bytes.Repeat([]byte("probe\n"), size/6), 0o600); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(src)
	var opened []*os.File
	defer func() {
		for _, f := range opened {
			f.Close()
		}
	}()
	longest := longestRun(t, "write", func(int) *exec.Cmd {
		c := ws(root, "write", "probe.bin")
		f, err := os.Open(src)
		if err != nil {
			t.Fatal(err)
		}
		opened = append(opened, f)
		c.Stdin = f
		return c
	})
	if err := os.Remove(filepath.Join(root, "probe.bin")); err != nil {
		t.Fatal(err)
	}
	return longest
}

// longestRun is the longest of three runs of the command cmd makes (run
// i of 0, 1, 2), process start included; a run that fails fails the test.
func longestRun(t *testing.T, what string, cmd func(i int) *exec.Cmd) time.Duration {
	longest := time.Millisecond
	for i := range 3 {
		c := cmd(i)
		start := time.Now()
		out, err := c.CombinedOutput()
		d := time.Since(start)
		if err != nil {
			t.Fatalf("a plain %s failed: %v: %s", what, err, out)
		}
		longest = max(longest, d)
	}
	return longest
}

// TestKillDuringMove kills `ws move` with SIGKILL at a random moment of
// its run: the file must then be whole at exactly one of its two paths
// (the rename is one step), and `ws undo` after the kill must leave it so
// too (moved back, or refused with a reason, or nothing to undo), never
// lose it or leave two copies. The kills straddle the rename: the test
// fails unless some left the file moved and some did not.
func TestKillDuringMove(t *testing.T) {
	n := iterations(t, 50)
	root := newRoot(t)
	rng := rand.New(rand.NewSource(2))
	window := moveTime(t, root)
	var moved, stayed, lost int
	where := func(a, b string, want []byte) (atA, atB bool) {
		ga, errA := os.ReadFile(filepath.Join(root, a))
		gb, errB := os.ReadFile(filepath.Join(root, b))
		atA, atB = errA == nil, errB == nil
		if atA && !bytes.Equal(ga, want) || atB && !bytes.Equal(gb, want) {
			t.Errorf("%s or %s holds other bytes than the file's", a, b)
		}
		return atA, atB
	}
	for i := 0; i < n; i++ {
		src, dst := fmt.Sprintf("src/f%d.txt", i), fmt.Sprintf("dst/%d/f.txt", i)
		content := []byte(fmt.Sprintf("file %d\n", i))
		if err := os.MkdirAll(filepath.Join(root, "src"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, src), content, 0o644); err != nil {
			t.Fatal(err)
		}
		c := ws(root, "move", src, dst)
		killAtRandom(t, c, rng, window)
		atA, atB := where(src, dst, content)
		switch {
		case atA && atB:
			t.Errorf("iteration %d: after the kill the file is at both paths", i)
		case !atA && !atB:
			lost++
			t.Errorf("iteration %d: after the kill the file is at neither path", i)
		case atB:
			moved++
		default:
			stayed++
		}
		out, err := ws(root, "undo", dst).CombinedOutput()
		if undoFailed(err, out) {
			t.Errorf("iteration %d: undo after the kill: %v: %s", i, err, out)
		}
		if atA, atB := where(src, dst, content); atA == atB {
			t.Errorf("iteration %d: after the kill and an undo the file is at both paths or neither (%v %v): %s", i, atA, atB, out)
		}
	}
	counts := fmt.Sprintf("%d kills within %v of the start of a move: moved %d times, not moved %d times, lost %d", n, window.Round(time.Millisecond), moved, stayed, lost)
	straddled(t, n, moved, stayed, counts)
}

// undoFailed reports whether an undo run to its end (its error and
// output) failed other than by refusing with a reason or finding nothing
// to undo: both are right after a kill.
func undoFailed(err error, out []byte) bool {
	return err != nil && !bytes.Contains(out, []byte("nothing to undo")) && !bytes.Contains(out, []byte("cannot undo"))
}

// straddled logs counts, what n kills of a move did, and fails the test
// unless they straddled the rename: some left it moved, some not
// (stayed); else little was tested. Under 10 iterations are too few to
// be sure, and the test is skipped instead.
func straddled(t *testing.T, n, moved, stayed int, counts string) {
	t.Helper()
	t.Log(counts)
	if moved == 0 || stayed == 0 {
		if n < 10 {
			t.Skipf("the kills did not straddle the rename (%d iterations are too few to be sure): %s", n, counts)
		}
		t.Errorf("the kills did not straddle the rename, so little was tested: %s", counts)
	}
}

// TestConcurrentMoves runs 6 ws processes moving one file back and forth
// between two paths at once (x to y, y to x): each move takes both paths'
// locks, in one order, so none waits for ever, and the file ends whole at
// exactly one of them.
func TestConcurrentMoves(t *testing.T) {
	const movers = 6
	moves := max(iterations(t, 20), 1)
	root := newRoot(t)
	content := []byte("the one file\n")
	if err := os.WriteFile(filepath.Join(root, "x.txt"), content, 0o644); err != nil {
		t.Fatal(err)
	}
	var done, refused atomic.Int64
	var wg sync.WaitGroup
	for m := 0; m < movers; m++ {
		wg.Add(1)
		go func(m int) {
			defer wg.Done()
			for i := 0; i < moves; i++ {
				from, to := "x.txt", "d/y.txt"
				if (m+i)%2 == 1 {
					from, to = to, from
				}
				out, err := ws(root, "move", from, to).CombinedOutput()
				switch {
				case err == nil:
					done.Add(1)
				case bytes.Contains(out, []byte("File not found")): // another mover took it first
					refused.Add(1)
				default:
					t.Errorf("mover %d, move %d: %v: %s", m, i, err, out)
				}
			}
		}(m)
	}
	wg.Wait()
	x, errX := os.ReadFile(filepath.Join(root, "x.txt"))
	y, errY := os.ReadFile(filepath.Join(root, "d/y.txt"))
	t.Logf("%d movers x %d moves of one file between two paths: %d moved, %d refused", movers, moves, done.Load(), refused.Load())
	switch {
	case (errX == nil) == (errY == nil):
		t.Errorf("the file ends at both paths or neither (%v, %v)", errX, errY)
	case errX == nil && !bytes.Equal(x, content), errY == nil && !bytes.Equal(y, content):
		t.Errorf("the file's bytes changed")
	}
}

// moveTime is how long an uninterrupted `ws move` takes here, process
// start included: the longest of three runs.
func moveTime(t *testing.T, root string) time.Duration {
	longest := longestRun(t, "move", func(i int) *exec.Cmd {
		name := fmt.Sprintf("probe%d.txt", i)
		if err := os.WriteFile(filepath.Join(root, name), []byte("probe\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return ws(root, "move", name, "probe/"+name)
	})
	if err := os.RemoveAll(filepath.Join(root, "probe")); err != nil {
		t.Fatal(err)
	}
	return longest
}

// dirTree is the tree moved by the directory tests: a few files, one in
// a subdirectory, one hidden, one empty directory.
var dirTree = map[string]string{"a.txt": "alpha\n", "sub/b.txt": "beta\n", ".hidden": "h\n", "sub/deeper/c.txt": "gamma\n", "empty/": ""}

// makeTree makes dirTree at dir, each file's content suffixed with tag.
func makeTree(t *testing.T, dir, tag string) {
	t.Helper()
	for rel, content := range dirTree {
		p := filepath.Join(dir, rel)
		if strings.HasSuffix(rel, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content+tag), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// treeAt says whether dir holds the tree makeTree made with tag, whole
// (every file with its bytes, nothing else), or is absent; anything else
// is reported as an error (a part of the tree, other bytes).
func treeAt(t *testing.T, dir, tag string) (present bool) {
	t.Helper()
	if _, err := os.Lstat(dir); os.IsNotExist(err) {
		return false
	}
	seen := map[string]bool{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if fi.IsDir() {
			rel += "/"
			if _, ok := dirTree[rel]; ok {
				seen[rel] = true
			}
			return nil
		}
		want, ok := dirTree[rel]
		got, rerr := os.ReadFile(p)
		switch {
		case !ok:
			t.Errorf("%s holds %s, which the tree does not", dir, rel)
		case rerr != nil || string(got) != want+tag:
			t.Errorf("%s/%s holds %q (%v), want %q", dir, rel, got, rerr, want+tag)
		}
		seen[rel] = true
		return nil
	})
	if err != nil {
		t.Errorf("walking %s: %v", dir, err)
	}
	for rel := range dirTree {
		if !seen[rel] {
			t.Errorf("%s lacks %s: the tree is not whole", dir, rel)
		}
	}
	return true
}

// TestKillDuringDirMove kills `ws move` of a directory, then `ws undo` of
// it, with SIGKILL at random moments of their runs: after each kill the
// tree must be whole at exactly one of its two paths (a directory moves
// in one rename, never copied), and a later undo (run to its end) must
// leave it so too (moved back, refused with a reason, or nothing to
// undo). The kills of the moves straddle the rename: the test fails
// unless some left the tree moved and some did not.
func TestKillDuringDirMove(t *testing.T) {
	n := iterations(t, 40)
	root := newRoot(t)
	rng := rand.New(rand.NewSource(3))
	window := dirMoveTime(t, root)
	var moved, stayed, killedUndoMoved, undoneAfterKill int
	one := func(i int, what, src, dst, tag, out string) (atDst bool) {
		atSrc, atDst := treeAt(t, filepath.Join(root, src), tag), treeAt(t, filepath.Join(root, dst), tag)
		if atSrc == atDst {
			t.Errorf("iteration %d, %s: the tree is at both paths or neither (%v, %v): %s", i, what, atSrc, atDst, out)
		}
		return atDst
	}
	for i := 0; i < n; i++ {
		src, dst, tag := fmt.Sprintf("src/d%d", i), fmt.Sprintf("dst/%d/d", i), fmt.Sprint(i)
		makeTree(t, filepath.Join(root, src), tag)
		c := ws(root, "move", src, dst)
		killAtRandom(t, c, rng, window)
		wasMoved := one(i, "after the kill of the move", src, dst, tag, "")
		if wasMoved {
			moved++
		} else {
			stayed++
		}
		// An undo killed at a random moment, then one run to its end.
		c = ws(root, "undo", dst)
		killAtRandom(t, c, rng, window)
		before := one(i, "after the kill of the undo", src, dst, tag, "")
		if before != wasMoved {
			killedUndoMoved++
		}
		out, err := ws(root, "undo", dst).CombinedOutput()
		if undoFailed(err, out) {
			t.Errorf("iteration %d: undo after the kills: %v: %s", i, err, out)
		}
		if after := one(i, "after the undo", src, dst, tag, string(out)); err == nil && after == before {
			t.Errorf("iteration %d: undo said it moved the tree, yet it did not: %s", i, out)
		} else if err == nil {
			undoneAfterKill++
		}
	}
	counts := fmt.Sprintf("%d kills within %v of the start of a directory move and of its undo: moved %d times, not moved %d times; killed undos moved it back %d times, the undos after them moved it %d times", n, window.Round(time.Millisecond), moved, stayed, killedUndoMoved, undoneAfterKill)
	straddled(t, n, moved, stayed, counts)
}

// dirMoveTime is how long an uninterrupted `ws move` of a directory takes
// here, process start included: the longest of three runs.
func dirMoveTime(t *testing.T, root string) time.Duration {
	longest := longestRun(t, "directory move", func(i int) *exec.Cmd {
		name := fmt.Sprintf("probe%d", i)
		makeTree(t, filepath.Join(root, name), "")
		return ws(root, "move", name, "probe/"+name)
	})
	if err := os.RemoveAll(filepath.Join(root, "probe")); err != nil {
		t.Fatal(err)
	}
	return longest
}

// TestConcurrentDirMoves runs 6 ws processes moving one directory back
// and forth between two paths at once (x to d/y, d/y to x), and 2 more
// undoing the last change meanwhile: each move and undo takes both
// paths' locks, in one order, so none waits for ever (every command is
// given a minute), and the tree ends whole at exactly one of them.
func TestConcurrentDirMoves(t *testing.T) {
	const movers, undoers = 6, 2
	moves := max(iterations(t, 15), 1)
	root := newRoot(t)
	makeTree(t, filepath.Join(root, "x"), "one")
	var done, refused atomic.Int64
	var wg sync.WaitGroup
	run := func(who string, args ...string) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		c := ws(root, args...)
		c2 := exec.CommandContext(ctx, c.Path, c.Args[1:]...)
		c2.Dir, c2.Env = c.Dir, c.Env
		out, err := c2.CombinedOutput()
		switch {
		case ctx.Err() != nil:
			t.Errorf("%s: %v did not end within a minute (a deadlock?): %s", who, args, out)
		case err == nil:
			done.Add(1)
		case bytes.Contains(out, []byte("File not found")), // another mover took it first
			bytes.Contains(out, []byte("already exists")), // it is at the destination already
			bytes.Contains(out, []byte("cannot undo")),
			bytes.Contains(out, []byte("nothing to undo")):
			refused.Add(1)
		default:
			t.Errorf("%s: %v: %v: %s", who, args, err, out)
		}
	}
	for m := 0; m < movers+undoers; m++ {
		wg.Add(1)
		go func(m int) {
			defer wg.Done()
			for i := 0; i < moves; i++ {
				if m >= movers {
					run(fmt.Sprintf("undoer %d", m), "undo")
					continue
				}
				from, to := "x", "d/y"
				if (m+i)%2 == 1 {
					from, to = to, from
				}
				run(fmt.Sprintf("mover %d", m), "move", from, to)
			}
		}(m)
	}
	wg.Wait()
	t.Logf("%d movers and %d undoers x %d runs on one directory between two paths: %d done, %d refused", movers, undoers, moves, done.Load(), refused.Load())
	if atX, atY := treeAt(t, filepath.Join(root, "x"), "one"), treeAt(t, filepath.Join(root, "d/y"), "one"); atX == atY {
		t.Errorf("the tree ends at both paths or neither (%v, %v)", atX, atY)
	}
}

// TestConcurrentEditors runs 8 ws processes editing one file at once, each
// bumping its own counter line; a lost update shows as a counter short of
// its count (or an edit that finds its line gone).
func TestConcurrentEditors(t *testing.T) {
	const editors = 8
	edits := max(iterations(t, 25), 1)
	root := newRoot(t)
	var lines strings.Builder
	for e := 0; e < editors; e++ {
		fmt.Fprintf(&lines, "editor-%d count 0\n", e)
	}
	if err := os.WriteFile(filepath.Join(root, "shared.txt"), []byte(lines.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var failed atomic.Int64
	var wg sync.WaitGroup
	for e := 0; e < editors; e++ {
		wg.Add(1)
		go func(e int) {
			defer wg.Done()
			for n := 0; n < edits; n++ {
				old := fmt.Sprintf("editor-%d count %d\n", e, n)
				out, err := ws(root, "edit", "shared.txt", "--old", old, "--new", fmt.Sprintf("editor-%d count %d\n", e, n+1)).CombinedOutput()
				if err != nil {
					failed.Add(1)
					t.Errorf("editor %d, edit %d: %v: %s", e, n, err, out)
					return
				}
			}
		}(e)
	}
	wg.Wait()
	data, err := os.ReadFile(filepath.Join(root, "shared.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lost := 0
	for e := 0; e < editors; e++ {
		if !strings.Contains(string(data), fmt.Sprintf("editor-%d count %d\n", e, edits)) {
			lost++
		}
	}
	t.Logf("%d editors x %d edits of one file: %d lost updates, %d failed edits", editors, edits, lost, failed.Load())
	if lost > 0 {
		t.Errorf("lost updates: the file ends as\n%s", data)
	}
}

// TestSymlinkSwapRace swaps a symlink (and a directory symlink) between a
// place inside the workspace and one outside, as fast as it can, while
// files are read and written through it: no read may see the outside
// file's bytes and no write may change it.
func TestSymlinkSwapRace(t *testing.T) {
	reads := iterations(t, 2000)
	tmp := t.TempDir()
	root, outside := filepath.Join(tmp, "root"), filepath.Join(tmp, "outside")
	for _, d := range []string{filepath.Join(root, "dir"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret := []byte("SECRET outside the workspace\n")
	for _, p := range []string{filepath.Join(outside, "secret.txt"), filepath.Join(outside, "f.txt")} {
		if err := os.WriteFile(p, secret, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{filepath.Join(root, "inside.txt"), filepath.Join(root, "dir", "f.txt")} {
		if err := os.WriteFile(p, []byte("inside\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err := workspace.New(workspace.Options{Root: root, Home: tmp, Config: config.Default(), StateDir: filepath.Join(tmp, "state")})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	swap := func(link string, targets ...string) func() {
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				tmpLink := link + ".new"
				os.Remove(tmpLink)
				if os.Symlink(targets[i%len(targets)], tmpLink) == nil {
					os.Rename(tmpLink, link)
				}
			}
		}()
		return func() { close(stop); <-done }
	}
	stopFile := swap(filepath.Join(root, "link"), "inside.txt", filepath.Join(outside, "secret.txt"))
	stopDir := swap(filepath.Join(root, "dlink"), "dir", outside)
	ctx := context.Background()
	escapes, served, refused := 0, 0, 0
	for i := 0; i < reads; i++ {
		for _, p := range []string{"link", "dlink/f.txt"} {
			res, err := w.Read(ctx, workspace.ReadRequest{Path: p})
			if err != nil {
				refused++
				continue
			}
			served++
			if strings.Contains(res.Text(), "SECRET") {
				escapes++
			}
		}
		if i%4 == 0 {
			for _, p := range []string{"link", "dlink/f.txt"} {
				if _, err := w.Write(ctx, workspace.WriteRequest{Path: p, Content: "written through the link\n"}); err != nil {
					refused++
				}
			}
		}
	}
	stopFile()
	stopDir()
	for _, p := range []string{filepath.Join(outside, "secret.txt"), filepath.Join(outside, "f.txt")} {
		if data, _ := os.ReadFile(p); !bytes.Equal(data, secret) {
			escapes++
			t.Errorf("%s was changed through the workspace: %q", p, data)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(outside, ".ws-tmp-*")); len(left) > 0 {
		escapes++
		t.Errorf("temporary files were created outside the workspace: %v", left)
	}
	t.Logf("%d reads and %d writes through swapped links: %d escapes (%d served, %d refused)", 2*reads, 2*((reads+3)/4), escapes, served, refused)
	if escapes > 0 {
		t.Errorf("%d escapes", escapes)
	}
}

// bigTreeFiles is how many files makeBigTree makes: enough that an undo
// putting them back takes a while, to be killed in.
const bigTreeFiles = 400

// makeBigTree makes bigTreeFiles small files at dir, 40 to a folder, each
// holding its name and tag.
func makeBigTree(t *testing.T, dir, tag string) {
	t.Helper()
	for i := range bigTreeFiles {
		rel := fmt.Sprintf("d%02d/f%03d.txt", i/40, i)
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(rel+" "+tag+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// bigTreeAt says whether dir holds the tree makeBigTree made with tag,
// whole, or is absent; a part of it, or other bytes, is an error.
func bigTreeAt(t *testing.T, dir, tag string) (present bool) {
	t.Helper()
	if _, err := os.Lstat(dir); os.IsNotExist(err) {
		return false
	}
	n := 0
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if got, err := os.ReadFile(p); err != nil || string(got) != rel+" "+tag+"\n" {
			t.Errorf("%s holds %q (%v), want %q", p, got, err, rel+" "+tag+"\n")
		}
		n++
		return nil
	})
	if err != nil {
		t.Errorf("walking %s: %v", dir, err)
	}
	if n != bigTreeFiles {
		t.Errorf("%s holds %d files of the tree's %d: not whole", dir, n, bigTreeFiles)
	}
	return true
}

// TestKillDuringTreeUndo kills `ws undo` of a recursive delete (putting
// back a tree of 400 files, written unsynced and synced together, then
// renamed into place) with SIGKILL at random moments of its run: the
// tree must then be whole at its path or not there at all, never a part
// of it, and an undo run to its end afterwards must leave it so too (put
// back, or, when the killed undo had put it back, taken away again as the
// redo). The kills straddle the rename: the test fails unless some left
// the tree back and some did not.
func TestKillDuringTreeUndo(t *testing.T) {
	n := iterations(t, 30)
	root := newRoot(t)
	rng := rand.New(rand.NewSource(5))
	window := longestRun(t, "undo of a tree's delete", func(i int) *exec.Cmd {
		name := fmt.Sprintf("probe%d", i)
		makeBigTree(t, filepath.Join(root, name), "")
		if out, err := ws(root, "delete", "-r", name).CombinedOutput(); err != nil {
			t.Fatalf("delete: %v: %s", err, out)
		}
		return ws(root, "undo", name)
	})
	var back, absent int
	for i := 0; i < n; i++ {
		dir, tag := fmt.Sprintf("t%d", i), fmt.Sprint(i)
		makeBigTree(t, filepath.Join(root, dir), tag)
		if out, err := ws(root, "delete", "-r", dir).CombinedOutput(); err != nil {
			t.Fatalf("iteration %d: delete: %v: %s", i, err, out)
		}
		killAtRandom(t, ws(root, "undo", dir), rng, window)
		wasBack := bigTreeAt(t, filepath.Join(root, dir), tag)
		if wasBack {
			back++
		} else {
			absent++
		}
		out, err := ws(root, "undo", dir).CombinedOutput()
		if err != nil {
			t.Errorf("iteration %d: undo after the kill: %v: %s", i, err, out)
		}
		if now := bigTreeAt(t, filepath.Join(root, dir), tag); err == nil && now == wasBack {
			t.Errorf("iteration %d: undo said it took the change back, yet the tree is as it was (present: %v): %s", i, now, out)
		}
	}
	if out, err := ws(root, "write", "x.txt", "--content", "x").CombinedOutput(); err != nil {
		t.Fatalf("write: %v: %s", err, out)
	}
	if left := temps(t, root); len(left) != 0 {
		t.Errorf("a write beside them left the killed undos' temporary trees: %v", left)
	}
	straddled(t, n, back, absent, fmt.Sprintf("%d kills within %v of the start of an undo of a tree's delete: the tree was back %d times, not back %d times", n, window.Round(time.Millisecond), back, absent))
}

// TestKillDuringPatchUndo kills `ws undo` of a patch of 200 files (their
// old bytes written beside them unsynced, the file system synced once,
// then each renamed into place) with SIGKILL at random moments of its
// run: every file must then hold its old bytes or its new ones, whole,
// and an undo run to its end afterwards must leave them all alike (the
// patch taken back, or, after a kill that had put back some of them, the
// part put back taken back again), never some of each.
func TestKillDuringPatchUndo(t *testing.T) {
	const files = 200
	n := iterations(t, 20)
	root := newRoot(t)
	rng := rand.New(rand.NewSource(9))
	var patch strings.Builder
	for i := range files {
		fmt.Fprintf(&patch, "--- a/p%03d.txt\n+++ b/p%03d.txt\n@@ -1 +1 @@\n-old %d\n+new %d\n", i, i, i, i)
	}
	patchFile := filepath.Join(filepath.Dir(root), "many.patch")
	if err := os.WriteFile(patchFile, []byte(patch.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := func() {
		for i := range files {
			if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("p%03d.txt", i)), []byte(fmt.Sprintf("old %d\n", i)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if out, err := ws(root, "patch", patchFile).CombinedOutput(); err != nil {
			t.Fatalf("patch: %v: %s", err, out)
		}
	}
	// states counts the files holding their old bytes and their new ones;
	// any other content is an error.
	states := func(i int, when string) (old, new int) {
		for f := range files {
			got, err := os.ReadFile(filepath.Join(root, fmt.Sprintf("p%03d.txt", f)))
			switch {
			case err == nil && string(got) == fmt.Sprintf("old %d\n", f):
				old++
			case err == nil && string(got) == fmt.Sprintf("new %d\n", f):
				new++
			default:
				t.Errorf("iteration %d, %s: p%03d.txt holds %q (%v)", i, when, f, got, err)
			}
		}
		return old, new
	}
	window := longestRun(t, "undo of a patch", func(int) *exec.Cmd {
		fresh()
		return ws(root, "undo")
	})
	var none, part, all int
	for i := 0; i < n; i++ {
		fresh()
		killAtRandom(t, ws(root, "undo"), rng, window)
		switch old, _ := states(i, "after the kill"); old {
		case 0:
			none++
		case files:
			all++
		default:
			part++
		}
		out, err := ws(root, "undo").CombinedOutput()
		if err != nil {
			t.Errorf("iteration %d: undo after the kill: %v: %s", i, err, out)
		}
		if old, new := states(i, "after the undo"); old != files && new != files {
			t.Errorf("iteration %d: after the undo %d files are old and %d new: %s", i, old, new, out)
		}
	}
	if left := temps(t, root); len(left) > 0 {
		if out, err := ws(root, "write", "x.txt", "--content", "x").CombinedOutput(); err != nil {
			t.Fatalf("write: %v: %s", err, out)
		}
		if left := temps(t, root); len(left) != 0 {
			t.Errorf("a write beside them left the killed undos' temporary files: %v", left)
		}
	}
	t.Logf("%d kills within %v of the start of an undo of a patch of %d files: none put back %d times, some %d times, all %d times", n, window.Round(time.Millisecond), files, none, part, all)
	if none == 0 || none == n {
		t.Errorf("the kills never (or always) caught the undo before it put a file back, so little was tested")
	}
}
