package editmatch

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// variant is one reading of old_string and new_string: as given, or with a
// byte-order mark, read-output gutters or literal escapes taken out. Each
// variant is searched; places found through any of them compete for
// uniqueness.
type variant struct {
	bits     int // bitBOM, bitGutter, bitEscapes: how the texts were cleaned
	old, new text
	keys     [][]byte // each old line's key, both ends trimmed
	nb       []int    // the old lines that are not blank
	anchor   []byte   // bytes every matching place holds verbatim, or nil
	anchorAt int      // the old line (index into nb) holding anchor
}

// variants returns the readings of old and new to search, the given one
// first.
func variants(f *file, old, new string) []*variant {
	out := []*variant{newVariant(f, old, new, 0)}
	o, n, bits := old, new, 0
	if strings.HasPrefix(o, bom) {
		o, n, bits = o[len(bom):], strings.TrimPrefix(n, bom), bits|bitBOM
	}
	if og, ng, ok := stripGutters(o, n); ok {
		o, n, bits = og, ng, bits|bitGutter
		// read_file shows a byte-order mark after line 1's gutter.
		if strings.HasPrefix(o, bom) {
			o, n, bits = o[len(bom):], strings.TrimPrefix(n, bom), bits|bitBOM
		}
	}
	if oe, ne, ok := decodeEscapes(f.c, o, n); ok {
		o, n, bits = oe, ne, bits|bitEscapes
	}
	if bits != 0 {
		out = append(out, newVariant(f, o, n, bits))
	}
	return out
}

func newVariant(f *file, old, new string, bits int) *variant {
	v := &variant{bits: bits, old: splitText(old), new: splitText(new)}
	var buf [256]byte
	for i, l := range v.old.lines {
		k := bytes.Clone(key(buf[:], l, trimBoth))
		v.keys = append(v.keys, k)
		if len(k) > 0 {
			v.nb = append(v.nb, i)
		}
	}
	// The anchor: the longest run; among equals, the one whose rarest byte
	// is rarest in the file.
	freq := f.freq()
	rarity := func(b []byte) int {
		r := len(f.c) + 1
		for _, c := range b {
			r = min(r, freq[c])
		}
		return r
	}
	for j, i := range v.nb {
		a := anchorOf(v.old.lines[i])
		if len(a) > len(v.anchor) || len(a) == len(v.anchor) && len(a) > 0 && rarity(a) < rarity(v.anchor) {
			v.anchor, v.anchorAt = a, j
		}
	}
	return v
}

// usable reports whether the variant has anything to look for.
func (v *variant) usable() bool { return len(v.nb) > 0 }

// leadTail reports whether old_string starts with a blank line followed by
// others: that line is the end of the line before the block.
func (v *variant) leadTail() bool {
	return len(v.old.lines) > 1 && len(v.keys[0]) == 0
}

// trailHead reports whether old_string ends, without a line ending, with a
// blank line after others: that line is the start of the line after the
// block.
func (v *variant) trailHead() bool {
	n := len(v.old.lines)
	return n > 1 && !v.old.endsNL && len(v.keys[n-1]) == 0
}

// anchorByte reports whether c is kept verbatim by every normalisation:
// printable ASCII other than whitespace and the ASCII forms of folded
// punctuation.
func anchorByte(c byte) bool {
	return c > ' ' && c < 0x7f && c != '\'' && c != '"' && c != '-' && c != '.'
}

// anchorOf returns the longest of anchorRuns(line).
func anchorOf(line []byte) []byte {
	var best []byte
	for _, r := range anchorRuns(line) {
		if len(r) > len(best) {
			best = r
		}
	}
	return best
}

// anchorRuns returns the runs of anchor bytes in line. A run followed by a
// non-ASCII byte loses its last byte, which could be the base of a
// composed character on the other side (e in é).
func anchorRuns(line []byte) [][]byte {
	var out [][]byte
	for i := 0; i < len(line); {
		if !anchorByte(line[i]) {
			i++
			continue
		}
		j := i
		for j < len(line) && anchorByte(line[j]) {
			j++
		}
		run := line[i:j]
		if j < len(line) && line[j] >= utf8.RuneSelf {
			run = run[:len(run)-1]
		}
		if len(run) > 0 {
			out = append(out, run)
		}
		i = j
	}
	return out
}

