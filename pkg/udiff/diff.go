package udiff

import "sort"

// opKind says what an edit-script step does.
type opKind byte

const (
	opEqual  opKind = iota // a line present on both sides
	opDelete               // a line only in a
	opInsert               // a line only in b
)

// op is one line of an edit script: a is the index in a (equal, delete),
// b the index in b (equal, insert).
type op struct {
	kind opKind
	a, b int
}

// Limits that keep the diff near-linear on large inputs.
const (
	// maxMyersD bounds the edit distance Myers' algorithm searches; its
	// trace costs about maxMyersD² words.
	maxMyersD = 1000
	// patienceAbove is the size (lines on both sides) from which a segment
	// is first split on unique common lines.
	patienceAbove = 2000
	// maxDepth bounds the recursion of the patience split.
	maxDepth = 64
)

// diffLines returns an edit script turning a into b. The lines are given
// as small integers (equal lines, equal numbers), all below n.
func diffLines(a, b []int, n int) []op {
	d := &differ{n: n, out: make([]op, 0, len(a)+len(b))}
	d.seg(a, b, 0, 0, 0)
	return d.out
}

// differ builds one edit script.
type differ struct {
	n   int // the lines are numbers below n
	out []op
}

// seg appends the script for a vs b, whose first lines are at a0 and b0
// in the whole inputs.
func (d *differ) seg(a, b []int, a0, b0, depth int) {
	out := &d.out
	// Common prefix and suffix.
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		*out = append(*out, op{opEqual, a0 + p, b0 + p})
		p++
	}
	a, b, a0, b0 = a[p:], b[p:], a0+p, b0+p
	s := 0
	for s < len(a) && s < len(b) && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	tailA, tailB := a0+len(a)-s, b0+len(b)-s
	a, b = a[:len(a)-s], b[:len(b)-s]
	defer func() {
		for i := 0; i < s; i++ {
			*out = append(*out, op{opEqual, tailA + i, tailB + i})
		}
	}()

	switch {
	case len(a) == 0 && len(b) == 0:
		return
	case len(a) == 0 || len(b) == 0:
		replaceAll(out, len(a), len(b), a0, b0)
		return
	}
	if len(a)+len(b) > patienceAbove && depth < maxDepth {
		if anchors := d.uniqueLCS(a, b); len(anchors) > 0 {
			pa, pb := 0, 0
			for _, an := range anchors {
				d.seg(a[pa:an[0]], b[pb:an[1]], a0+pa, b0+pb, depth+1)
				*out = append(*out, op{opEqual, a0 + an[0], b0 + an[1]})
				pa, pb = an[0]+1, an[1]+1
			}
			d.seg(a[pa:], b[pb:], a0+pa, b0+pb, depth+1)
			return
		}
	}
	if ops, ok := myers(a, b, a0, b0); ok {
		*out = append(*out, ops...)
		return
	}
	replaceAll(out, len(a), len(b), a0, b0)
}

// replaceAll appends n deletions then m insertions.
func replaceAll(out *[]op, n, m, a0, b0 int) {
	for i := 0; i < n; i++ {
		*out = append(*out, op{opDelete, a0 + i, b0})
	}
	for j := 0; j < m; j++ {
		*out = append(*out, op{opInsert, a0 + n, b0 + j})
	}
}

// uniqueLCS returns the pairs (i, j) of lines that occur exactly once in a
// and once in b, restricted to their longest increasing subsequence (the
// anchors of patience diff), in order.
func (d *differ) uniqueLCS(a, b []int) [][2]int {
	// Per line number: occurrences in a and b, and the index in b. Slices
	// when the segment is large against the numbering, else a map.
	type cnt struct{ na, nb, ib int32 }
	var get func(x int) *cnt
	if d.n <= 4*(len(a)+len(b)) {
		tab := make([]cnt, d.n)
		get = func(x int) *cnt { return &tab[x] }
	} else {
		m := make(map[int]*cnt, len(a))
		get = func(x int) *cnt {
			c := m[x]
			if c == nil {
				c = &cnt{}
				m[x] = c
			}
			return c
		}
	}
	for _, x := range a {
		get(x).na++
	}
	for j, x := range b {
		if c := get(x); c.na > 0 {
			c.nb++
			c.ib = int32(j)
		}
	}
	var pairs [][2]int
	for i, x := range a {
		if c := get(x); c.na == 1 && c.nb == 1 {
			pairs = append(pairs, [2]int{i, int(c.ib)})
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	// Longest increasing subsequence on j (pairs are sorted on i).
	tails := []int{} // indices into pairs
	prev := make([]int, len(pairs))
	for k, pr := range pairs {
		n := sort.Search(len(tails), func(t int) bool { return pairs[tails[t]][1] >= pr[1] })
		if n > 0 {
			prev[k] = tails[n-1]
		} else {
			prev[k] = -1
		}
		if n == len(tails) {
			tails = append(tails, k)
		} else {
			tails[n] = k
		}
	}
	lis := make([][2]int, len(tails))
	for k, t := len(tails)-1, tails[len(tails)-1]; k >= 0; k, t = k-1, prev[t] {
		lis[k] = pairs[t]
	}
	return lis
}

// myers is the greedy O(ND) algorithm (Myers 1986), keeping a snapshot of
// the furthest-reaching paths per edit distance to walk back. It gives up
// (false) beyond maxMyersD edits.
func myers(a, b []int, a0, b0 int) ([]op, bool) {
	n, m := len(a), len(b)
	maxD := min(n+m, maxMyersD)
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int // trace[d] = v[off-d : off+d+1] before step d
	found := -1
	for d := 0; d <= maxD && found < 0; d++ {
		trace = append(trace, append([]int(nil), v[off-d:off+d+1]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1] // down: an insertion
			} else {
				x = v[off+k-1] + 1 // right: a deletion
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = d
				break
			}
		}
	}
	if found < 0 {
		return nil, false
	}
	// Walk back from (n, m), collecting the script in reverse.
	rev := make([]op, 0, n+m)
	x, y := n, m
	for d := found; d > 0; d-- {
		prevV := trace[d] // values after step d-1, k in [-(d-1)... ] stored with offset d
		at := func(k int) int { return prevV[k+d] }
		k := x - y
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		// The snake after the edit, then the edit itself.
		from := px // x right after the edit
		if pk == k-1 {
			from = px + 1
		}
		for x > from {
			x--
			y--
			rev = append(rev, op{opEqual, a0 + x, b0 + y})
		}
		if pk == k+1 {
			y--
			rev = append(rev, op{opInsert, a0 + x, b0 + y})
		} else {
			x--
			rev = append(rev, op{opDelete, a0 + x, b0 + y})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, op{opEqual, a0 + x, b0 + y})
	}
	out := make([]op, len(rev))
	for i, o := range rev {
		out[len(rev)-1-i] = o
	}
	return out, true
}
