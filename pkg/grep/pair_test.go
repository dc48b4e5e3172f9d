package grep

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// naiveFind is the reference: the first start at or after from where the
// needle is, comparing place by place.
func naiveFind(n *needle, buf []byte, from int) int {
	for p := from; p+len(n.b) <= len(buf); p++ {
		if n.at(buf[p : p+len(n.b)]) {
			return p
		}
	}
	return -1
}

// TestFindVec checks the vector pair scan against the place-by-place
// search: needles of every length up to 40, folded or not, in buffers of
// every size around the 32-byte blocks, with matches at the ends, across
// block borders and in both cases.
func TestFindVec(t *testing.T) {
	if !vecPair() {
		t.Skip("no vector pair scan on this CPU")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("abcAB_ \nxyzXYZ0")
	for iter := 0; iter < 20000; iter++ {
		size := rng.IntN(200)
		buf := make([]byte, size)
		for i := range buf {
			buf[i] = alphabet[rng.IntN(len(alphabet))]
		}
		nl := 2 + rng.IntN(min(39, max(size, 2)))
		fold := rng.IntN(2) == 0
		word := make([]rune, nl)
		for i := range word {
			word[i] = rune(alphabet[rng.IntN(len(alphabet)-1)]) // no '0' in needles: it stays rare in buf
		}
		n := needleOf(lit{word, fold})
		if len(n.b) < 2 {
			continue
		}
		// Plant the needle (perhaps in the other case) at a random place.
		if size >= len(n.b) && rng.IntN(3) > 0 {
			at := rng.IntN(size - len(n.b) + 1)
			copy(buf[at:], n.b)
			if fold && rng.IntN(2) == 0 {
				copy(buf[at:], bytes.ToUpper(n.b))
			}
		}
		for _, from := range []int{0, rng.IntN(size + 1), size} {
			want := naiveFind(&n, buf, from)
			if got := n.findVec(buf, from); got != want {
				t.Fatalf("needle %q (fold %v, pair %d,%d) in %q from %d: findVec %d, want %d", n.b, fold, n.o1, n.o2, buf, from, got, want)
			}
		}
	}
}

// scanModes runs f with the vector pair scan (where the CPU has it) and
// with the pure Go scans every other CPU uses.
func scanModes(t *testing.T, f func(t *testing.T)) {
	defer func(v bool) { haveVecPair = v }(vecPair())
	for _, vec := range []bool{true, false} {
		if vec && !haveVecPair {
			continue
		}
		haveVecPair = vec
		t.Run(map[bool]string{true: "vector", false: "pure-go"}[vec], f)
	}
}

// TestFinderAllMatches runs the finder, as Scan does, over a buffer with
// many matches and checks it finds every one in order.
func TestFinderAllMatches(t *testing.T) {
	scanModes(t, func(t *testing.T) {
		buf := bytes.Repeat([]byte("x return nil\nRETURN NIL return_nil\n"), 300)
		for _, fold := range []bool{false, true} {
			n := needleOf(lit{[]rune("return nil"), fold})
			got, want := allFound(n, buf), allNaive(n, buf)
			if len(got) != len(want) || len(want) != 300*(1+btoi(fold)) {
				t.Fatalf("fold %v: found %d matches, want %d (of %d)", fold, len(got), len(want), 300*(1+btoi(fold)))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("fold %v: match %d at %d, want %d", fold, i, got[i], want[i])
				}
			}
		}
	})
}

// TestFinderRandom compares the finder's every match with the place by
// place search on random text, in both scan modes, for needles of one to
// twenty bytes, folded or not.
func TestFinderRandom(t *testing.T) {
	scanModes(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 4))
		alphabet := []byte("abAB_ \nxX")
		for iter := 0; iter < 3000; iter++ {
			buf := make([]byte, rng.IntN(300))
			for i := range buf {
				buf[i] = alphabet[rng.IntN(len(alphabet))]
			}
			word := make([]rune, 1+rng.IntN(min(20, 1+len(buf)/4)))
			for i := range word {
				word[i] = rune(alphabet[rng.IntN(len(alphabet)-3)]) // no newline
			}
			n := needleOf(lit{word, rng.IntN(2) == 0})
			// Plant it a few times, perhaps in the other case, the end of
			// the buffer included.
			for k := rng.IntN(4); k > 0 && len(n.b) <= len(buf); k-- {
				at := len(buf) - len(n.b)
				if rng.IntN(3) > 0 {
					at = rng.IntN(at + 1)
				}
				copy(buf[at:], n.b)
				if n.fold && rng.IntN(2) == 0 {
					copy(buf[at:], bytes.ToUpper(n.b))
				}
			}
			got, want := allFound(n, buf), allNaive(n, buf)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("needle %q (fold %v) in %q: finder %v, want %v", n.b, n.fold, buf, got, want)
			}
		}
	})
}

// allFound is every start the finder reports, each search going on one
// place after the last match, as Scan's line loop does at most.
func allFound(n needle, buf []byte) []int {
	f := newFinder([]needle{n})
	f.reset()
	var out []int
	for p := 0; ; p++ {
		if p = f.find(buf, p); p < 0 {
			return out
		}
		out = append(out, p)
	}
}

func allNaive(n needle, buf []byte) []int {
	var out []int
	for p := 0; ; p++ {
		if p = naiveFind(&n, buf, p); p < 0 {
			return out
		}
		out = append(out, p)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// FuzzFindVec compares the vector pair scan with the place-by-place
// search on any buffer and needle.
func FuzzFindVec(f *testing.F) {
	f.Add([]byte("x return nil\nRETURN NIL"), "return nil", true, 0)
	f.Add(bytes.Repeat([]byte("ab"), 40), "bab", false, 3)
	f.Fuzz(func(t *testing.T, buf []byte, word string, fold bool, from int) {
		if !vecPair() || len(buf) > 1<<16 {
			return
		}
		n := needleOf(lit{[]rune(word), fold})
		if len(n.b) < 2 {
			return
		}
		from = min(max(from, 0), len(buf))
		if got, want := n.findVec(buf, from), naiveFind(&n, buf, from); got != want {
			t.Fatalf("needle %q (fold %v) in %q from %d: findVec %d, want %d", n.b, fold, buf, from, got, want)
		}
	})
}