// gutter parses a read-output gutter at the start of line: optional
// spaces, a line number, then "→" (read_file) or a tab (cat -n). A line
// holding only a number (a gutter whose blank line lost its separator)
// counts too, with sep false. It returns the number and the rest.
func gutter(line string) (n int, rest string, sep, ok bool) {
	i := 0
	for i < len(line) && line[i] == ' ' {
		i++
	}
	j := i
	for j < len(line) && line[j] >= '0' && line[j] <= '9' {
		j++
	}
	if j == i || j-i > 9 {
		return 0, "", false, false
	}
	n, _ = strconv.Atoi(line[i:j])
	switch {
	case strings.HasPrefix(line[j:], "→"):
		return n, line[j+len("→"):], true, true
	case strings.HasPrefix(line[j:], "\t"):
		return n, line[j+1:], true, true
	case j == len(line):
		return n, "", false, true
	}
	return 0, "", false, false
}

// stripGutters takes read-output gutters off old and new. Every line of
// old must have one, numbered consecutively, and at least one must have a
// separator. new loses its gutters when every line has one and one has a
// separator; otherwise only arrow gutters (which no source text has) are
// taken off.
func stripGutters(old, new string) (string, string, bool) {
	ol := strings.Split(old, "\n")
	if strings.HasSuffix(old, "\n") {
		ol = ol[:len(ol)-1]
	}
	seps, first := 0, 0
	for i, l := range ol {
		cr := strings.HasSuffix(l, "\r")
		n, rest, sep, ok := gutter(strings.TrimSuffix(l, "\r"))
		if !ok {
			return "", "", false
		}
		if i == 0 {
			first = n
		}
		if n != first+i {
			return "", "", false
		}
		if sep {
			seps++
		}
		if cr {
			rest += "\r"
		}
		ol[i] = rest
	}
	if seps == 0 {
		return "", "", false
	}
	oldOut := strings.Join(ol, "\n")
	if strings.HasSuffix(old, "\n") {
		oldOut += "\n"
	}

	nlines := strings.Split(new, "\n")
	all, nseps := true, 0 // every line has a gutter, and how many a separator
	for i, l := range nlines {
		if i == len(nlines)-1 && l == "" {
			continue
		}
		_, _, sep, ok := gutter(strings.TrimSuffix(l, "\r"))
		all = all && ok
		if sep {
			nseps++
		}
	}
	all = all && nseps > 0 // a new_string of numbers only has no gutters
	for i, l := range nlines {
		t := strings.TrimSuffix(l, "\r")
		_, rest, sep, ok := gutter(t)
		if !ok || (!all && !(sep && strings.Contains(t[:len(t)-len(rest)], "→"))) {
			continue
		}
		if i == len(nlines)-1 && l == "" {
			continue
		}
		if strings.HasSuffix(l, "\r") {
			rest += "\r"
		}
		nlines[i] = rest
	}
	return oldOut, strings.Join(nlines, "\n"), true
}

// escapes are the two-character sequences a model types when it escapes
// its text once too often, and what they stand for.
var escapes = []struct{ seq, val string }{
	{`\n`, "\n"}, {`\t`, "\t"}, {`\r`, "\r"}, {`\"`, `"`}, {`\'`, `'`}, {`\\`, `\`},
}

// decodeEscapes turns literal \n and \t (and the other escapes) in old and
// new into the characters they stand for. It applies only when old holds
// \n or \t, and only to sequences that appear nowhere in the file: a file
// that has a literal \n (a C string, a regular expression) is never
// matched against a decoded newline.
func decodeEscapes(content []byte, old, new string) (string, string, bool) {
	if !strings.Contains(old, `\n`) && !strings.Contains(old, `\t`) {
		return "", "", false
	}
	allowed := map[byte]string{}
	for _, e := range escapes {
		if !bytes.Contains(content, []byte(e.seq)) {
			allowed[e.seq[1]] = e.val
		}
	}
	for _, s := range []string{`\n`, `\t`} {
		if strings.Contains(old, s) && allowed[s[1]] == "" {
			return "", "", false
		}
	}
	dec := func(s string) string {
		var sb strings.Builder
		for i := 0; i < len(s); i++ {
			if s[i] == '\\' && i+1 < len(s) {
				if v, ok := allowed[s[i+1]]; ok {
					sb.WriteString(v)
				} else {
					sb.WriteString(s[i : i+2])
				}
				i++
				continue
			}
			sb.WriteByte(s[i])
		}
		return sb.String()
	}
	return dec(old), dec(new), true
}
