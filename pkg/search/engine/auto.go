package engine

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
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
	files := e.resolveAutoPaths(ctx)
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
	for _, d := range x.Docs() {
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
			continue
		}
		old, had := known[f.id]
		if had && live[f.id] && old.Size == st.Size && old.MtimeNS == st.MtimeNS {
			indexed++
			continue
		}
		if e.indexFile(x, f) {
			indexed++
			if res != nil {
				if had && live[f.id] {
					res.Changed = append(res.Changed, f.id)
				} else {
					res.Added = append(res.Added, f.id)
				}
			}
		}
	}
	if res != nil {
		res.Files = indexed
	}
	x.AutoPaths = append([]string{}, e.o.AutoPaths...)
}

// indexFile reads one file and indexes it (as chunks when long), replacing
// what was indexed from it before. Binary files are left out. It reports
// whether the file was indexed.
func (e *Engine) indexFile(x *search.Index, f autoFile) bool {
	fd, err := e.o.Files.Open(f.loc, unix.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		x.RemoveSource(f.id)
		return false
	}
	file := os.NewFile(uintptr(fd), f.id)
	defer file.Close()
	st, err := fsroot.Fstat(fd)
	if err != nil || !st.Mode.IsRegular() {
		x.RemoveSource(f.id)
		return false
	}
	data, err := io.ReadAll(io.LimitReader(file, 256<<20))
	if err != nil {
		x.RemoveSource(f.id)
		return false
	}
	x.RemoveSource(f.id)
	if grep.IsBinary(path.Base(f.id), data[:min(len(data), media.SniffLen)]) {
		return false
	}
	src := x.AddSource(search.Source{Path: f.id, MtimeNS: st.MtimeNS, Size: st.Size})
	content := string(data) // as it is: the text shown decodes it, --json data keeps the bytes
	chunks := search.SplitIntoChunks(content)
	if len(chunks) == 1 {
		x.Add(search.Doc{ID: f.id, Content: content, Source: src})
		return true
	}
	for i, c := range chunks {
		x.Add(search.Doc{ID: fmt.Sprintf("%s#chunk-%d", f.id, i), Content: c.Content, Source: src, StartLine: c.StartLine})
	}
	return true
}

// resolveAutoPaths lists the files the autoIndexPaths name, in Mastra's
// order: for each pattern, the files it matches directly, then the files
// below the directories it matches (ten levels deep, symlinked directories
// not entered); a file named twice is listed once. Patterns that name
// nothing, or what the workspace refuses, are skipped.
func (e *Engine) resolveAutoPaths(ctx context.Context) []autoFile {
	fs := e.o.Files
	var out []autoFile
	seen := map[string]bool{}
	add := func(f autoFile) {
		if !seen[f.id] {
			seen[f.id] = true
			out = append(out, f)
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
				continue
			}
			st, err := fs.Stat(t.Loc())
			switch {
			case err != nil:
			case st.IsDir():
				allFiles(ctx, fs, t.Loc(), p, add)
			default:
				add(autoFile{id: p, loc: t.Loc()})
			}
			continue
		}
		base := glob.Base(p)
		t, err := fs.Resolve(base)
		if err != nil {
			continue
		}
		var dirs []autoFile
		walkMatches(ctx, fs, t.Loc(), base, p, func(f autoFile, isDir bool) {
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
		for _, d := range dirs {
			allFiles(ctx, fs, d.loc, d.id, add)
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
// down to autoIndexDepth levels (symlinked directories not entered).
func allFiles(ctx context.Context, fs Files, l fsroot.Loc, id string, add func(autoFile)) {
	opts := fsroot.WalkOptions{Hidden: true, Links: true, MaxDepth: autoIndexDepth}
	_, _ = fs.Walk(ctx, l, id, opts, nil, func(e *fsroot.WalkEntry) (bool, any) {
		if !e.IsDir {
			add(autoFile{id: e.Rel(), loc: e.Loc()})
		}
		return true, nil
	})
}

// walkMatches is Mastra's walkAll with the glob filter: every entry below
// dir whose path matches the pattern (dot files only when it names them).
func walkMatches(ctx context.Context, fs Files, l fsroot.Loc, id, pattern string, found func(autoFile, bool)) {
	opts := fsroot.WalkOptions{Hidden: true, Links: true, MaxDepth: autoIndexDepth}
	_, _ = fs.Walk(ctx, l, id, opts, nil, func(e *fsroot.WalkEntry) (bool, any) {
		if e.IsDir && e.IsLink {
			return false, nil
		}
		if glob.Match(pattern, e.Rel(), false) {
			found(autoFile{id: e.Rel(), loc: e.Loc()}, e.IsDir)
		}
		return true, nil
	})
}
