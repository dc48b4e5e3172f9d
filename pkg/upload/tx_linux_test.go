package upload

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/internal/fsroot"
	"golang.org/x/sys/unix"
)

// txRoot is a contained workspace filesystem over a new temporary directory.
func txRoot(t *testing.T) (*fsroot.FS, string) {
	t.Helper()
	root := t.TempDir()
	fsys := fsroot.New(fsroot.Options{Base: root, Contained: true})
	t.Cleanup(func() { fsys.Close() })
	return fsys, root
}

func hexSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// tree lists everything under root, relative and sorted; temporary files
// read as "<dir>/TMP".
func tree(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if fsroot.IsTempName(d.Name()) {
			rel = filepath.Join(filepath.Dir(rel), "TMP")
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func sameTree(t *testing.T, root string, want ...string) {
	t.Helper()
	sort.Strings(want)
	if got := tree(t, root); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("tree:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// causeOf is the cause of an UPLOAD_FAILED failure, or fails the test.
func causeOf(t *testing.T, err error) string {
	t.Helper()
	var f *Failure
	if !errors.As(err, &f) || f.Code != CodeUploadFailed || f.Meta.Cause == nil {
		t.Fatalf("error %v (%T), want an %s failure", err, err, CodeUploadFailed)
	}
	return *f.Meta.Cause
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestTxStage(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), (3*copyBufSize)/16+5) // several chunks
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name  string
		ctx   context.Context
		data  []byte
		limit int64
		over  int64  // the size *OverLimit reports; 0 for none
		cause string // the UPLOAD_FAILED cause, with TMP for the temporary name
	}{
		{name: "empty", data: nil, limit: 0},
		{name: "under", data: []byte("hello"), limit: 6},
		{name: "at the limit", data: []byte("hello"), limit: 5},
		{name: "over by one", data: []byte("hello"), limit: 4, over: 5},
		{name: "nothing allowed", data: []byte("x"), limit: 0, over: 1},
		{name: "several chunks", data: big, limit: int64(len(big))},
		{name: "several chunks, over in the last", data: big, limit: int64(len(big)) - 1, over: int64(len(big))},
		{name: "over in the first chunk: read to the end", data: big, limit: 10, over: int64(len(big))},
		{name: "cancelled", ctx: cancelled, data: []byte("x"), limit: 10, cause: "write uploads/d/TMP: context canceled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys, root := txRoot(t)
			tx, err := Begin(fsys, "uploads/d")
			must(t, err)
			ctx := tc.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			st, err := tx.Stage(ctx, bytes.NewReader(tc.data), tc.limit)
			var over *OverLimit
			switch {
			case tc.over != 0:
				if !errors.As(err, &over) || over.Size != tc.over {
					t.Fatalf("error %v, want over the limit with size %d", err, tc.over)
				}
			case tc.cause != "":
				cause := causeOf(t, err)
				if i := strings.Index(cause, fsroot.TempPrefix); i >= 0 {
					cause = cause[:i] + "TMP" + cause[strings.Index(cause, ":"):]
				}
				if cause != tc.cause {
					t.Errorf("cause %q, want %q", cause, tc.cause)
				}
			case err != nil:
				t.Fatal(err)
			default:
				if st.Size != int64(len(tc.data)) || st.Hash != hexSum(tc.data) {
					t.Errorf("staged %d bytes %s, want %d %s", st.Size, st.Hash, len(tc.data), hexSum(tc.data))
				}
				sameTree(t, root, "uploads", "uploads/d", "uploads/d/TMP")
			}
			// Nothing was placed: rollback leaves no trace, not even the
			// directories.
			if orphans := tx.Rollback(); orphans != nil {
				t.Errorf("orphans %v", orphans)
			}
			sameTree(t, root)
		})
	}
}

// endless is a stream that never ends (a pipe from `yes`, /dev/zero); it
// calls after once it has given n bytes.
type endless struct {
	n     int64
	after func()
}

func (e *endless) Read(p []byte) (int, error) {
	if e.n -= int64(len(p)); e.n < 0 && e.after != nil {
		e.after()
		e.after = nil
	}
	return len(p), nil
}

// An endless stream over the limit is read on to learn its size; a
// cancelled call (ws got SIGINT or SIGTERM) must stop that read.
func TestTxStageEndlessOverLimitCancelled(t *testing.T) {
	fsys, root := txRoot(t)
	tx, err := Begin(fsys, "uploads/d")
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := tx.Stage(ctx, &endless{n: 4 * copyBufSize, after: cancel}, copyBufSize)
		done <- err
	}()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Stage still reads an endless stream 10s after its context was cancelled")
	}
	if cause := causeOf(t, err); !strings.HasSuffix(cause, ": context canceled") {
		t.Errorf("cause %q, want the cancellation", cause)
	}
	tx.Rollback()
	sameTree(t, root)
}

