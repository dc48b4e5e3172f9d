package editmatch

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

// normText is the loosest view of a text: each line's key (folded, NFD,
// trimmed), blank lines dropped. A fallback may only replace a region
// whose normText is old_string's, with text whose normText is new_string's.
func normText(s string) string {
	var out []string
	var buf [256]byte
	for _, l := range strings.Split(s, "\n") {
		if k := key(buf[:], []byte(l), trimBoth); len(k) > 0 {
			out = append(out, string(k))
		}
	}
	return strings.Join(out, "\n")
}

// checkMatch asserts what every applied edit must satisfy: the spans
// account for every change, bytes outside them are the original's, an
// exact match replaced old itself, and a fallback replaced a region equal
// to old (in one of its readings) with text equal to new, modulo
// formatting only.
func checkMatch(t *testing.T, content []byte, old, new string, all bool, m *Match) {
	t.Helper()
	if m.Count != len(m.Edits) || m.Count != len(m.Ranges) || m.Count == 0 {
		t.Fatalf("count %d, %d edits, %d ranges", m.Count, len(m.Edits), len(m.Ranges))
	}
	if !all && m.Count != 1 {
		t.Fatalf("%d places replaced without replace_all", m.Count)
	}
	prevOld, prevNew := 0, 0
	for _, e := range m.Edits {
		if e.OldStart < prevOld || e.OldEnd < e.OldStart || e.OldEnd > len(content) ||
			e.NewStart < prevNew || e.NewEnd < e.NewStart || e.NewEnd > len(m.Content()) {
			t.Fatalf("bad span %+v after %d/%d", e, prevOld, prevNew)
		}
		if !bytes.Equal(content[prevOld:e.OldStart], m.Content()[prevNew:e.NewStart]) {
			t.Fatalf("bytes outside the edits changed before span %+v", e)
		}
		region, written := string(content[e.OldStart:e.OldEnd]), string(m.Content()[e.NewStart:e.NewEnd])
		if m.Fallback == "" {
			// The region is old, or (to keep a missing final newline
			// missing) a line ending and old.
			atEOF := e.OldEnd == len(content)
			if strings.HasPrefix(old, "\n") && strings.HasPrefix(region, "\r\n") {
				region = region[1:] // the CR of the CRLF the place starts in
			}
			if region != old && !(atEOF && (region == "\n"+old || region == "\r\n"+old)) {
				t.Fatalf("exact match replaced %q, not old %q", region, old)
			}
			w := strings.TrimPrefix(written, bom)
			if strings.HasPrefix(new, bom) {
				w = written
			}
			same := func(w string) bool { return w == new || w == toEOL(new, "\n") || w == toEOL(new, "\r\n") }
			if !same(w) && !(atEOF && (same(w+"\n") || same(w+"\r\n") || same(strings.TrimSuffix(w, "\n")) || same(strings.TrimSuffix(w, "\r\n")))) {
				t.Fatalf("exact match wrote %q for new %q", written, new)
			}
		} else {
			ok := false
			for _, v := range variants(newFile(content), old, new) {
				if normText(region) == normText(v.old.joined()) && normText(written) == normText(v.new.joined()) {
					ok = true
				}
			}
			if !ok {
				t.Fatalf("fallback %s replaced %q with %q for old %q new %q", m.Fallback, region, written, old, new)
			}
		}
		prevOld, prevNew = e.OldEnd, e.NewEnd
	}
	if !bytes.Equal(content[prevOld:], m.Content()[prevNew:]) {
		t.Fatalf("bytes after the last edit changed")
	}
	if m.Fallback == "" {
		// Keeping the file's line endings never makes a CR of its own.
		n := 1
		if all {
			n = -1
		}
		crcrlf := func(s string) int { return strings.Count(s, "\r\r\n") }
		if lit := strings.Replace(string(content), old, new, n); crcrlf(string(m.Content())) > max(crcrlf(string(content)), crcrlf(lit)) {
			t.Fatalf("exact match doubled a CR: %q", m.Content())
		}
	}
	if m.Fallback != "" && bytes.Contains(content, []byte(old)) {
		t.Fatalf("fallback %s used although old occurs exactly", m.Fallback)
	}
	if m.Fallback != "" && m.Note == "" || m.Fallback == "" && m.Note != "" {
		t.Fatalf("fallback %q with note %q", m.Fallback, m.Note)
	}
	for _, r := range m.Ranges {
		if r.Start < 1 || r.End < r.Start {
			t.Fatalf("bad range %+v", r)
		}
	}
	if m.Fallback != "" && len(content) <= 4096 {
		checkUnique(t, content, old, new, all, m)
		// The whole result, normalised, is what an exact edit of the
		// regions with new_string (in the reading that matched) gives.
		ok := false
		for _, v := range variants(newFile(content), old, new) {
			nw := v.new.joined()
			if v.new.endsNL {
				nw += "\n"
			}
			want := string(content)
			for i := len(m.Edits) - 1; i >= 0; i-- {
				e := m.Edits[i]
				want = want[:e.OldStart] + nw + want[e.OldEnd:]
			}
			ok = ok || normText(want) == normText(string(m.Content()))
		}
		if !ok {
			t.Fatalf("fallback %s: the result %q is not an exact edit of the normalised text (old %q new %q)", m.Fallback, m.Content(), old, new)
		}
	}
}

