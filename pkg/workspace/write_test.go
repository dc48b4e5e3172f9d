package workspace

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/wstools/ws/pkg/config"
	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/history"
	"github.com/wstools/ws/pkg/internal/fsroot"
)

// TestContentWriteTo: a write's content reaches the file byte for byte
// whatever its source (a string, a file, a pipe, a reader of short reads)
// and size around the kept head and the chunk size, and the head is kept
// exactly when the content fits.
func TestContentWriteTo(t *testing.T) {
	const keep = 5 << 20 // between one chunk (4 MiB) and two
	data := make([]byte, 2*copyChunk+keep+3)
	rand.New(rand.NewSource(1)).Read(data)
	sizes := []int{0, 1, 4096, copyChunk - 1, copyChunk, copyChunk + 1, keep - 1, keep, keep + 1, 2 * copyChunk, len(data)}
	sources := map[string]func(t *testing.T, b []byte) io.Reader{
		"string":      func(t *testing.T, b []byte) io.Reader { return strings.NewReader(string(b)) },
		"short reads": func(t *testing.T, b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) },
		"file": func(t *testing.T, b []byte) io.Reader {
			p := filepath.Join(t.TempDir(), "src")
			must(t, os.WriteFile(p, b, 0o600))
			f, err := os.Open(p)
			must(t, err)
			t.Cleanup(func() { f.Close() })
			return f
		},
		"pipe": func(t *testing.T, b []byte) io.Reader {
			r, w, err := os.Pipe()
			must(t, err)
			go func() { w.Write(b); w.Close() }()
			t.Cleanup(func() { r.Close() })
			return r
		},
	}
	for name, source := range sources {
		for _, n := range sizes {
			dst, err := os.Create(filepath.Join(t.TempDir(), "dst"))
			must(t, err)
			c := &content{r: source(t, data[:n]), keep: keep}
			written, err := c.WriteTo(dst)
			dst.Close()
			if err != nil || written != int64(n) || c.n != int64(n) {
				t.Fatalf("%s, %d bytes: wrote %d (counted %d), %v", name, n, written, c.n, err)
			}
			got, err := os.ReadFile(dst.Name())
			must(t, err)
			if !bytes.Equal(got, data[:n]) {
				t.Fatalf("%s, %d bytes: the file differs", name, n)
			}
			print := c.print(fsroot.FileStat{MtimeNS: 7})
			if n <= keep {
				if want := history.FileFingerprint(data[:n], 7); print != want {
					t.Fatalf("%s, %d bytes: fingerprint %+v, want %+v", name, n, print, want)
				}
			} else if print.SHA256 != "" || print.Size != int64(n) {
				t.Fatalf("%s, %d bytes: fingerprint %+v, want the size only", name, n, print)
			}
		}
	}
}

// TestContentReadError: a source that fails mid-way fails the write.
func TestContentReadError(t *testing.T) {
	boom := errors.New("boom")
	c := &content{r: io.MultiReader(strings.NewReader("abc"), iotest.ErrReader(boom)), keep: 10}
	var sb bytes.Buffer
	if _, err := c.WriteTo(&sb); !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
}

// lateReader gives its content only once release is closed, ignoring
// any context (as a read from a pipe does), and closes drained when it
// has given its end.
type lateReader struct {
	release, drained chan struct{}
	data             []byte
}

func (r *lateReader) Read(p []byte) (int, error) {
	<-r.release
	if len(r.data) == 0 {
		close(r.drained)
		return 0, errors.New("read past the end") // never reached: the copy stops at EOF
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	if len(r.data) == 0 {
		close(r.drained)
		return n, io.EOF
	}
	return n, nil
}

// A write whose content arrives after tools.operationTimeout fails with
// TIMEOUT, and then changes nothing even though the tool goes on running
// (as it does in ws mcp): the file keeps its old content, no temporary
// file stays, and its write lock is released for the next call.
func TestOperationTimeoutWriteChangesNothingLate(t *testing.T) {
	cfg := config.Default()
	cfg.Tools.OperationTimeoutMs = 100
	w, root := newTestWorkspace(t, cfg, "f.txt")
	src := &lateReader{release: make(chan struct{}), drained: make(chan struct{}), data: []byte("late\n")}
	_, err := w.Run(context.Background(), WriteFile, WriteRequest{Path: "f.txt", Source: src})
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != errs.Timeout {
		t.Fatalf("write with late content: %v, want TIMEOUT", err)
	}
	close(src.release)
	// The timed-out write goes on and reads the late content; on a busy
	// machine it may give up before it ever reads (the deadline passed
	// first), so the wait is bounded: either way nothing may land.
	select {
	case <-src.drained:
	case <-time.After(5 * time.Second):
	}
	// The next write of the file waits for the first one's lock, so when
	// it is done the first has finished.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg.Tools.OperationTimeoutMs = 0
	if _, err := w.Run(ctx, EditFile, EditRequest{Path: "f.txt", OldString: "content of f.txt", NewString: "edited"}); err != nil {
		t.Fatalf("edit after the timed-out write: %v (the late write landed?)", err)
	}
	got, err := os.ReadFile(filepath.Join(root, "f.txt"))
	must(t, err)
	if string(got) != "edited\n" {
		t.Fatalf("f.txt = %q, want %q", got, "edited\n")
	}
	left, _ := filepath.Glob(filepath.Join(root, ".ws-tmp-*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

// stalledReader gives its first bytes at once, then blocks until release
// is closed (a pipe whose writer went quiet), and marks waiting once its
// second read has begun: the write's temporary file exists by then.
type stalledReader struct {
	first   []byte
	waiting atomic.Bool
	release chan struct{}
}

func (r *stalledReader) Read(p []byte) (int, error) {
	if len(r.first) > 0 {
		n := copy(p, r.first)
		r.first = r.first[n:]
		return n, nil
	}
	r.waiting.Store(true)
	<-r.release
	return 0, io.EOF
}

// A write whose content stops coming before tools.operationTimeout leaves
// no temporary file when the call gives up on it, though the write itself
// still waits for its stdin: ws exits then, and nothing would remove the
// file until the next write of the directory. Before, ws write fed
// "a", a pause and "hi" through a pipe left a .ws-tmp-* file behind.
func TestOperationTimeoutStalledWriteLeavesNoTemp(t *testing.T) {
	cfg := config.Default()
	cfg.Tools.OperationTimeoutMs = 100
	w, root := newTestWorkspace(t, cfg, "f.txt")
	src := &stalledReader{first: []byte("a"), release: make(chan struct{})}
	defer close(src.release)
	_, err := w.Run(context.Background(), WriteFile, WriteRequest{Path: "f.txt", Source: src})
	if errs.CodeOf(err) != errs.Timeout {
		t.Fatalf("write with stalled content: %v, want TIMEOUT", err)
	}
	// The call is given up now, as ws gives it up before it exits. The
	// write made its temporary file (and waits for more) unless, on a
	// busy machine, it got no further than its first read before then.
	if !src.waiting.Load() {
		t.Skip("the write had not begun its temporary file when the call was given up")
	}
	if left, _ := filepath.Glob(filepath.Join(root, ".ws-tmp-*")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "f.txt")); string(got) != "content of f.txt\n" {
		t.Errorf("f.txt = %q, want its old content", got)
	}
}
