//go:build amd64 && !purego

package grep

import "sync"

// haveVecPair: the vector pair scan can run on this CPU. vecPair sets it
// on first use; tests switch it off to run the pure Go scans.
var haveVecPair bool

var vecPairOnce sync.Once

// vecPair reports whether the vector pair scan can run on this CPU. It
// asks the CPU when a search first needs to know, not in a package init:
// CPUID traps to the hypervisor on a virtual machine (about 0.1 ms for a
// full feature probe), and most ws commands never search.
func vecPair() bool {
	vecPairOnce.Do(func() { haveVecPair = hasAVX2() })
	return haveVecPair
}

// hasAVX2: the CPU has AVX2 and the OS saves the YMM registers (CPUID
// leaf 1 OSXSAVE and AVX, XCR0 bits 1 and 2, leaf 7 AVX2).
func hasAVX2() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if ecx1&osxsave == 0 || ecx1&avx == 0 {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0
}

// cpuid and xgetbv are in pair_amd64.s.
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax, edx uint32)

// pairScanAVX2 is in pair_amd64.s.
//
//go:noescape
func pairScanAVX2(p *byte, n, o1, o2 int, c1, c2, m1, m2 byte) (off int, mask uint32)