// checkUnique is a brute-force oracle for the uniqueness rule: every run
// of whole lines whose non-blank lines equal old_string's (in any
// reading), modulo formatting, must be one of the places edited. A
// fallback that edits one place while another exists is a wrong apply.
func checkUnique(t *testing.T, content []byte, old, new string, all bool, m *Match) {
	t.Helper()
	f := newFile(content)
	type line struct{ start, end int }
	var lines []line
	for pos := f.base; ; {
		i := strings.IndexByte(string(content[pos:]), '\n')
		if i < 0 {
			lines = append(lines, line{pos, len(content)})
			break
		}
		lines = append(lines, line{pos, pos + i})
		pos += i + 1
		if pos == len(content) {
			break
		}
	}
	var keys []string
	var nb []int
	var buf [256]byte
	for i, l := range lines {
		k := string(key(buf[:], content[l.start:l.end], trimBoth))
		keys = append(keys, k)
		if k != "" {
			nb = append(nb, i)
		}
	}
	edited := func(s, e int) bool { // lines [s, e], with the line endings around them, overlap an edit
		for _, sp := range m.Edits {
			ls, le := lines[s].start-1, lines[e].end+1
			if ls < max(sp.OldEnd, sp.OldStart+1) && sp.OldStart < le {
				return true
			}
		}
		return false
	}
	for _, v := range variants(f, old, new) {
		n := len(v.nb)
		if n == 0 {
			continue
		}
		for s := 0; s+n <= len(nb); s++ {
			same := true
			for k := 0; k < n && same; k++ {
				same = keys[nb[s+k]] == string(v.keys[v.nb[k]])
			}
			if same && !edited(nb[s], nb[s+n-1]) {
				t.Fatalf("fallback %s edited %v but lines %d-%d also match old %q (all=%v)\ncontent %q",
					m.Fallback, m.Edits, nb[s]+1, nb[s+n-1]+1, old, all, content)
			}
		}
	}
}

func checkErr(t *testing.T, err error) {
	t.Helper()
	var nf *NotFoundError
	var am *AmbiguousError
	switch {
	case errors.As(err, &nf):
		if !strings.HasPrefix(err.Error(), notFoundText) {
			t.Fatalf("not-found text %q", err.Error())
		}
	case errors.As(err, &am):
		if am.Count < 2 && !am.ReplaceAll {
			t.Fatalf("ambiguous with count %d", am.Count)
		}
		_ = err.Error()
	default:
		t.Fatalf("untyped error %T %v", err, err)
	}
}

