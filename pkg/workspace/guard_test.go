package workspace

import (
	"testing"
	"time"
)

// TestIsoMillis checks the millisecond form against what node 20 prints for
// fs.statSync(f).mtime.toISOString() after touch -d with these nanoseconds.
func TestIsoMillis(t *testing.T) {
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for ns, want := range map[int]string{
		987654321: "2026-01-02T03:04:05.988Z",
		499999:    "2026-01-02T03:04:05.001Z", // the double holds .5 ms
		500000:    "2026-01-02T03:04:05.001Z",
		999500000: "2026-01-02T03:04:06.000Z",
		123456789: "2026-01-02T03:04:05.123Z",
		1:         "2026-01-02T03:04:05.000Z",
		499999999: "2026-01-02T03:04:05.500Z",
	} {
		if got := isoMillis(base.Add(time.Duration(ns))); got != want {
			t.Errorf("isoMillis(.%09d) = %s, want %s", ns, got, want)
		}
	}
}

// TestStaleTimes checks when the stale-write message shows nanoseconds
// and sizes: only when the millisecond forms are equal.
func TestStaleTimes(t *testing.T) {
	a := time.Date(2026, 1, 2, 3, 4, 5, 100_000_000, time.UTC)
	tests := []struct {
		b           time.Time
		sa, sb      int64
		x, y, sizes string
	}{
		{a.Add(time.Second), 5, 7, "2026-01-02T03:04:05.100Z", "2026-01-02T03:04:06.100Z", ""},
		{a.Add(time.Microsecond), 5, 5, "2026-01-02T03:04:05.100000000Z", "2026-01-02T03:04:05.100001000Z", ""},
		{a, 5, 7, "2026-01-02T03:04:05.100000000Z", "2026-01-02T03:04:05.100000000Z", "; expected size 5 bytes, actual 7 bytes"},
	}
	for _, tt := range tests {
		x, y, sizes := staleTimes(a, tt.b, tt.sa, tt.sb)
		if x != tt.x || y != tt.y || sizes != tt.sizes {
			t.Errorf("staleTimes(%v, %d, %d) = %q, %q, %q; want %q, %q, %q", tt.b, tt.sa, tt.sb, x, y, sizes, tt.x, tt.y, tt.sizes)
		}
	}
}