// Two calls place the same content in one directory at once. The second
// finds the first's file in place and relies on it, so the first must not
// take that file back when it fails afterwards: a call that places files
// holds the directory until it keeps or takes back what it placed, and the
// other waits.
func TestTxPlaceWhileAnotherRollsBack(t *testing.T) {
	fsys, root := txRoot(t)
	content := []byte("shared content")
	name := hexSum(content) + ".txt"
	stage := func(tx *Tx) *Staged {
		st, err := tx.Stage(context.Background(), bytes.NewReader(content), 100)
		must(t, err)
		return st
	}
	a, err := Begin(fsys, "uploads/d")
	must(t, err)
	b, err := Begin(fsys, "uploads/d")
	must(t, err)
	sa, sb := stage(a), stage(b)
	pa, err := a.Place(sa, "txt")
	must(t, err)
	if !pa.Written {
		t.Fatal("the first call did not write the file")
	}
	placed := make(chan Placed, 1)
	go func() {
		p, err := b.Place(sb, "txt")
		if err != nil {
			t.Error(err)
		}
		b.Commit(time.Now())
		placed <- p
	}()
	select {
	case p := <-placed:
		t.Fatalf("the second call placed (written %v) while the first could still take its file back", p.Written)
	case <-time.After(200 * time.Millisecond):
	}
	a.Rollback() // the first call fails after placing
	var pb Placed
	select {
	case pb = <-placed:
	case <-time.After(10 * time.Second):
		t.Fatal("the second call still waits after the first rolled back")
	}
	got, err := os.ReadFile(filepath.Join(root, "uploads/d", name))
	if err != nil || !bytes.Equal(got, content) || !pb.Written {
		t.Errorf("after the first call's rollback: %q, %v; written %v", got, err, pb.Written)
	}
	sameTree(t, root, "uploads", "uploads/d", "uploads/d/"+name)
}

// Another call's rollback may remove an upload directory it created, still
// empty, after this call opened it and before this call staged anything
// there: the call makes the directory again instead of failing (before:
// UPLOAD_FAILED, "create uploads/d/.ws-tmp-…: no such file or directory").
func TestTxStageAfterDirectoryRemoved(t *testing.T) {
	fsys, root := txRoot(t)
	tx, err := Begin(fsys, "uploads/d")
	must(t, err)
	must(t, os.Remove(filepath.Join(root, "uploads/d")))
	must(t, os.Remove(filepath.Join(root, "uploads")))
	st, err := tx.Stage(context.Background(), strings.NewReader("x"), 10)
	must(t, err)
	p, err := tx.Place(st, "txt")
	must(t, err)
	tx.Commit(time.Now())
	if got, err := os.ReadFile(filepath.Join(root, p.Rel)); err != nil || string(got) != "x" || !p.Written {
		t.Errorf("%s: %q, %v (written %v)", p.Rel, got, err, p.Written)
	}
	// The directories it made again are its own: a rollback takes them back.
	tx, err = Begin(fsys, "uploads/e")
	must(t, err)
	must(t, os.Remove(filepath.Join(root, "uploads/e")))
	_, err = tx.Stage(context.Background(), strings.NewReader("y"), 10)
	must(t, err)
	tx.Rollback()
	sameTree(t, root, "uploads", "uploads/d", "uploads/d/"+hexSum([]byte("x"))+".txt")
}

