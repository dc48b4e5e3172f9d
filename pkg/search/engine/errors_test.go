package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wstools/ws/pkg/errs"
	"github.com/wstools/ws/pkg/search"
)

// TestErrors checks the failures at the engine's seam and their codes.
func TestErrors(t *testing.T) {
	_, fs := testRoot(t, "a.md")
	ctx := context.Background()
	cases := []struct {
		name string
		run  func(t *testing.T) error
		code errs.Code
		msg  string
	}{
		{"vectors need a state directory", func(t *testing.T) error {
			_, _, err := New(Options{Files: fs}).Open(ctx, true)
			return err
		}, errs.NoVectorState().Code, errs.NoVectorState().Error()},
		{"the lock held elsewhere times out", func(t *testing.T) error {
			e := New(Options{Files: fs, StateDir: t.TempDir(), LockTimeout: 50 * time.Millisecond})
			lock, err := e.store().Lock(time.Second)
			must(t, err)
			defer lock.Release()
			_, err = e.Add(ctx, search.Doc{ID: "x", Content: "x", Source: -1})
			return err
		}, errs.EIO, "state directory: the search index is locked by another ws process (waited 50ms)"},
		{"an index of a newer format", func(t *testing.T) error {
			e := New(Options{Files: fs, StateDir: t.TempDir()})
			_, err := e.Add(ctx, search.Doc{ID: "x", Content: "x", Source: -1})
			must(t, err)
			data, err := os.ReadFile(e.store().Path())
			must(t, err)
			data[8] = 0xff // the header's format version (bytes 8 to 11), as a newer ws writes it
			must(t, os.WriteFile(e.store().Path(), data, 0o600))
			_, err = e.Search(ctx, "x", search.ModeBM25, 5, nil)
			return err
		}, errs.IndexTooNew(search.ErrVersion).Code, ""},
		// The message reaches the model: it names the state directory's
		// files relative to it, never by the machine's absolute path.
		{"a state directory whose search/ is a file, at an index call", func(t *testing.T) error {
			dir := t.TempDir()
			must(t, os.WriteFile(filepath.Join(dir, "search"), nil, 0o600))
			_, err := New(Options{Files: fs, StateDir: dir}).Add(ctx, search.Doc{ID: "x", Content: "x", Source: -1})
			return err
		}, errs.EIO, "state directory: mkdir search: not a directory"},
		{"a state directory whose search/ is a file, at a search", func(t *testing.T) error {
			dir := t.TempDir()
			must(t, os.WriteFile(filepath.Join(dir, "search"), nil, 0o600))
			_, err := New(Options{Files: fs, StateDir: dir}).Search(ctx, "x", search.ModeBM25, 5, nil)
			return err
		}, errs.EIO, "state directory: open search/index.bin: not a directory"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run(t)
			if errs.CodeOf(err) != tc.code || tc.msg != "" && err.Error() != tc.msg {
				t.Fatalf("error %v (%s), want %s %q", err, errs.CodeOf(err), tc.code, tc.msg)
			}
		})
	}
}

// TestDamagedIndexRebuilt checks that a damaged index file is set aside
// and built again, with one warning: the whole file, or only its strings
// (which a query does not check, but a change of the index does).
func TestDamagedIndexRebuilt(t *testing.T) {
	cases := []struct {
		name   string
		damage func(data []byte) []byte
		then   func(e *Engine) error
		want   string // the ids found for "alpha" afterwards
	}{
		{"garbage, then a search", func([]byte) []byte { return []byte("damaged") },
			func(e *Engine) error {
				_, err := e.Search(context.Background(), "alpha", search.ModeBM25, 5, nil)
				return err
			}, "[]"},
		{"a byte of the strings, then an index call", func(data []byte) []byte {
			data[len(data)-1] ^= 0x20 // the last byte of the strings: the last document's text
			return data
		}, func(e *Engine) error {
			_, err := e.Add(context.Background(), search.Doc{ID: "b", Content: "alpha again", Source: -1})
			return err
		}, "[b]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, fs := testRoot(t)
			var warned []string
			e := testEngine(t, fs)
			e.o.Warn = func(m string) { warned = append(warned, m) }
			_, err := e.Add(context.Background(), search.Doc{ID: "a", Content: "alpha", Source: -1})
			must(t, err)
			if got := ids(t, e, "alpha"); got != "[a]" || e.Stats().Documents != 1 {
				t.Fatalf("before damage: %s", got)
			}
			data, err := os.ReadFile(e.store().Path())
			must(t, err)
			must(t, os.WriteFile(e.store().Path(), tc.damage(data), 0o600))
			if err := tc.then(e); err != nil {
				t.Fatalf("after damage: %v", err)
			}
			if len(warned) != 1 || !strings.HasPrefix(warned[0], "the search index was damaged") {
				t.Fatalf("warnings %q", warned)
			}
			if got := ids(t, e, "alpha"); got != tc.want {
				t.Fatalf("after damage: %s, want %s", got, tc.want)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(e.store().Path()), "index.corrupt")); err != nil {
				t.Fatalf("not set aside: %v", err)
			}
		})
	}
}
