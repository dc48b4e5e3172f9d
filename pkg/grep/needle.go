package grep

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// A needle is a string every match contains, looked for with a fast byte
// scan before any regexp runs.
type needle struct {
	b     []byte // fold: ASCII letters lower-cased
	fold  bool   // ASCII letters match in either case
	whole bool   // b is the whole literal it came from
	rare  int    // the index in b of the byte the scan looks for
	// The pair scans compare two of its bytes, the rarest (at o1) and the
	// next rarest (at o2). The pure Go one, for a folded needle, tests
	// eight positions at a time; m1 and m2 are 0x20 for a folded letter,
	// whose case bit is then ignored (0 otherwise).
	o1, o2 int
	c1, c2 uint64 // the bytes, repeated in every lane
	m1, m2 uint64
	// The same pair for the vector scan, which compares 32 places at a
	// time: b1 and b2 the bytes, k1 and k2 their case bits (0x20 for a
	// folded letter, else 0).
	b1, b2, k1, k2 byte
}

// pickRare chooses the byte to scan for: the one least frequent in
// source text (both cases counted for a folded letter).
func (n *needle) pickRare() {
	best := -1
	for i, c := range n.b {
		f := int(byteRank[c])
		if n.fold && lower(c) != upper(c) {
			f = max(f, int(byteRank[upper(c)])) + 8 // two scans
		}
		if best < 0 || f < best {
			best, n.rare = f, i
		}
	}
}

// pickPair chooses the two bytes the pair scans compare (the rarest two).
func (n *needle) pickPair() {
	if len(n.b) < 2 {
		return
	}
	a, b := -1, -1
	for i, c := range n.b {
		switch r := byteRank[c]; {
		case a < 0 || r < byteRank[n.b[a]]:
			a, b = i, a
		case b < 0 || r < byteRank[n.b[b]]:
			b = i
		}
	}
	n.o1, n.o2 = a, b // the rarest first: most words fail on it alone
	lane := func(c byte) (uint64, uint64) {
		var m uint64
		if n.fold && lower(c) != upper(c) {
			m = 0x2020202020202020
		}
		return uint64(c) * 0x0101010101010101, m
	}
	n.c1, n.m1 = lane(n.b[n.o1])
	n.c2, n.m2 = lane(n.b[n.o2])
	n.b1, n.k1, n.b2, n.k2 = n.b[n.o1], byte(n.m1), n.b[n.o2], byte(n.m2)
}

// findVec finds a needle of two bytes or more at or after from with the
// vector pair scan, which tests 32 start places per step for the pair's
// two bytes and checks the whole needle only where both are there.
func (n *needle) findVec(buf []byte, from int) int {
	last := len(buf) - len(n.b) // the last place it can start
	hi := max(n.o1, n.o2)
	p := from
	for p <= last {
		lim := len(buf) - hi - 32 - p + 1 // the blocks at p+k*32, k*32 < lim, fit
		if lim <= 0 {
			break
		}
		off, mask := pairScanAVX2(&buf[p], lim, n.o1, n.o2, n.b1, n.b2, n.k1, n.k2)
		if off < 0 {
			p += (lim + 31) &^ 31
			break
		}
		q := p + off
		for ; mask != 0; mask &= mask - 1 {
			s := q + bits.TrailingZeros32(mask)
			if s <= last && n.at(buf[s:s+len(n.b)]) {
				return s
			}
		}
		p = q + 32
	}
	for ; p <= last; p++ {
		if n.at(buf[p : p+len(n.b)]) {
			return p
		}
	}
	return -1
}

// findFold finds a folded needle at or after from.
func (n *needle) findFold(buf []byte, from int) int {
	last := len(buf) - len(n.b) // the last place it can start
	p := from
	if len(n.b) >= 2 {
		for hi := max(n.o1, n.o2); p <= last && p+hi+8 <= len(buf); p += 8 {
			m := zeroBytes(binary.LittleEndian.Uint64(buf[p+n.o1:]) | n.m1 ^ n.c1)
			if m == 0 {
				continue // the rarer byte is not in these eight places
			}
			m &= zeroBytes(binary.LittleEndian.Uint64(buf[p+n.o2:]) | n.m2 ^ n.c2)
			for ; m != 0; m &= m - 1 {
				s := p + bits.TrailingZeros64(m)/8
				if s <= last && equalFoldASCII(buf[s:s+len(n.b)], n.b) {
					return s
				}
			}
		}
	}
	for ; p <= last; p++ {
		if equalFoldASCII(buf[p:p+len(n.b)], n.b) {
			return p
		}
	}
	return -1
}

