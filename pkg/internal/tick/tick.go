// Package tick runs a step at a fixed interval until it is told to stop.
package tick

import "time"

// Every calls step every interval, with the tick's time, until done
// closes or step returns false. The first call comes one interval after
// the start.
func Every(done <-chan struct{}, interval time.Duration, step func(now time.Time) bool) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case now := <-t.C:
			if !step(now) {
				return
			}
		}
	}
}
