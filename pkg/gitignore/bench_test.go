package gitignore

import (
	"fmt"
	"path"
	"testing"
)

// benchIgnore is a typical root .gitignore of a polyglot project.
const benchIgnore = `# Binaries
*.exe
*.exe~
*.dll
*.so
*.dylib
*.test
*.out
/bin/
/dist/
go.work.sum

# Node
node_modules/
npm-debug.log*
yarn-debug.log*
.pnpm-debug.log*
.npm
.eslintcache
*.tsbuildinfo
.next/
out/

# Python
__pycache__/
*.py[cod]
*$py.class
.venv/
venv/
*.egg-info/
.pytest_cache/
.mypy_cache/

# Editors and OS
.idea/
.vscode/*
!.vscode/settings.json
*.swp
*~
.DS_Store
Thumbs.db

# Project
/build
coverage/
**/testdata/golden/*.tmp
docs/**/_generated/
logs/**
!logs/.keep
*.log
!important.log
tmp/
`

// benchTree returns entries of a synthetic tree with their parents'
// Matchers, as a walker has them, and the Tree of the same files.
func benchTree(n int) (rels []string, dirs []bool, ms []*Matcher, tr *Tree) {
	ignores := map[string]string{
		"":         benchIgnore,
		"web":      "!out/\n*.map\n",
		"services": "/generated\n*.pb.go\n!keep.pb.go\n",
	}
	tr = NewTree(treeFS(ignores), nil)
	names := []string{
		"main.go", "main_test.go", "util.go", "README.md", "index.ts", "index.js.map",
		"app.log", "important.log", "x.pyc", "mod.py", "data.pb.go", "notes~",
		"Makefile", "LICENSE", ".DS_Store", "image.png",
	}
	subdirs := []string{"node_modules", "out", "tmp", "__pycache__", "pkg", "internal", "cmd"}
	tops := []string{"src", "web", "services", "docs", "tools", "lib"}
	for i := 0; len(rels) < n; i++ {
		top := tops[i%len(tops)]
		dir := fmt.Sprintf("%s/mod%d/part%d", top, i%37, i%11)
		if i%3 == 0 {
			dir += "/deep/er"
		}
		m := tr.Dir(dir)
		for j, name := range names {
			if (i+j)%3 == 0 {
				continue
			}
			rels = append(rels, dir+"/"+name)
			dirs = append(dirs, false)
			ms = append(ms, m)
		}
		sd := subdirs[i%len(subdirs)]
		rels = append(rels, dir+"/"+sd)
		dirs = append(dirs, true)
		ms = append(ms, m)
	}
	return rels[:n], dirs[:n], ms[:n], tr
}

// BenchmarkIgnored is the walker's check of one directory entry.
func BenchmarkIgnored(b *testing.B) {
	rels, dirs, ms, _ := benchTree(100000)
	ignored := 0
	b.ReportAllocs()
	for b.Loop() {
		ignored = 0
		for i, rel := range rels {
			if ms[i].Ignored(rel, dirs[i]) {
				ignored++
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(rels)), "ns/entry")
	b.ReportMetric(float64(ignored)/float64(len(rels)), "ignored/entry")
}

// BenchmarkIgnoredParallel is BenchmarkIgnored from GOMAXPROCS goroutines
// sharing the Matchers.
func BenchmarkIgnoredParallel(b *testing.B) {
	rels, dirs, ms, _ := benchTree(100000)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			ms[i].Ignored(rels[i], dirs[i])
			if i++; i == len(rels) {
				i = 0
			}
		}
	})
}

// BenchmarkTreeIgnored checks whole paths, parents included, with the
// Matchers of the Tree already cached.
func BenchmarkTreeIgnored(b *testing.B) {
	rels, dirs, _, tr := benchTree(10000)
	b.ReportAllocs()
	for b.Loop() {
		for i, rel := range rels {
			tr.Ignored(rel, dirs[i])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(rels)), "ns/path")
}

// BenchmarkMatchPath checks whole paths with the Matcher of their parent.
func BenchmarkMatchPath(b *testing.B) {
	rels, dirs, ms, _ := benchTree(10000)
	b.ReportAllocs()
	for b.Loop() {
		for i, rel := range rels {
			ms[i].IgnoredPath(rel, dirs[i])
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(rels)), "ns/path")
}

// BenchmarkChild is the cost of entering a directory with a .gitignore.
func BenchmarkChild(b *testing.B) {
	content := []byte(benchIgnore)
	root := New()
	b.ReportAllocs()
	for b.Loop() {
		root.Child("a/b", content)
	}
}

func BenchmarkWildmatch(b *testing.B) {
	cases := []struct{ pattern, text string }{
		{"*.py[cod]", "module.pyc"},
		{"a/**/b/*.txt", "a/x/y/z/b/file.txt"},
		{"**/testdata/golden/*.tmp", "src/pkg/testdata/golden/out.tmp"},
		{"docs/**/_generated", "docs/api/v1/reference/index.md"},
	}
	for _, c := range cases {
		b.Run(path.Base(c.pattern), func(b *testing.B) {
			for b.Loop() {
				wildmatch(c.pattern, c.text, true)
			}
		})
	}
}
