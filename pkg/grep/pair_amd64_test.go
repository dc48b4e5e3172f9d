//go:build amd64 && !purego

package grep

import (
	"os"
	"regexp"
	"testing"
)

// TestHasAVX2 checks ws's own CPU probe against the flags the kernel
// reports: "avx2" in /proc/cpuinfo means the CPU has it and the kernel
// saves the YMM registers.
func TestHasAVX2(t *testing.T) {
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skip("no /proc/cpuinfo")
	}
	flags := regexp.MustCompile(`(?m)^flags\s*:(.*)$`).FindSubmatch(info)
	if flags == nil {
		t.Skip("no flags line in /proc/cpuinfo")
	}
	want := regexp.MustCompile(`\bavx2\b`).Match(flags[1])
	if got := hasAVX2(); got != want {
		t.Fatalf("hasAVX2() = %v, /proc/cpuinfo says avx2 %v", got, want)
	}
	if vecPair() != want {
		t.Fatalf("vecPair() = %v, want %v", vecPair(), want)
	}
}
