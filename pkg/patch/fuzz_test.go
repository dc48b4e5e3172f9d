package patch

import (
	"fmt"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics, that what it accepts is sound
// (known operations, clean relative paths), and that Plan never panics on
// it, whatever the files hold.
func FuzzParse(f *testing.F) {
	for _, c := range gitCases(f) {
		f.Add(c.diff, "line 1\nline 2\n", byte(0))
	}
	f.Add(codexPatch("*** Add File: a", "+x", "*** Update File: b", "*** Move to: c", "@@ f", " x", "-y", "+z", "*** End of File", "*** Delete File: d"), "x\ny\n", byte(1))
	f.Add(lines("<<'EOF'", "*** Begin Patch", "*** Update File: a", "@@ class A", "@@ def f", "", "-x", "+y", "EOF"), "class A\ndef f\n\nx\n", byte(1))
	f.Add(lines("--- a/f", "+++ b/f", "@@", " a", "-b", "+c"), "a\r\nb\r\n", byte(2))
	f.Fuzz(func(t *testing.T, text, content string, mode byte) {
		p, err := Parse(text)
		if err != nil {
			pe, ok := err.(*ParseError)
			if !ok || pe.Kind == "" || pe.Line < 0 || pe.Line > strings.Count(text, "\n")+1 {
				t.Fatalf("Parse error %#v", err)
			}
			_ = err.Error()
			return
		}
		if p.Format != FormatCodex && p.Format != FormatUnified || len(p.Files) == 0 {
			t.Fatalf("patch %+v", p)
		}
		for _, fp := range p.Files {
			if fp.Op < Add || fp.Op > Update {
				t.Fatalf("op %d", fp.Op)
			}
			names := []string{fp.Path}
			if fp.MoveTo != "" {
				names = append(names, fp.MoveTo)
			}
			for _, name := range names {
				if c, err := cleanPath(name, 0); err != nil || c != name {
					t.Fatalf("path %q is not clean: %v", name, err)
				}
			}
		}
		// The files hold the given content, or the lines the hunks look for
		// (so that hunks land), or do not exist.
		read := func(name string) ([]byte, bool, error) {
			switch (int(mode) + len(name)) % 3 {
			case 0:
				return []byte(content), true, nil
			case 1:
				var b strings.Builder
				for _, fp := range p.Files {
					if fp.Path == name {
						for _, h := range fp.Hunks {
							for _, a := range h.Anchors {
								b.WriteString(a + "\n")
							}
							for _, l := range h.Old() {
								b.WriteString(l + "\n")
							}
						}
					}
				}
				return []byte(b.String()), true, nil
			}
			return nil, false, nil
		}
		changes, err := p.Plan(read)
		if err != nil {
			if KindOf(err) == "" || changes != nil {
				t.Fatalf("Plan error %v (kind %q), changes %v", err, KindOf(err), changes)
			}
			_ = err.Error()
			return
		}
		for _, c := range changes {
			if (c.Op == Delete) != (c.New == nil) {
				t.Fatalf("change %+v", c)
			}
		}
	})
}

// FuzzRoundTrip makes a unified diff from a to b with its own generator and
// checks that Plan turns a into b. When the diff's hunks all have old lines
// and both files end with a newline, it also checks the same hunks as a
// Codex patch: without line numbers they may be refused as ambiguous, but
// they must never land anywhere else.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4}, []byte{0, 2, 3, 5, 4}, byte(3<<2))
	f.Add([]byte{6, 0, 6, 0, 6}, []byte{6, 1, 6, 0, 6}, byte(1<<2|1))
	f.Add([]byte{}, []byte{7, 8}, byte(32|2))
	f.Add([]byte{7, 8, 9}, []byte{}, byte(32|16|1))
	f.Add([]byte{1, 1, 1, 1, 1, 1, 1, 1}, []byte{1, 1, 1, 2, 1, 1, 1, 1}, byte(0))
	f.Fuzz(func(t *testing.T, ab, bb []byte, flags byte) {
		d := genCase(ab, bb, flags)
		if d.a == d.b {
			return
		}
		diff := d.unified()
		p, err := Parse(diff)
		if err != nil {
			t.Fatalf("Parse: %v\n%s", err, diff)
		}
		files := map[string][]byte{}
		if !d.created() {
			files["f.txt"] = []byte(d.a)
		}
		changes, err := p.Plan(mapReader(files))
		if err != nil {
			t.Fatalf("Plan: %v\na: %q\nb: %q\n%s", err, d.a, d.b, diff)
		}
		got := applyChanges(files, changes)
		want := map[string][]byte{"f.txt": []byte(d.b)}
		if d.deleted() {
			want = map[string][]byte{}
		}
		if !equalTrees(got, want) {
			t.Fatalf("a: %q\nwant b: %q\ngot:\n%s\n%s", d.a, d.b, dumpTree(got), diff)
		}

		cp, ok := d.codex()
		if !ok {
			return
		}
		p, err = Parse(cp)
		if err != nil {
			t.Fatalf("Parse: %v\n%s", err, cp)
		}
		changes, err = p.Plan(mapReader(map[string][]byte{"f.txt": []byte(d.a)}))
		if err != nil {
			if KindOf(err) != KindAmbiguous {
				t.Fatalf("Plan of the Codex form: %v\na: %q\n%s", err, d.a, cp)
			}
			return
		}
		if got := string(changes[0].New); got != d.b {
			t.Fatalf("Codex form: a: %q\nwant b: %q\ngot: %q\n%s", d.a, d.b, got, cp)
		}
	})
}