func TestTxPlace(t *testing.T) {
	content := []byte("%PDF-1.7 content")
	name := hexSum(content) + ".pdf"
	mode := os.FileMode(0o666 &^ fsroot.Umask())
	for _, tc := range []struct {
		name    string
		before  func(t *testing.T, dir string) // prepares uploads/d
		written bool
		cause   string // an UPLOAD_FAILED cause (prefix)
	}{
		{name: "new", written: true},
		{name: "the same content already there is kept", written: false, before: func(t *testing.T, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, name), content, 0o600))
		}},
		{name: "other bytes of the same size are replaced", written: true, before: func(t *testing.T, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, name), bytes.ToUpper(content), 0o644))
		}},
		{name: "a shorter file is replaced", written: true, before: func(t *testing.T, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, name), content[:3], 0o644))
		}},
		{name: "a symlink to the content is replaced", written: true, before: func(t *testing.T, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, "real"), content, 0o644))
			must(t, os.Symlink("real", filepath.Join(dir, name)))
		}},
		{name: "a directory in the way", cause: "rename uploads/d/" + name + ": ", before: func(t *testing.T, dir string) {
			must(t, os.MkdirAll(filepath.Join(dir, name, "sub"), 0o755))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys, root := txRoot(t)
			dir := filepath.Join(root, "uploads/d")
			must(t, os.MkdirAll(dir, 0o755))
			if tc.before != nil {
				tc.before(t, dir)
			}
			target := filepath.Join(dir, name)
			old, _ := os.Lstat(target)
			tx, err := Begin(fsys, "uploads/d")
			must(t, err)
			st, err := tx.Stage(context.Background(), bytes.NewReader(content), 1<<20)
			must(t, err)
			p, err := tx.Place(st, "pdf")
			if tc.cause != "" {
				if cause := causeOf(t, err); !strings.HasPrefix(cause, tc.cause) {
					t.Errorf("cause %q, want %q…", cause, tc.cause)
				}
				if fi, err := os.Lstat(target); err != nil || !fi.IsDir() {
					t.Errorf("what was in the way changed: %v %v", fi, err)
				}
				tx.Rollback()
				return
			}
			must(t, err)
			want := Placed{Rel: "uploads/d/" + name, Abs: filepath.Join(fsys.RealBase(), "uploads/d", name), Written: tc.written}
			if p != want {
				t.Errorf("placed %+v, want %+v", p, want)
			}
			fi, err := os.Lstat(target)
			must(t, err)
			if got, _ := os.ReadFile(target); !fi.Mode().IsRegular() || !bytes.Equal(got, content) {
				t.Errorf("%s holds %q (%v)", name, got, fi.Mode())
			}
			if tc.written && fi.Mode().Perm() != mode {
				t.Errorf("mode %v, want %v", fi.Mode().Perm(), mode)
			}
			if !tc.written && !os.SameFile(fi, old) {
				t.Error("the file already in place was replaced")
			}
			// The same content again in this call: the first placement.
			st2, err := tx.Stage(context.Background(), bytes.NewReader(content), 1<<20)
			must(t, err)
			if p2, err := tx.Place(st2, "pdf"); err != nil || p2 != p {
				t.Errorf("second placement %+v, %v; want %+v", p2, err, p)
			}
			tx.Commit(time.Now())
			for _, e := range tree(t, root) {
				if strings.HasSuffix(e, "/TMP") {
					t.Errorf("temporary file left: %s", e)
				}
			}
		})
	}
}

