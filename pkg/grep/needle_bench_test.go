package grep

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchCorpus is the text of the tree named by WS_BENCH_TREE, concatenated.
func benchCorpus(b *testing.B) []byte {
	root := os.Getenv("WS_BENCH_TREE")
	if root == "" {
		b.Skip("set WS_BENCH_TREE to a source tree")
	}
	var buf []byte
	filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() && strings.HasSuffix(p, ".go") && len(buf) < 64<<20 {
			d, _ := os.ReadFile(p)
			buf = append(buf, d...)
		}
		return nil
	})
	return buf
}

// BenchmarkNeedles times one pass of each way to find a needle over the
// corpus.
func BenchmarkNeedles(b *testing.B) {
	buf := benchCorpus(b)
	for _, s := range []string{"UnexpectedEOF", "ShortWrite", "ClosedPipe", "deadline exceeded", "return nil"} {
		for _, fold := range []bool{false, true} {
			n := needleOf(lit{[]rune(s), fold})
			name := s
			if fold {
				name += "/fold"
			}
			b.Run(name+"/finder", func(b *testing.B) {
				b.SetBytes(int64(len(buf)))
				f := newFinder([]needle{n})
				for b.Loop() {
					f.reset()
					for p := 0; ; p++ {
						if p = f.find(buf, p); p < 0 {
							break
						}
					}
				}
			})
			type way struct {
				name string
				find func([]byte, int) int
			}
			// The pure Go ways: the eight-at-a-time pair scan for a
			// folded needle, the rarest byte or bytes.Index otherwise.
			ways := []way{{"swar", n.findFold}}
			if !fold {
				ways = []way{
					{"rare", n.findRare},
					{"index", func(buf []byte, p int) int {
						if i := bytes.Index(buf[p:], n.b); i >= 0 {
							return p + i
						}
						return -1
					}},
				}
			}
			if vecPair() {
				ways = append(ways, way{"vec", n.findVec})
			}
			for _, w := range ways {
				b.Run(name+"/"+w.name, func(b *testing.B) {
					b.SetBytes(int64(len(buf)))
					for b.Loop() {
						for p := 0; ; p++ {
							if p = w.find(buf, p); p < 0 {
								break
							}
						}
					}
				})
			}
		}
	}
}

// BenchmarkScan times Scan over the corpus, with the prefilter and with
// the regexp alone.
func BenchmarkScan(b *testing.B) {
	benchAgainstRegexp(b, "prefilter", "ErrUnexpectedEOF|ErrShortWrite|ErrClosedPipe", `func \w+Context\(`, `(?i)deadline exceeded`, `\w+Deadline\w*`)
}

// benchAgainstRegexp times Scan (named how) and RE2 over the whole buffer
// for each pattern, on the corpus.
func benchAgainstRegexp(b *testing.B, how string, patterns ...string) {
	buf := benchCorpus(b)
	for _, p := range patterns {
		m, _ := Compile(p, true)
		b.Run(p+"/"+how, func(b *testing.B) {
			b.SetBytes(int64(len(buf)))
			for b.Loop() {
				m.Scan(buf, 0)
			}
		})
		b.Run(p+"/regexp", func(b *testing.B) {
			b.SetBytes(int64(len(buf)))
			for b.Loop() {
				var hits []Hit
				m.eachInBuffer(buf, false, func(line, col int) bool { hits = append(hits, Hit{line, col}); return true })
			}
		})
	}
}

// findRare finds a case-sensitive needle at or after from by its rarest
// byte: a way the benchmark compares with, not used by the search.
func (n *needle) findRare(buf []byte, from int) int {
	c := n.b[n.rare]
	for at := from + n.rare; at < len(buf); {
		i := bytes.IndexByte(buf[at:], c)
		if i < 0 {
			return -1
		}
		s := at + i - n.rare
		if s+len(n.b) <= len(buf) && bytes.Equal(buf[s:s+len(n.b)], n.b) {
			return s
		}
		at += i + 1
	}
	return -1
}
