package workspace

import (
	"context"
	"fmt"
	"math/rand"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/wstools/ws/pkg/errs"
)

// TestGrepCountsAsRows searches random trees with -c and without it, and
// requires -c's count for each file to be the number of rows the normal
// search shows for it, its total their sum, its text the same lines as
// its streamed rows, and -l's files to be the counted ones; over -v, -i,
// maxCount, context, several paths and both regex engines.
func TestGrepCountsAsRows(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	words := []string{"TODO", "todo", "fixme", "x", "", "TODO TODO", "a1b", "üñí", "\r"}
	patterns := []string{"TODO", `\w+`, `^$`, `TODO(?= TODO)`, `(a)\d\w`, `o\s`}
	for tree := range 4 {
		w, root := newTestWorkspace(t, nil)
		var dirs []string
		for i := range 2 + rng.Intn(8) {
			var sb strings.Builder
			for range rng.Intn(40) {
				for range rng.Intn(5) {
					sb.WriteString(words[rng.Intn(len(words))] + " ")
				}
				sb.WriteByte('\n')
			}
			dir := fmt.Sprintf("d%d", i%3)
			dirs = append(dirs, dir)
			must(t, os.MkdirAll(filepath.Join(root, dir), 0o755))
			must(t, os.WriteFile(filepath.Join(root, dir, fmt.Sprintf("f%d.txt", i)), []byte(sb.String()), 0o644))
		}
		for range 30 {
			no := false
			req := GrepRequest{Pattern: patterns[rng.Intn(len(patterns))], Invert: rng.Intn(4) == 0}
			if rng.Intn(3) == 0 {
				req.CaseSensitive = &no
			}
			if rng.Intn(3) == 0 {
				mc := float64(1 + rng.Intn(5))
				req.MaxCount = &mc
			}
			if rng.Intn(3) == 0 {
				c := float64(rng.Intn(3))
				req.ContextLines = &c
			}
			if rng.Intn(2) == 0 {
				// Two paths (a file's rows from two paths would run
				// together in rows: different ones).
				req.Path = dirs[rng.Intn(len(dirs))]
				if other := dirs[rng.Intn(len(dirs))]; other != req.Path {
					req.MorePaths = []string{other}
				}
			}
			what := fmt.Sprintf("tree %d %q in %q %v invert %v", tree, req.Pattern, req.Path, req.MorePaths, req.Invert)
			rows, err := w.Grep(context.Background(), req)
			must(t, err)
			if rows.Truncated {
				continue
			}
			type row struct {
				path string
				n    int
			}
			var per []row
			for _, m := range rows.Matches {
				if k := len(per); k == 0 || per[k-1].path != string(m.Path) {
					per = append(per, row{path: string(m.Path)})
				}
				per[len(per)-1].n++
			}
			var want []string
			for _, r := range per {
				want = append(want, fmt.Sprintf("%s:%d", r.path, r.n))
			}
			creq := req
			creq.CountOnly = true
			counts, err := w.Grep(context.Background(), creq)
			must(t, err)
			var got []string
			total := 0
			for _, c := range counts.Counts {
				got = append(got, fmt.Sprintf("%s:%d", c.Path, c.Count))
				total += c.Count
			}
			if a, b := strings.Join(want, "\n"), strings.Join(got, "\n"); a != b {
				t.Fatalf("%s:\nrows:\n%s\ncounts:\n%s", what, a, b)
			}
			if counts.Total != total || counts.Matched() != total || len(rows.Matches) != total || counts.Files != rows.Files || len(counts.Matches) != 0 {
				t.Fatalf("%s: total %d, matched %d, sum %d, rows %d; files %d, rows' %d; %d matches", what, counts.Total, counts.Matched(), total, len(rows.Matches), counts.Files, rows.Files, len(counts.Matches))
			}
			if counts.Text() != strings.Join(got, "\n") {
				t.Fatalf("%s: text %q, counts %q", what, counts.Text(), got)
			}
			var streamed []string
			creq.Rows = func(row string) { streamed = append(streamed, row) }
			again, err := w.Grep(context.Background(), creq)
			must(t, err)
			if again.Text() != "" || strings.Join(streamed, "\n") != counts.Text() {
				t.Fatalf("%s: streamed %q (text %q), want %q", what, streamed, again.Text(), counts.Text())
			}
			lreq := req
			lreq.FilesOnly = true
			files, err := w.Grep(context.Background(), lreq)
			must(t, err)
			var names []string
			for _, c := range counts.Counts {
				names = append(names, string(c.Path))
			}
			if files.Text() != strings.Join(names, "\n") {
				t.Fatalf("%s: -l %q, -c's files %q", what, files.Text(), names)
			}
		}
	}
}

