//go:build !amd64 || purego

package grep

// haveVecPair: there is no vector pair scan on this architecture (a var,
// as on amd64, so tests can switch the scan off there too).
var haveVecPair = false

func vecPair() bool { return haveVecPair }

func pairScanAVX2(p *byte, n, o1, o2 int, c1, c2, m1, m2 byte) (int, uint32) {
	panic("grep: no vector pair scan on this architecture")
}
