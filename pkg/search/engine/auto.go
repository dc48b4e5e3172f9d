package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/wstools/ws/pkg/glob"
	"github.com/wstools/ws/pkg/grep"
	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/media"
	"github.com/wstools/ws/pkg/search"
	"golang.org/x/sys/unix"
)

// autoFile is a file the autoIndexPaths name.
type autoFile struct {
	id  string // the document id: the path as the pattern spells it
	loc fsroot.Loc
}

// autoIndex brings the documents read from disk in line with the
// autoIndexPaths: files that no longer match are dropped; new files, and
// files whose size or mtime changed, are (re)indexed in walk order. Like
// Mastra, a file of more than 4000 characters becomes line-based chunks.
// With res, what changed is recorded there.
func (e *Engine) autoIndex(ctx context.Context, x *search.Index, res *Refresh) {
	skip := func(string, string) {}
	if res != nil {
		skip = func(p, why string) { res.Skipped = append(res.Skipped, Skip{Path: p, Reason: why}) }
	}
	files := e.resolveAutoPaths(ctx, skip)
	want := map[string]bool{}
	for _, f := range files {
		want[f.id] = true
	}
	for _, s := range append([]search.Source(nil), x.Sources...) {
		if !want[s.Path] {
			x.RemoveSource(s.Path)
			if res != nil {
				res.Removed = append(res.Removed, s.Path)
			}
		}
	}
	known := map[string]search.Source{}
	for _, s := range x.Sources {
		known[s.Path] = s
	}
	live := map[string]bool{}
	present := map[string]bool{} // the ids in the index, of any document
	for _, d := range x.Docs() {
		present[d.ID] = true
		if d.Source >= 0 {
			live[x.Sources[d.Source].Path] = true
		}
	}
	indexed := 0
	for _, f := range files {
		if ctx.Err() != nil {
			break
		}
		st, err := e.o.Files.Stat(f.loc)
		if err != nil {
			skip(f.id, e.statReason(f, err))
			continue
		}
		if !st.Mode.IsRegular() {
			// A FIFO, a socket or a device is not opened: a socket's
			// open fails ("no such device or address"), a device's
			// can act.
			x.RemoveSource(f.id)
			skip(f.id, "not a regular file")
			continue
		}
		old, had := known[f.id]
		if had && live[f.id] && old.Size == st.Size && old.MtimeNS == st.MtimeNS {
			if st.Size > maxIndexedFile {
				skip(f.id, cutReason()) // as when it was read
			}
			indexed++
			continue
		}
		if why, ok := e.indexFile(x, f); ok {
			if why != "" {
				skip(f.id, why)
			}
			indexed++
			if res != nil {
				if had && live[f.id] || present[f.id] {
					// A document given to the index tool under the
					// file's id is replaced: that id was in the index.
					res.Changed = append(res.Changed, f.id)
				} else {
					res.Added = append(res.Added, f.id)
				}
			}
		} else {
			skip(f.id, why)
		}
	}
	if res != nil {
		res.Files = indexed
	}
	x.AutoPaths = append([]string{}, e.o.AutoPaths...)
}

// maxIndexedFile is how much of one file the autoIndexPaths index (a
// variable for tests).
var maxIndexedFile int64 = 256 << 20

// indexFile reads one file and indexes it (as chunks when long), replacing
// what was indexed from it before. Binary files are left out, told from
// their first bytes before the rest is read. It reports whether the file
// was indexed, and why not (or what was left out of it: a file over
// maxIndexedFile is indexed up to there).
func (e *Engine) indexFile(x *search.Index, f autoFile) (why string, ok bool) {
	fd, err := e.o.Files.Open(f.loc, unix.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		x.RemoveSource(f.id)
		return reason(err), false
	}
	file := os.NewFile(uintptr(fd), f.id)
	defer file.Close()
	st, err := fsroot.Fstat(fd)
	switch {
	case err != nil:
		x.RemoveSource(f.id)
		return reason(err), false
	case !st.Mode.IsRegular():
		x.RemoveSource(f.id)
		return "not a regular file", false
	}
	head := make([]byte, media.SniffLen)
	n, err := io.ReadFull(file, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		x.RemoveSource(f.id)
		return reason(err), false
	}
	x.RemoveSource(f.id)
	if grep.IsBinary(path.Base(f.id), head[:n]) {
		return "binary", false
	}
	var buf bytes.Buffer
	buf.Grow(int(min(st.Size, maxIndexedFile)) + 1)
	buf.Write(head[:n])
	if n == len(head) {
		if _, err := io.Copy(&buf, io.LimitReader(file, maxIndexedFile+1-int64(n))); err != nil {
			return reason(err), false
		}
	}
	data := buf.Bytes()
	if int64(len(data)) > maxIndexedFile {
		data = data[:maxIndexedFile]
		why = cutReason()
	}
	src := x.AddSource(search.Source{Path: f.id, MtimeNS: st.MtimeNS, Size: st.Size})
	content := string(data) // as it is: the text shown decodes it, --json data keeps the bytes
	chunks := search.SplitIntoChunks(content)
	if len(chunks) == 1 {
		x.Add(search.Doc{ID: f.id, Content: content, Source: src})
		return why, true
	}
	for i, c := range chunks {
		x.Add(search.Doc{ID: fmt.Sprintf("%s#chunk-%d", f.id, i), Content: c.Content, Source: src, StartLine: c.StartLine})
	}
	return why, true
}

