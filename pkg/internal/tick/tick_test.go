package tick

import (
	"testing"
	"time"
)

func TestEvery(t *testing.T) {
	// step ends it: three calls, at growing times.
	var at []time.Time
	Every(nil, time.Millisecond, func(now time.Time) bool {
		at = append(at, now)
		return len(at) < 3
	})
	if len(at) != 3 || !at[0].Before(at[1]) || !at[1].Before(at[2]) {
		t.Errorf("calls at %v", at)
	}
	// done ends it before any call.
	done := make(chan struct{})
	close(done)
	calls := 0
	Every(done, time.Hour, func(time.Time) bool { calls++; return true })
	if calls != 0 {
		t.Errorf("%d calls after done", calls)
	}
}