// checkApply applies the edit and checks what comes of it: content left
// as it was, and a refusal checkErr accepts or a match checkMatch accepts.
// It returns how long Apply took.
func checkApply(t *testing.T, content []byte, old, new string, all bool) time.Duration {
	t.Helper()
	keep := bytes.Clone(content)
	t0 := time.Now()
	m, err := Apply(content, old, new, all)
	d := time.Since(t0)
	if !bytes.Equal(content, keep) {
		t.Fatalf("%q: the content was modified", old)
	}
	if err != nil {
		checkErr(t, err)
	} else {
		checkMatch(t, content, old, new, all, m)
	}
	return d
}

func FuzzApply(f *testing.F) {
	for _, tt := range applyTests {
		f.Add([]byte(tt.content), tt.old, tt.new, tt.all)
	}
	f.Fuzz(func(t *testing.T, content []byte, old, new string, all bool) {
		checkApply(t, content, old, new, all)
	})
}

// FuzzSlip takes a piece of the content as old_string and damages it the
// way models do, so that the fallbacks are exercised far more often than
// with random strings.
func FuzzSlip(f *testing.F) {
	for i, tt := range applyTests {
		f.Add([]byte(tt.content), uint16(i), uint16(len(tt.old)), uint16(i*7919), tt.new, tt.all)
	}
	for i, cf := range corpusFiles {
		for j, e := range cf.edits {
			at := strings.Index(cf.content, e[0])
			f.Add([]byte(cf.content), uint16(at), uint16(len(e[0])-1), uint16(1<<((i+j)%16)), e[1], false)
		}
	}
	f.Fuzz(func(t *testing.T, content []byte, at, n, slips uint16, new string, all bool) {
		if len(content) == 0 {
			return
		}
		s := int(at) % len(content)
		e := min(len(content), s+1+int(n)%64)
		old := slip(string(content[s:e]), slips)
		if d := checkApply(t, content, old, new, all); d > 2*time.Second {
			t.Fatalf("SLOW %v", d)
		}
	})
}

// FuzzTwin puts a block and a damaged copy of it in one file and edits
// with another damaged copy: the oracle in checkMatch catches an edit of
// one copy while the other also matches.
func FuzzTwin(f *testing.F) {
	for i, cf := range corpusFiles {
		for j, e := range cf.edits {
			f.Add(e[0], "\n\nx\n", uint16(1<<((i+j)%16)), uint16(1<<((i+2*j+3)%16)), e[1], false)
		}
	}
	f.Fuzz(func(t *testing.T, block, sep string, s1, s2 uint16, new string, all bool) {
		content := []byte(block + sep + slip(block, s2))
		old := slip(block, s1)
		checkApply(t, content, old, new, all)
	})
}

// slip damages s: each bit of slips applies one kind of slip.
func slip(s string, slips uint16) string {
	r := strings.NewReplacer
	steps := []func(string) string{
		func(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") },
		func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") },
		func(s string) string { return strings.ReplaceAll(s, "\n", "  \n") },
		func(s string) string { return r("\n    ", "\n  ", "\n\t", "\n    ").Replace(s) },
		func(s string) string { return strings.ReplaceAll(s, "\n", "\n  ") },
		func(s string) string { return r("\n\n", "\n").Replace(s) },
		func(s string) string { return r("\n", "\n\n").Replace(s) },
		func(s string) string {
			return r("\"", "\u201c", "'", "\u2019", "-", "\u2013", " ", "\u00a0").Replace(s)
		},
		func(s string) string {
			return r("\u201c", "\"", "\u201d", "\"", "\u2019", "'", "\u2014", "-").Replace(s)
		},
		func(s string) string { return r("\n", `\n`, "\t", `\t`).Replace(s) },
		func(s string) string { return bom + s },
		func(s string) string { return "     1→" + strings.ReplaceAll(s, "\n", "\n     2→") },
		func(s string) string { return r("é", "e\u0301", "e\u0301", "é").Replace(s) },
		func(s string) string { return strings.TrimSuffix(s, "\n") },
		func(s string) string { return s + "\n" },
		func(s string) string { return strings.TrimLeft(s, " \t") },
	}
	for i, st := range steps {
		if slips&(1<<i) != 0 {
			s = st(s)
		}
	}
	return s
}
