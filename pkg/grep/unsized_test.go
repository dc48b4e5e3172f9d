package grep

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/wstools/ws/pkg/internal/fsroot"
	"golang.org/x/sys/unix"
)

// TestUnsizedFiles: files that procfs and sysfs give no size (st_size 0)
// are judged by their head and searched in windows, so what they hold
// bounds neither memory nor the search. /proc/self/pagemap holds 8 bytes
// for each page of the address space, hundreds of gigabytes of mostly
// NULs: it was read whole, until ws died out of memory (ws --root /proc
// grep x took all 24 GB of the machine). The search runs in a child
// process whose address space is limited, so a regression fails the test
// instead of the machine; /proc/self/status, a text file without a size,
// is still searched.
func TestUnsizedFiles(t *testing.T) {
	if os.Getenv("WS_TEST_UNSIZED") == "1" {
		// 2 GiB more address space than the process has mapped (the race
		// detector maps much at its start).
		limit := uint64(vmSize(t)) + 2<<30
		must(t, unix.Setrlimit(unix.RLIMIT_AS, &unix.Rlimit{Cur: limit, Max: limit}))
		fsys := fsroot.New(fsroot.Options{Base: "/proc/self", Contained: true})
		m, err := Compile("State:", true)
		must(t, err)
		for _, p := range []string{"pagemap", "status"} {
			res, err := Search(context.Background(), fsys, p, Options{Matcher: m, MaxMatches: 1000})
			must(t, err)
			fmt.Printf("%s: files %d, binary %d, skipped %v\n", p, len(res.Files), res.BinarySkipped, res.Skipped)
		}
		return
	}
	if _, err := os.Stat("/proc/self/pagemap"); err != nil {
		t.Skip("no /proc/self/pagemap:", err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestUnsizedFiles$")
	cmd.Env = append(os.Environ(), "WS_TEST_UNSIZED=1")
	out, err := cmd.CombinedOutput()
	got := string(out)
	if err != nil || !strings.Contains(got, "pagemap: files 0, binary 1, skipped []\n") || !strings.Contains(got, "status: files 1, binary 0, skipped []\n") {
		if len(got) > 2000 {
			got = got[:2000] + "…"
		}
		t.Fatalf("searching /proc/self: %v\n%s", err, got)
	}
}

// vmSize is the address space the process has mapped, in bytes.
func vmSize(t *testing.T) int64 {
	data, err := os.ReadFile("/proc/self/status")
	must(t, err)
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmSize:"); ok {
			var kb int64
			_, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb)
			must(t, err)
			return kb << 10
		}
	}
	t.Fatal("no VmSize in /proc/self/status")
	return 0
}