// zeroBytes has the high bit set in each byte of x that is zero (and
// perhaps in some above one that is: callers check every candidate).
func zeroBytes(x uint64) uint64 {
	return (x - 0x0101010101010101) &^ x & 0x8080808080808080
}

// rank is how common the needle's scan byte is (0: rarest).
func (n needle) rank() byte { return byteRank[n.b[n.rare]] }

// at reports whether s (as long as the needle) is the needle.
func (n *needle) at(s []byte) bool {
	if n.fold {
		return equalFoldASCII(s, n.b)
	}
	return bytes.Equal(s, n.b)
}

// finder finds the needles of a prefilter in one buffer. It remembers
// where each needle occurs next, so the buffer is read once per needle
// however many candidates it holds.
type finder struct {
	ns   []needle
	next []int // per needle, the next offset where it starts; -1 none, -2 not looked for yet
}

func newFinder(ns []needle) *finder {
	f := &finder{ns: ns, next: make([]int, len(ns))}
	return f
}

func (f *finder) reset() {
	for i := range f.next {
		f.next[i] = -2
	}
}

// find returns the offset of the leftmost needle occurrence at or after
// from, or -1.
func (f *finder) find(buf []byte, from int) int {
	best := -1
	for i := range f.ns {
		if p := f.findOne(buf, from, i); p >= 0 && (best < 0 || p < best) {
			best = p
		}
	}
	return best
}

// findOne finds needle i at or after from.
func (f *finder) findOne(buf []byte, from, i int) int {
	if p := f.next[i]; p == -1 || p >= from {
		return p
	}
	n := &f.ns[i]
	var p int
	switch {
	case vecPair() && len(n.b) >= 2:
		p = n.findVec(buf, from)
	case n.fold:
		p = n.findFold(buf, from)
	default:
		if p = bytes.Index(buf[from:], n.b); p >= 0 {
			p += from
		}
	}
	f.next[i] = p
	return p
}

// equalFoldASCII compares s with the lower-cased needle b, ASCII letters
// in either case.
func equalFoldASCII(s, b []byte) bool {
	for i, c := range b {
		if s[i] != c && lower(s[i]) != c {
			return false
		}
	}
	return true
}

// byteRank orders bytes by how often they occur in source code (0: the
// rarest), counted over the text files of the Go source tree.
var byteRank = [256]byte{
	0, 46, 36, 37, 38, 39, 47, 48, 1, 252, 248, 2, 3, 60, 4, 5,
	40, 6, 7, 8, 41, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
	255, 182, 226, 164, 167, 172, 178, 175, 232, 231, 186, 180, 243, 190, 235, 233,
	250, 236, 229, 220, 222, 204, 218, 199, 209, 201, 228, 183, 176, 224, 171, 159,
	157, 216, 191, 207, 202, 215, 193, 185, 184, 206, 163, 173, 196, 200, 192, 208,
	203, 170, 211, 221, 217, 187, 194, 181, 197, 179, 166, 189, 205, 188, 160, 219,
	165, 247, 223, 240, 238, 254, 239, 227, 225, 246, 168, 198, 241, 230, 249, 244,
	234, 169, 251, 245, 253, 237, 210, 195, 242, 214, 174, 213, 177, 212, 156, 20,
	155, 144, 154, 148, 125, 145, 138, 97, 149, 132, 136, 90, 111, 77, 98, 71,
	108, 91, 94, 112, 137, 139, 88, 129, 141, 135, 68, 72, 133, 140, 103, 78,
	87, 96, 85, 93, 128, 122, 110, 113, 92, 134, 109, 117, 121, 115, 100, 82,
	84, 130, 123, 120, 99, 101, 86, 161, 95, 147, 124, 104, 142, 116, 131, 83,
	21, 22, 162, 127, 63, 59, 51, 69, 58, 81, 80, 62, 119, 79, 152, 107,
	73, 67, 50, 53, 55, 75, 76, 89, 150, 153, 65, 66, 56, 42, 49, 52,
	106, 146, 158, 151, 102, 126, 143, 114, 105, 74, 70, 57, 61, 54, 43, 64,
	118, 23, 24, 25, 44, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 45,
}
