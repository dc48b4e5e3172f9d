package editmatch

import "bytes"

// finder searches one pattern in one text quickly. bytes.Index scans for
// the pattern's first byte, which in code is often a tab or a space: on a
// large file that is a false start every few bytes, and it then falls
// back to a brute-force compare. finder instead scans for the pattern's
// rarest byte in this text (judged on a sample), and checks a second rare
// byte before comparing the whole pattern.
type finder struct {
	pat    []byte
	r1, r2 int // offsets in pat of the rarest and second rarest bytes
}

// sampleSize is how much of a large text is sampled for byte frequencies.
const sampleSize = 64 << 10

// sampleFreq counts the bytes of text, or of an even sample of it when it
// is large.
func sampleFreq(text []byte) *[256]int {
	var freq [256]int
	if len(text) <= sampleSize {
		for _, c := range text {
			freq[c]++
		}
		return &freq
	}
	const chunk = 1 << 10
	step := len(text) / (sampleSize / chunk)
	for at := 0; at+chunk <= len(text); at += step {
		for _, c := range text[at : at+chunk] {
			freq[c]++
		}
	}
	return &freq
}

func newFinder(text, pat []byte) *finder {
	return newFinderFreq(sampleFreq(text), pat)
}

// newFinderFreq makes a finder from byte frequencies of the text.
func newFinderFreq(freq *[256]int, pat []byte) *finder {
	f := &finder{pat: pat}
	if len(pat) < 2 {
		return f
	}
	f.r1, f.r2 = 0, 1
	if freq[pat[1]] < freq[pat[0]] {
		f.r1, f.r2 = 1, 0
	}
	for i := 2; i < len(pat); i++ {
		switch c := freq[pat[i]]; {
		case c < freq[pat[f.r1]]:
			f.r1, f.r2 = i, f.r1
		case c < freq[pat[f.r2]] && pat[i] != pat[f.r1]:
			f.r2 = i
		}
	}
	return f
}

// index returns the offset of the first occurrence of the pattern in s,
// or -1.
func (f *finder) index(s []byte) int {
	p := f.pat
	if len(p) < 2 || len(s) < 1024 {
		return bytes.Index(s, p)
	}
	if len(s) < len(p) {
		return -1
	}
	c1, c2 := p[f.r1], p[f.r2]
	d := f.r2 - f.r1
	limit := len(s) - (len(p) - 1 - f.r1) // s[:limit] may hold the rare byte of a match
	fails := 0
	for i := f.r1; i < limit; {
		j := bytes.IndexByte(s[i:limit], c1)
		if j < 0 {
			return -1
		}
		i += j
		start := i - f.r1
		if s[i+d] == c2 && bytes.Equal(s[start:start+len(p)], p) {
			return start
		}
		i++
		// When even the rarest byte is everywhere, bytes.Index's
		// Rabin-Karp and vectorised compares do better.
		if fails++; fails > 1024 && fails > (i-f.r1)/16 {
			if k := bytes.Index(s[start+1:], p); k >= 0 {
				return start + 1 + k
			}
			return -1
		}
	}
	return -1
}

// count returns the number of non-overlapping occurrences in s.
func (f *finder) count(s []byte) int {
	n := 0
	for {
		i := f.index(s)
		if i < 0 {
			return n
		}
		n++
		s = s[i+len(f.pat):]
	}
}