// fuzzAlphabet has lines that differ only in whitespace or punctuation,
// and lines that look like diff syntax once prefixed.
var fuzzAlphabet = []string{"a", "b", "c", "", "  a", "a ", "}", "-- x", "++ y", "\tb", "“q”", `"q"`, "@@ z", "*** w", `\ v`}

type genDiff struct {
	al, bl           []string
	aNoNL, bNoNL     bool // the last line has no line ending
	crlf, wholeFiles bool
	context          int
	a, b             string
	ops              []op
	hunks            [][2]int // ranges of ops
}

type op struct {
	kind   LineKind
	ai, bi int // index in al and bl before the op
}

func genCase(ab, bb []byte, flags byte) *genDiff {
	toLines := func(bs []byte) []string {
		var ls []string
		for i, c := range bs {
			if i == 60 {
				break
			}
			ls = append(ls, fuzzAlphabet[int(c)%len(fuzzAlphabet)])
		}
		return ls
	}
	d := &genDiff{al: toLines(ab), bl: toLines(bb),
		aNoNL: flags&1 != 0, bNoNL: flags&2 != 0, context: int(flags>>2) & 3,
		crlf: flags&16 != 0, wholeFiles: flags&32 != 0}
	// An empty last line without a line ending is no line at all.
	if d.aNoNL && len(d.al) > 0 && d.al[len(d.al)-1] == "" {
		d.al, d.aNoNL = d.al[:len(d.al)-1], false
	}
	if d.bNoNL && len(d.bl) > 0 && d.bl[len(d.bl)-1] == "" {
		d.bl, d.bNoNL = d.bl[:len(d.bl)-1], false
	}
	d.aNoNL = d.aNoNL && len(d.al) > 0
	d.bNoNL = d.bNoNL && len(d.bl) > 0
	d.a, d.b = d.render(d.al, d.aNoNL), d.render(d.bl, d.bNoNL)
	d.diff()
	return d
}

func (d *genDiff) eol() string {
	if d.crlf {
		return "\r\n"
	}
	return "\n"
}

func (d *genDiff) render(ls []string, noNL bool) string {
	var b strings.Builder
	for i, l := range ls {
		b.WriteString(l)
		if i < len(ls)-1 || !noNL {
			b.WriteString(d.eol())
		}
	}
	return b.String()
}

func (d *genDiff) created() bool { return d.wholeFiles && len(d.al) == 0 }
func (d *genDiff) deleted() bool { return d.wholeFiles && len(d.bl) == 0 && !d.created() }