// statReason says why a listed file could not be looked at: a symlink
// whose target does not exist is a broken symlink (as grep and glob say),
// not a file gone while indexing.
func (e *Engine) statReason(f autoFile, err error) string {
	if errors.Is(err, unix.ENOENT) {
		if lst, lerr := e.o.Files.Lstat(f.loc); lerr == nil && lst.Mode&fs.ModeSymlink != 0 {
			return "broken symlink"
		}
	}
	return reason(err)
}

// cutReason says that a file was indexed only up to maxIndexedFile.
func cutReason() string {
	return fmt.Sprintf("larger than %[1]d MiB: only its first %[1]d MiB are indexed", maxIndexedFile>>20)
}

// reason says in a few words why a file could not be indexed, as grep
// says why it could not search one.
func reason(err error) string {
	var errno unix.Errno
	if errors.As(err, &errno) {
		if errno == unix.ENOENT || errno == unix.ENOTDIR {
			return "gone while indexing"
		}
		err = errno
	}
	return grep.Reason(err)
}

// resolveAutoPaths lists the files the autoIndexPaths name, in Mastra's
// order: for each pattern, the files it matches directly, then the files
// below the directories it matches (ten levels deep, symlinked directories
// not entered); a file named twice is listed once. Patterns that name
// nothing, or what the workspace refuses, are skipped, and told to skip.
func (e *Engine) resolveAutoPaths(ctx context.Context, skip func(p, why string)) []autoFile {
	fs := e.o.Files
	var out []autoFile
	seen := map[string]bool{}
	add := func(f autoFile) {
		if !seen[f.id] {
			seen[f.id] = true
			out = append(out, f)
		}
	}
	unreadable := func(p string, n int) {
		switch {
		case n == 1:
			skip(p, "1 directory below it cannot be read")
		case n > 1:
			skip(p, strconv.Itoa(n)+" directories below it cannot be read")
		}
	}
	for _, p := range e.o.AutoPaths {
		if ctx.Err() != nil {
			break
		}
		if len(p) > 1 && strings.HasSuffix(p, "/") {
			p = p[:len(p)-1]
		}
		if !glob.Has(p) {
			t, err := fs.Resolve(p)
			if err != nil {
				skip(p, "refused ("+err.Error()+")")
				continue
			}
			st, err := fs.Stat(t.Loc())
			switch {
			case errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR):
				skip(p, "no such file or directory")
			case err != nil:
				skip(p, reason(err))
			case st.IsDir():
				unreadable(p, allFiles(ctx, fs, t.Loc(), p, add))
			default:
				add(autoFile{id: p, loc: t.Loc()})
			}
			continue
		}
		base := glob.Base(p)
		t, err := fs.Resolve(base)
		if err != nil {
			skip(p, "refused ("+err.Error()+")")
			continue
		}
		var dirs []autoFile
		matched := false
		n := walkMatches(ctx, fs, t.Loc(), base, p, func(f autoFile, isDir bool) {
			matched = true
			if !isDir {
				add(f)
				return
			}
			for _, d := range dirs {
				if f.id == d.id || strings.HasPrefix(f.id, d.id+"/") {
					return
				}
			}
			dirs = append(dirs, f)
		})
		unreadable(p, n)
		for _, d := range dirs {
			unreadable(d.id, allFiles(ctx, fs, d.loc, d.id, add))
		}
		if !matched && ctx.Err() == nil {
			skip(p, "matches nothing")
		}
	}
	return out
}

const autoIndexDepth = 10

// CountFiles is the number of files below the workspace's base directory
// as the autoIndexPaths see them (Mastra's getAllFiles); 0 when the base
// cannot be resolved.
func CountFiles(ctx context.Context, fs Files) int {
	n := 0
	if t, err := fs.Resolve("."); err == nil {
		allFiles(ctx, fs, t.Loc(), ".", func(autoFile) { n++ })
	}
	return n
}

// allFiles is Mastra's getAllFiles: every file below dir, depth first,
// down to autoIndexDepth levels (symlinked directories not entered). It
// returns how many directories could not be read.
func allFiles(ctx context.Context, fs Files, l fsroot.Loc, id string, add func(autoFile)) int {
	opts := fsroot.WalkOptions{Hidden: true, Links: true, MaxDepth: autoIndexDepth}
	n, err := fs.Walk(ctx, l, id, opts, nil, func(e *fsroot.WalkEntry) (bool, any) {
		if !e.IsDir {
			add(autoFile{id: e.Rel(), loc: e.Loc()})
		}
		return true, nil
	})
	return n + unreadableStart(err)
}

// walkMatches is Mastra's walkAll with the glob filter: every entry below
// dir whose path matches the pattern (dot files only when it names them).
// It returns how many directories could not be read.
func walkMatches(ctx context.Context, fs Files, l fsroot.Loc, id, pattern string, found func(autoFile, bool)) int {
	opts := fsroot.WalkOptions{Hidden: true, Links: true, MaxDepth: autoIndexDepth}
	n, err := fs.Walk(ctx, l, id, opts, nil, func(e *fsroot.WalkEntry) (bool, any) {
		if e.IsDir && e.IsLink {
			return false, nil
		}
		if glob.Match(pattern, e.Rel(), false) {
			found(autoFile{id: e.Rel(), loc: e.Loc()}, e.IsDir)
		}
		return true, nil
	})
	return n + unreadableStart(err)
}

// unreadableStart counts a walk's first directory when it could not be
// opened for a reason other than not being there.
func unreadableStart(err error) int {
	if err == nil || errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
		return 0
	}
	return 1
}