// TestCutAroundLongLine: a matching line of megabytes is cut to the
// window around its match without being copied whole (it was decoded into
// a string, runes and UTF-16 units: ten times its size, 4 GB for a
// 400 MB one-line file), with the same text as before; the window's
// characters are UTF-16 units, a surrogate pair cut at an end read as
// U+FFFD.
func TestCutAroundLongLine(t *testing.T) {
	head := strings.Repeat("a", 8<<20)
	for _, tc := range []struct {
		name, line string
		col, mlen  int
		want       string
	}{
		{"match far in", head + "TODO" + strings.Repeat("b", 1000), 8 << 20, 4,
			"..." + strings.Repeat("a", 100) + "TODO" + strings.Repeat("b", 396) + "..."},
		{"match at the end", head + "TODO", 8 << 20, 4, "..." + strings.Repeat("a", 100) + "TODO"},
		{"match near the start", "TODO" + head, 0, 4, "TODO" + strings.Repeat("a", 496) + "..."},
		{"pair cut at both ends", strings.Repeat("é", 501) + "👍" + strings.Repeat("é", 99) + "TODOx" + strings.Repeat("👍", 600), 602, 4,
			"...\uFFFD" + strings.Repeat("é", 99) + "TODOx" + strings.Repeat("👍", 197) + "\uFFFD..."},
		{"invalid bytes", strings.Repeat("\xff", 700) + "TODO", 700, 4, "..." + strings.Repeat("\uFFFD", 100) + "TODO"},
	} {
		line := []byte(tc.line)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got := cutAround(line, tc.col, tc.mlen)
		runtime.ReadMemStats(&after)
		if got != tc.want {
			t.Errorf("%s: got %d bytes %.60q…, want %d bytes %.60q…", tc.name, len(got), got, len(tc.want), tc.want)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
			t.Errorf("%s: cutting a %d-byte line allocated %d bytes", tc.name, len(line), n)
		}
	}
}

// TestCutContext checks that a context row is cut as a matching row is:
// at most 500 UTF-16 units, then "...", whatever the line's characters.
func TestCutContext(t *testing.T) {
	for _, tc := range []struct {
		name, line, want string
	}{
		{"short", "abc", "abc"},
		{"500 ASCII", strings.Repeat("a", 500), strings.Repeat("a", 500)},
		{"501 ASCII", strings.Repeat("a", 501), strings.Repeat("a", 500) + "..."},
		{"megabyte", strings.Repeat("C", 1<<20), strings.Repeat("C", 500) + "..."},
		{"500 three-byte", strings.Repeat("日", 500), strings.Repeat("日", 500)},
		{"501 three-byte", strings.Repeat("日", 501), strings.Repeat("日", 500) + "..."},
		{"emoji count two", strings.Repeat("👍", 300), strings.Repeat("👍", 250) + "..."},
		{"invalid bytes", strings.Repeat("\xff", 600), strings.Repeat("\uFFFD", 500) + "..."},
		{"mixed past the head", "x" + strings.Repeat("é", 2000), "x" + strings.Repeat("é", 499) + "..."},
	} {
		if got := cutContext([]byte(tc.line)); got != tc.want {
			t.Errorf("%s: got %d bytes %.40q…, want %d bytes %.40q…", tc.name, len(got), got, len(tc.want), tc.want)
		}
	}
}