// diff computes a shortest edit script (by longest common subsequence) and
// groups it into hunks with d.context lines of context, as diff does.
func (d *genDiff) diff() {
	key := func(ls []string, i int, noNL bool) string {
		if noNL && i == len(ls)-1 {
			return ls[i] + "\x00" // a last line without ending differs from one with
		}
		return ls[i]
	}
	n, m := len(d.al), len(d.bl)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if key(d.al, i, d.aNoNL) == key(d.bl, j, d.bNoNL) {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []op
	i, j := 0, 0
	var dels, inss []op // the current run of changes: removals first, as git prints them
	flush := func() {
		ops = append(append(ops, dels...), inss...)
		dels, inss = nil, nil
	}
	for i < n || j < m {
		switch {
		case i < n && j < m && key(d.al, i, d.aNoNL) == key(d.bl, j, d.bNoNL) && lcs[i][j] == lcs[i+1][j+1]+1:
			flush()
			ops = append(ops, op{Context, i, j})
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			dels = append(dels, op{Remove, i, j})
			i++
		default:
			inss = append(inss, op{Insert, i, j})
			j++
		}
	}
	flush()
	d.ops = ops
	c := d.context
	for k := 0; k < len(ops); {
		if ops[k].kind == Context {
			k++
			continue
		}
		lo := max(k-c, 0)
		end := k // end of the last change of the hunk
		for {
			for end < len(ops) && ops[end].kind != Context {
				end++
			}
			next := end
			for next < len(ops) && ops[next].kind == Context {
				next++
			}
			if next < len(ops) && next-end <= 2*c {
				end = next
				continue
			}
			d.hunks = append(d.hunks, [2]int{lo, min(end+c, next)})
			k = next
			break
		}
	}
}

func (d *genDiff) rangeOf(start, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, count)
}

// hunkLines writes the lines of hunk h, in unified syntax or (codex true)
// in Codex syntax, which has no "\r" and no markers.
func (d *genDiff) hunkLines(b *strings.Builder, h [2]int, codex bool) {
	for _, o := range d.ops[h[0]:h[1]] {
		text, last := "", false
		switch o.kind {
		case Context, Remove:
			text, last = d.al[o.ai], d.aNoNL && o.ai == len(d.al)-1
			if o.kind == Context {
				last = last || d.bNoNL && o.bi == len(d.bl)-1
			}
		case Insert:
			text, last = d.bl[o.bi], d.bNoNL && o.bi == len(d.bl)-1
		}
		b.WriteByte(byte(o.kind))
		b.WriteString(text)
		if d.crlf && !last && !codex {
			b.WriteByte('\r')
		}
		b.WriteByte('\n')
		if last && !codex {
			b.WriteString("\\ No newline at end of file\n")
		}
	}
}

func (d *genDiff) unified() string {
	var b strings.Builder
	b.WriteString("diff --git a/f.txt b/f.txt\n")
	oldName, newName := "a/f.txt", "b/f.txt"
	switch {
	case d.created():
		b.WriteString("new file mode 100644\n")
		oldName = devNull
	case d.deleted():
		b.WriteString("deleted file mode 100644\n")
		newName = devNull
	}
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", oldName, newName)
	for _, h := range d.hunks {
		var oldCount, newCount int
		for _, o := range d.ops[h[0]:h[1]] {
			if o.kind != Insert {
				oldCount++
			}
			if o.kind != Remove {
				newCount++
			}
		}
		first := d.ops[h[0]]
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", d.rangeOf(first.ai, oldCount), d.rangeOf(first.bi, newCount))
		d.hunkLines(&b, h, false)
	}
	return b.String()
}

// codex returns the hunks as a Codex patch, when that format can say the
// same thing.
func (d *genDiff) codex() (string, bool) {
	if d.aNoNL || d.bNoNL || d.created() || d.deleted() || d.crlf && len(d.al) == 0 {
		return "", false
	}
	var b strings.Builder
	b.WriteString("*** Begin Patch\n*** Update File: f.txt\n")
	for _, h := range d.hunks {
		old := 0
		for _, o := range d.ops[h[0]:h[1]] {
			if o.kind != Insert {
				old++
			}
		}
		if old == 0 {
			return "", false // Codex would add these lines at the end of the file
		}
		b.WriteString("@@\n")
		d.hunkLines(&b, h, true)
	}
	b.WriteString("*** End Patch\n")
	return b.String(), true
}
