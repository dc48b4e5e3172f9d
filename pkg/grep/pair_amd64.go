//go:build amd64 && !purego

package grep

import "golang.org/x/sys/cpu"

// haveVecPair: the vector pair scan can run on this CPU.
var haveVecPair = cpu.X86.HasAVX2

// pairScanAVX2 is in pair_amd64.s.
//
//go:noescape
func pairScanAVX2(p *byte, n, o1, o2 int, c1, c2, m1, m2 byte) (off int, mask uint32)
