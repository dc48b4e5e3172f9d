//go:build race

package grep

// raceBuild: the tests run under the race detector, which makes regexp2's
// compiling ten times slower; the differential test takes fewer patterns
// there (what it checks runs in one goroutine).
const raceBuild = true
