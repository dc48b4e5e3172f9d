package grep

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/internal/fsroot"
	"github.com/wstools/ws/pkg/internal/needtool"
)

// TestMultilineHits: with Multiline, every line a match covers is a hit,
// once and in order, the first with the match's column and the others
// with 0, on both engines (a lookahead takes the ECMAScript one), with -w,
// -i and the JavaScript meaning of `.` and `\s`.
func TestMultilineHits(t *testing.T) {
	type hits = []Hit
	tests := []struct {
		name, pattern, buf string
		o                  CompileOptions // CaseSensitive is set unless ignoreCase
		ignoreCase         bool
		want               hits
	}{
		{"spans three lines", `a\([^)]*\)`, "x\nfunc a(\n  x,\n) {\n", CompileOptions{}, false, hits{{1, 5}, {2, 0}, {3, 0}}},
		{"one line still", `b+`, "abba\nc\nbb", CompileOptions{}, false, hits{{0, 1}, {2, 0}}},
		{"ends with its newline", `c\n`, "ab\nc\nd\n", CompileOptions{}, false, hits{{1, 0}}},
		{"the newline and the next line's start", `c\nd`, "ab\nc\nd\n", CompileOptions{}, false, hits{{1, 0}, {2, 0}}},
		{"two matches on a line", `x\ny|y\nz`, "ax\nyy\nz\n", CompileOptions{}, false, hits{{0, 1}, {1, 0}, {2, 0}}},
		{"dot stops at a line end", `a.b`, "a\nb\naxb\n", CompileOptions{}, false, hits{{2, 0}}},
		{"\\s takes a line end", `a\sb`, "a\nb\n", CompileOptions{}, false, hits{{0, 0}, {1, 0}}},
		{"[\\s\\S] takes everything", `q[\s\S]*w`, "q\n\n\nw tail\n", CompileOptions{}, false, hits{{0, 0}, {1, 0}, {2, 0}, {3, 0}}},
		{"anchors at each line", `^b$`, "a\nb\nc", CompileOptions{}, false, hits{{1, 0}}},
		{"empty matches", `z*`, "a\n\nb", CompileOptions{}, false, hits{{0, 0}, {1, 0}, {2, 0}}},
		{"empty match at the end of a final line", `$`, "a", CompileOptions{}, false, hits{{0, 1}}},
		{"nothing after the final newline", `^`, "a\n", CompileOptions{}, false, hits{{0, 0}}},
		{"empty file", `^`, "", CompileOptions{}, false, nil},
		{"case", `A\nB`, "a\nb\n", CompileOptions{}, false, nil},
		{"ignore case", `A\nB`, "a\nb\n", CompileOptions{}, true, hits{{0, 0}, {1, 0}}},
		{"word", `ab\ncd`, "xab\ncd\n ab\ncd \n", CompileOptions{Word: true}, false, hits{{2, 1}, {3, 0}}},
		{"words one after another", `foo\nbar`, "foo\nbar foo\nbar\n", CompileOptions{Word: true}, false, hits{{0, 0}, {1, 0}, {2, 0}}},
		{"fixed", "a.\nb", "a.\nb\naz\nb\n", CompileOptions{Fixed: true}, false, hits{{0, 0}, {1, 0}}},
		{"lookahead (ECMAScript)", `a\n(?=b)`, "a\nb\na\nc\n", CompileOptions{}, false, hits{{0, 0}}},
		{"backreference across lines (ECMAScript)", `(\w+)\n\1`, "x\nfoo\nfoo\n", CompileOptions{}, false, hits{{1, 0}, {2, 0}}},
		{"ECMAScript column in bytes", `é(?=\n)`, "aé\nb\n", CompileOptions{}, false, hits{{0, 1}}},
		{"no line start where a match ended", `x|^b\nc`, "xb\nc\n", CompileOptions{}, false, hits{{0, 0}}},
		{"no line start where a match ended (ECMAScript)", `x|^b\nc(?=\n)`, "xb\nc\n", CompileOptions{}, false, hits{{0, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.o
			o.CaseSensitive, o.Multiline = !tt.ignoreCase, true
			m, err := CompileWith(tt.pattern, o)
			must(t, err)
			got, err := m.Scan([]byte(tt.buf), 0)
			must(t, err)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("%q in %q: hits %v, want %v", tt.pattern, tt.buf, got, tt.want)
			}
		})
	}
}

// TestMultilineSearch: a multi-line search reads a file bigger than a
// window whole (a match across the windows' border is found), counts the
// lines the matches cover against -m, and -v reports the lines no match
// covers.
func TestMultilineSearch(t *testing.T) {
	windows(t)(1 << 10)
	dir := t.TempDir()
	body := strings.Repeat("filler\n", 300) + "begin\nend\n" + strings.Repeat("filler\n", 300)
	must(t, os.WriteFile(filepath.Join(dir, "big.txt"), []byte(body), 0o644))
	fsys := fsroot.New(fsroot.Options{Base: dir, Contained: true})
	lines := func(o Options) []int {
		res, err := Search(context.Background(), fsys, ".", o)
		must(t, err)
		var ls []int
		for _, f := range res.Files {
			for _, h := range f.Hits {
				ls = append(ls, h.Line)
			}
		}
		return ls
	}
	m, err := CompileWith(`begin\nend`, CompileOptions{CaseSensitive: true, Multiline: true})
	must(t, err)
	if got := lines(Options{Matcher: m}); !slices.Equal(got, []int{300, 301}) {
		t.Fatalf("lines %v, want [300 301]", got)
	}
	if got := lines(Options{Matcher: m, MaxCount: 1}); !slices.Equal(got, []int{300}) {
		t.Fatalf("with -m 1: lines %v, want [300]", got)
	}
	if got := lines(Options{Matcher: m, Invert: true}); len(got) != 600 || slices.Contains(got, 300) || slices.Contains(got, 301) {
		t.Fatalf("with -v: %d lines, want the 600 around the match", len(got))
	}
}