// TestSpecialFiles: FIFOs, sockets and devices are never read. read
// refuses each as not a regular file (a socket said "read failed on sock:
// no such device or address", EIO); a search passes over them in a tree
// without a word, a socket too (it was "sock: read error: no such device
// or address"); and one given as the path is named as skipped (the search
// said "0 matches" alone, as if it had been searched).
func TestSpecialFiles(t *testing.T) {
	w, root := newTestWorkspace(t, nil)
	must(t, os.WriteFile(filepath.Join(root, "a.txt"), []byte("TODO\n"), 0o644))
	must(t, syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644))
	l, err := net.Listen("unix", filepath.Join(root, "sock"))
	must(t, err)
	defer l.Close()
	names := []string{"fifo", "sock"}
	// A device node can only be made by root (CI runs as root).
	if syscall.Mknod(filepath.Join(root, "null"), syscall.S_IFCHR|0o666, 1<<8|3) == nil {
		names = append(names, "null")
	}
	ctx := context.Background()
	for _, name := range names {
		_, err := w.Read(ctx, ReadRequest{Path: name})
		if want := "Permission denied: read on " + name + " (not a regular file)"; err == nil || err.Error() != want || errs.CodeOf(err) != errs.EACCES {
			t.Errorf("read %s: %v (%s), want %q (EACCES)", name, err, errs.CodeOf(err), want)
		}
		res, err := w.Grep(ctx, GrepRequest{Pattern: "TODO", Path: name})
		must(t, err)
		if len(res.Skipped) != 1 || res.Skipped[0].Reason != "not a regular file" || string(res.Skipped[0].Path) != name {
			t.Errorf("grep TODO %s: skipped %+v, want %s: not a regular file", name, res.Skipped, name)
		}
	}
	res, err := w.Grep(ctx, GrepRequest{Pattern: "TODO"})
	must(t, err)
	if len(res.Skipped) != 0 || len(res.Matches) != 1 {
		t.Errorf("grep TODO over the tree: skipped %+v, matches %+v; want a.txt's match alone", res.Skipped, res.Matches)
	}
}

// TestGrepDeepSkippedPath: a file nested past PATH_MAX cannot be opened
// (ENAMETOOLONG) and is named as skipped, shortened in its middle: its
// 120 KB path in the summary took the whole token budget, so the match
// of top.txt was cut away ("showing 0 of 1 lines"). glob names it alike.
func TestGrepDeepSkippedPath(t *testing.T) {
	w, root := newTestWorkspace(t, nil)
	must(t, os.WriteFile(filepath.Join(root, "top.txt"), []byte("TODO\n"), 0o644))
	fd, err := syscall.Open(root, syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
	must(t, err)
	name := strings.Repeat("d", 200)
	for range 300 {
		must(t, syscall.Mkdirat(fd, name, 0o755))
		next, err := syscall.Openat(fd, name, syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
		must(t, err)
		syscall.Close(fd)
		fd = next
	}
	f, err := syscall.Openat(fd, "deep.txt", syscall.O_WRONLY|syscall.O_CREAT, 0o644)
	must(t, err)
	syscall.Write(f, []byte("TODO\n"))
	syscall.Close(f)
	syscall.Close(fd)

	ctx := WithDialect(context.Background(), CLIFlags)
	res, err := w.Grep(ctx, GrepRequest{Pattern: "TODO"})
	must(t, err)
	if len(res.Skipped) != 1 || len(res.Skipped[0].Path) < 60000 {
		t.Fatalf("skipped %d paths, want the deep one whole in the data", len(res.Skipped))
	}
	text := res.Text()
	if !strings.Contains(text, "\ntop.txt:1:1: TODO") || len(text) > 1000 || !strings.Contains(text, "…") || !strings.Contains(text, "/deep.txt: read error: file name too long)") {
		t.Errorf("grep's text (%d bytes): %.300q…", len(text), text)
	}
	g, err := w.Glob(ctx, GlobRequest{Pattern: "**/*.txt"})
	must(t, err)
	if text := g.Text(); len(text) > 1000 || !strings.HasPrefix(text, "top.txt\n(1 path skipped: ") {
		t.Errorf("glob's text (%d bytes): %.300q…", len(text), text)
	}
}
