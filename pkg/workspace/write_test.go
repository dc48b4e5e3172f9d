package workspace

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

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