// TestMultilineAgainstRipgrep holds -U to ripgrep's on random files and
// patterns of a small alphabet, where the two regexp dialects agree: the
// lines the matches cover must be the same. The alphabet has no ^ or $:
// ripgrep 13 (Debian 12's) resumes a search after a match as if a line
// started there, so `x|^b\nc` finds two lines in "xb\nc" (ws: one; see
// TestMultilineHits). It needs rg (the Debian
// package ripgrep); WS_REQUIRE_RG=1 fails rather than skips without it.
func TestMultilineAgainstRipgrep(t *testing.T) {
	rg := needtool.Path(t, "rg", "WS_REQUIRE_RG")
	rng := rand.New(rand.NewSource(11))
	dir := t.TempDir()
	for i := range 40 {
		var sb strings.Builder
		for range rng.Intn(60) {
			sb.WriteByte("abc \n\n"[rng.Intn(6)])
		}
		must(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.txt", i)), []byte(sb.String()), 0o644))
	}
	fsys := fsroot.New(fsroot.Options{Base: dir, Contained: true})
	atoms := []string{"a", "b", "c", " ", `\n`, "[^a]", "[ab]", ".", `\s`, "a*", "(?:b|c)", `[^\n]`, "b+"}
	for range 300 {
		var p strings.Builder
		for range 1 + rng.Intn(4) {
			p.WriteString(atoms[rng.Intn(len(atoms))])
		}
		pattern := p.String()
		m, err := CompileWith(pattern, CompileOptions{CaseSensitive: true, Multiline: true})
		must(t, err)
		res, err := Search(context.Background(), fsys, ".", Options{Matcher: m})
		must(t, err)
		var got []string
		for _, f := range res.Files {
			for _, h := range f.Hits {
				got = append(got, f.Rel+":"+strconv.Itoa(h.Line+1))
			}
		}
		out, err := exec.Command(rg, "-U", "-n", "--no-heading", "--with-filename", "--color", "never", "--no-config", "-e", pattern, dir).Output()
		if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 1) {
			t.Fatalf("rg -U %q: %v", pattern, err)
		}
		var want []string
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			path, rest, _ := strings.Cut(strings.TrimPrefix(sc.Text(), dir+"/"), ":")
			num, _, _ := strings.Cut(rest, ":")
			want = append(want, path+":"+num)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("pattern %q: ws -U found %d lines, rg -U %d\nws: %v\nrg: %v", pattern, len(got), len(want), got, want)
		}
	}
}

// TestSpansResumed: a multi-line pattern that does not look back is
// searched one match at a time, each search resumed on a slice where the
// last match ended; it must find what one search of the whole buffer for
// all matches finds (Go's FindAllIndex), empty matches included.
func TestSpansResumed(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	atoms := []string{"a", "b", `\n`, "[^a]", ".", `\s`, "a*", "b?", "(?:a|)", "$", `\n*`, "é"}
	for range 2000 {
		var p strings.Builder
		for range 1 + rng.Intn(3) {
			p.WriteString(atoms[rng.Intn(len(atoms))])
		}
		m, err := CompileWith(p.String(), CompileOptions{CaseSensitive: true, Multiline: true})
		must(t, err)
		if m.looksBack || m.es != nil {
			t.Fatalf("%q: looks back or runs on the ECMAScript engine", p.String())
		}
		var sb strings.Builder
		for range rng.Intn(20) {
			sb.WriteString([]string{"a", "b", "\n", "é", " "}[rng.Intn(5)])
		}
		buf := []byte(sb.String())
		var got [][]int
		next := m.spans(buf)
		for {
			s, e, _ := next()
			if s < 0 {
				break
			}
			got = append(got, []int{s, e})
		}
		if want := m.re.FindAllIndex(buf, -1); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q in %q: resumed %v, whole %v", p.String(), buf, got, want)
		}
	}
}

// TestMultilineEngines: with -U, a pattern that can match neither a line
// end nor assert one is searched a line at a time (prefilter and DFA, as
// rg does), the others across lines; AsksLineEnd tells a pattern that a
// line-at-a-time search can never match.
func TestMultilineEngines(t *testing.T) {
	for pattern, multi := range map[string]bool{`er `: false, `a[^\n]b`: false, `\w+\(`: false,
		`a\nb`: true, `a\s`: true, `[^a]`: true, `^a`: true, `a$`: true, `(?=x)\n`: true} {
		m, err := CompileWith(pattern, CompileOptions{CaseSensitive: true, Multiline: true})
		must(t, err)
		if m.multi != multi || m.crosses != multi {
			t.Errorf("-U %q: across lines %v (crosses %v), want %v", pattern, m.multi, m.crosses, multi)
		}
	}
	for pattern, want := range map[string]bool{`a\nb`: true, "a\nb": true, `[\n]`: true, `\n?x`: true,
		`a[^\n]b`: false, `[\s\S]`: false, `a\\nb`: false, `x`: false} {
		if got, ok := AsksLineEnd(pattern); !ok || got != want {
			t.Errorf("AsksLineEnd(%q) = %v, %v; want %v", pattern, got, ok, want)
		}
	}
	if _, ok := AsksLineEnd(`(?<=a)\n`); ok {
		t.Error("AsksLineEnd read a lookbehind")
	}
}