func TestTxBeginFails(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before func(t *testing.T, root string)
		cause  string
	}{
		{name: "a file in the path", cause: "Path is not a directory: uploads/d", before: func(t *testing.T, root string) {
			must(t, os.WriteFile(filepath.Join(root, "uploads"), nil, 0o644))
		}},
		{name: "a symlink out of the workspace", cause: "Permission denied: access on uploads/d", before: func(t *testing.T, root string) {
			must(t, os.Symlink(t.TempDir(), filepath.Join(root, "uploads")))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys, root := txRoot(t)
			tc.before(t, root)
			_, err := Begin(fsys, "uploads/d")
			if cause := causeOf(t, err); cause != tc.cause {
				t.Errorf("cause %q, want %q", cause, tc.cause)
			}
		})
	}
}

// TestTxEnd: Rollback takes back exactly what the call wrote, and reports
// the placed files it could not remove; Commit keeps them.
func TestTxEnd(t *testing.T) {
	one, two, kept, unplaced := []byte("one"), []byte("two"), []byte("kept"), []byte("unplaced")
	file := func(b []byte) string { return "uploads/d/" + hexSum(b) + ".txt" }
	for _, tc := range []struct {
		name      string
		existing  bool   // uploads/d and the file with kept exist before
		commit    bool   // else roll back
		failClean []byte // content whose removal fails
		tree      []string
		orphans   []string // relative to the real root
	}{
		{name: "rollback into a new directory", tree: nil},
		{name: "rollback into an existing directory", existing: true,
			tree: []string{"uploads", "uploads/d", file(kept)}},
		{name: "rollback that cannot remove a file", failClean: two,
			tree: []string{"uploads", "uploads/d", file(two)}, orphans: []string{file(two)}},
		{name: "commit", commit: true,
			tree: []string{"uploads", "uploads/d", file(one), file(two), file(kept)}},
		{name: "commit into an existing directory", existing: true, commit: true,
			tree: []string{"uploads", "uploads/d", file(one), file(two), file(kept)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys, root := txRoot(t)
			if tc.existing {
				must(t, os.MkdirAll(filepath.Join(root, "uploads/d"), 0o755))
				must(t, os.WriteFile(filepath.Join(root, file(kept)), kept, 0o644))
			}
			tx, err := Begin(fsys, "uploads/d")
			must(t, err)
			tx.Fault = func(step, name string) error {
				if step == "cleanup" && tc.failClean != nil && name == hexSum(tc.failClean)+".txt" {
					return unix.EIO
				}
				return nil
			}
			for _, b := range [][]byte{one, two, kept} {
				st, err := tx.Stage(context.Background(), bytes.NewReader(b), 100)
				must(t, err)
				p, err := tx.Place(st, "txt")
				must(t, err)
				if p.Written == (tc.existing && bytes.Equal(b, kept)) {
					t.Errorf("%s written: %v", p.Rel, p.Written)
				}
			}
			_, err = tx.Stage(context.Background(), bytes.NewReader(unplaced), 100)
			must(t, err)
			var orphans []string
			if tc.commit {
				tx.Commit(time.Now())
			} else if got := tx.Rollback(); got != nil {
				for _, o := range got {
					rel, _ := filepath.Rel(fsys.RealBase(), o)
					orphans = append(orphans, filepath.ToSlash(rel))
				}
			}
			if strings.Join(orphans, "\n") != strings.Join(tc.orphans, "\n") {
				t.Errorf("orphans %q, want %q", orphans, tc.orphans)
			}
			sameTree(t, root, tc.tree...)
		})
	}
}

func TestTxPlaceFault(t *testing.T) {
	fsys, root := txRoot(t)
	tx, err := Begin(fsys, "uploads/d")
	must(t, err)
	tx.Fault = func(step, name string) error {
		if step == "place" {
			return unix.ENOSPC
		}
		return nil
	}
	st, err := tx.Stage(context.Background(), strings.NewReader("x"), 10)
	must(t, err)
	_, err = tx.Place(st, "")
	if cause := causeOf(t, err); cause != "rename uploads/d/"+hexSum([]byte("x"))+": no space left on device" {
		t.Errorf("cause %q", cause)
	}
	tx.Rollback()
	sameTree(t, root)
}
