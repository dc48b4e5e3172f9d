package grep

import (
	"bytes"
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
	if !haveVecPair {
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

// TestFinderAllMatches runs the finder, as Scan does, over a buffer with
// many matches and checks it finds every one in order.
func TestFinderAllMatches(t *testing.T) {
	buf := bytes.Repeat([]byte("x return nil\nRETURN NIL return_nil\n"), 300)
	for _, fold := range []bool{false, true} {
		n := needleOf(lit{[]rune("return nil"), fold})
		f := newFinder([]needle{n})
		f.reset()
		var got, want []int
		for p := 0; ; p++ {
			if p = f.find(buf, p); p < 0 {
				break
			}
			got = append(got, p)
		}
		for p := 0; ; p++ {
			if p = naiveFind(&n, buf, p); p < 0 {
				break
			}
			want = append(want, p)
		}
		if len(got) != len(want) || len(want) != 300*(1+btoi(fold)) {
			t.Fatalf("fold %v: found %d matches, want %d (of %d)", fold, len(got), len(want), 300*(1+btoi(fold)))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("fold %v: match %d at %d, want %d", fold, i, got[i], want[i])
			}
		}
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
		if !haveVecPair || len(buf) > 1<<16 {
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
